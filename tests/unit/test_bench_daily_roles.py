"""The split run's pure helpers (bench.daily_roles, bench.daily_parts): its --roles value, the worker's lines,
the answer p99 by window and the ratio that shows the split works (no benchmark is run here)."""

from __future__ import annotations

import pytest

from bench.daily_minute import _cache_part
from bench.daily_parts import p99_by_bin, split_ratio, window_p99
from bench.daily_roles import event, parse_roles


def test_roles_are_interactive_and_delivery_in_any_order_and_nothing_else():
    assert parse_roles("interactive,delivery") == parse_roles(" delivery , interactive ") == ("delivery", "interactive")
    for bad in ("interactive", "delivery,delivery", "interactive,delivery,all", ""):
        with pytest.raises(ValueError, match="--roles"):
            parse_roles(bad)


def test_the_workers_lines_are_read_and_stray_output_is_ignored():
    assert event(b'{"opened": 17}\n') == ("opened", 17)
    assert event('{"loaded": {"fan_out_end": 41.5}}') == ("loaded", {"fan_out_end": 41.5})
    assert event('{"result": {"posted": 3}}') == ("result", {"posted": 3})
    for stray in (b"a warning\n", b'{"other": 1}', b'{"opened": 1, "loaded": {}}', b"[1]"):
        assert event(stray) is None


def test_the_answer_p99_is_taken_by_when_each_answer_came_and_the_ratio_is_during_over_before():
    # 100 answers before 09:00 at 2 ms, 100 during the 30 s fan-out at 6 ms but one at 50 ms, 100 after at 3 ms
    planned = [-9 + i * 0.09 for i in range(100)] + [i * 0.3 for i in range(100)] + [31 + i for i in range(100)]
    latency = [0.002] * 100 + [0.006] * 99 + [0.05] + [0.003] * 100
    figures = window_p99(latency, planned, fan_out_end=30.0)
    assert figures["before 09:00"] == pytest.approx(2.0)
    assert figures["during the fan-out"] == pytest.approx(50.0)  # the p99 of 100 is their largest
    assert figures["after it"] == pytest.approx(3.0)
    ratio = split_ratio({f"answer_p99_ms {k}": v for k, v in figures.items()})
    assert ratio == pytest.approx(25.0)


def test_the_fan_outs_p99_by_bin_takes_each_answer_in_the_bin_it_came_in_and_none_outside():
    latencies = [0.001] * 10 + [0.004] * 10 + [0.009] * 10 + [0.5]
    planned = [0.5] * 10 + [5.0] * 10 + [11.0] * 10 + [-1.0]  # the last: before 09:00, in no bin
    assert p99_by_bin(latencies, planned, 12.0) == {"p99 bin 0": 1.0, "p99 bin 1": 4.0, "p99 bin 2": 9.0}
    assert p99_by_bin(latencies, planned, 10.0) == {"p99 bin 0": 1.0, "p99 bin 1": 4.0}  # after the fan-out: none


async def test_the_fake_platforms_limits_let_go_of_channels_whose_window_has_passed(monkeypatch):
    from bench import daily_parts

    now = [100.0]
    monkeypatch.setattr(daily_parts.time, "monotonic", lambda: now[0])
    limits = daily_parts.Limits()
    for i in range(3):
        await limits.wait([("channel", f"c{i}", 5, 5.0), ("global", "", 50, 1.0)])
    now[0] = 103.0
    limits.sweep(now[0])  # the channels' 5 s windows still hold their calls; the global 1 s window is empty
    assert sorted(limits._calls) == [("channel", "c0"), ("channel", "c1"), ("channel", "c2")]
    now[0] = 105.5
    await limits.wait([("channel", "c0", 5, 5.0), ("global", "", 50, 1.0)])
    limits.sweep(now[0])
    assert sorted(limits._calls) == [("channel", "c0"), ("global", "")]


def test_the_seeded_boards_history_counts_every_learner_once_in_its_buckets():
    from bench.daily_parts import BOARD_USERS, HISTORY_BOARDS, board_rows

    spaces = [("slack", "T1"), ("discord", "4194304000")]
    scores, buckets = board_rows(spaces, lambda t: t)
    assert len(scores) == len(spaces) * len(HISTORY_BOARDS) * BOARD_USERS
    by_board: dict[tuple[object, ...], dict[object, int]] = {}
    for platform, space, period, key, _user, points, *_ in scores:
        counts = by_board.setdefault((platform, space, period, key), {})
        counts[points] = counts.get(points, 0) + 1
    assert {b[:4] for b in buckets} == set(by_board)
    for platform, space, period, key, points, users in buckets:
        assert by_board[(platform, space, period, key)][points] == users
    assert {row[4] for row in scores} >= {f"u{n}" for n in range(20)}  # yesterday's answerers have a history
    assert all(row[3] != "2026-W49" for row in scores)  # this week's board starts at 09:00's reveal


async def test_the_seeded_boards_are_read_as_the_bot_reads_them(tmp_path):
    from bench.daily_parts import board_rows, seed_boards
    from bot.kernel.values import Period
    from bot.store.sqlite import SqliteStore

    store = SqliteStore(tmp_path / "bench.db")
    await store.open()
    try:
        await seed_boards(store, [("slack", "T1")])
        scores, _ = board_rows([("slack", "T1")], lambda t: t)
        week = sorted((row[5], row[4]) for row in scores if row[3] == "2026-W48")
        points, user = week[0]  # the lowest score: everyone with more is above it
        mine = await store.rank_of("slack", "T1", Period.WEEK, "2026-W48", user)
        assert mine is not None and mine.points == points
        assert mine.rank == 1 + sum(1 for p, _ in week if p > points)
        top = await store.leaderboard("slack", "T1", Period.ALL, "all", 10)
        assert len(top) == 10 and top[0].points == max(row[5] for row in scores if row[2] == "all")
    finally:
        await store.close()


def test_the_round_caches_line_says_no_answers_instead_of_a_p99_of_nothing():
    result = {"answers during, missed": 0.0, "answer_p99_ms during, missed": float("nan")}
    result |= {"answers during, cached": 9730.0, "answer_p99_ms during, cached": 58.25}
    assert _cache_part(result, "missed") == "missed no answers"
    assert _cache_part(result, "cached") == "cached 9,730 answers p99 58.2 ms"
