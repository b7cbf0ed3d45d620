"""`studybot db copy`: SQLite -> PostgreSQL -> SQLite with real data made through the service.

Needs the PostgreSQL of test_postgres_store.py (a throwaway database per test); fails, never skips, when
it is not reachable.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import shutil
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from bot.access.values import LinkGrant
from bot.app.bootstrap import bootstrap
from bot.installs.values import WorkspaceInstall
from bot.kernel.cards import QuestionCard
from bot.kernel.errors import AlreadyAnswered, RoundClosed
from bot.kernel.scoring import period_keys
from bot.kernel.values import Actor, ChannelRef, Period, RoundKind
from bot.reports.values import NewReport, ReportReason
from bot.settings import ConfigChange
from bot.store.copy import CopyError, copy_data, dialect_of
from bot.store.copy import main as copy_main
from bot.store.copy_tables import TABLE_NAMES, TABLES
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from bot.teams.values import TeamTotal
from tests.integration.test_postgres_store import throwaway_database
from tests.support.fakes import FakePlatform, FixedClock, make_bank
from tests.support.live import LiveRecorder, play

ADMIN = Actor("admin", is_admin=True)
T0 = dt.datetime(2026, 11, 23, 8, 30, tzinfo=dt.UTC)
REFS = (
    ChannelRef("fake", "space-1", "chan-1"),
    ChannelRef("fake", "space-1", "chan-2"),
    ChannelRef("fake", "space-2", "chan-9"),
)
USERS = [f"user-{i:02d}" for i in range(25)] + ["Zed", "ada", "émile"]  # mixed case and non-ASCII sort alike
DAYS = 9
KEY = Fernet.generate_key()  # STUDYBOT_SECRET_KEY of the copied bot
SLACK_TOKENS = {"T0COPY": "xoxe.xoxb-copy-token-plaintext", "T0PLAIN": "xoxb-plain-token-plaintext"}
REFRESH = "xoxe-1-copy-refresh-plaintext"


async def make_history(store: SqliteStore) -> None:
    """Nine days of daily rounds in three channels (two spaces), answers, reveals and practice."""
    rng = random.Random(42)
    clock = FixedClock(T0)
    service = bootstrap(store, make_bank(per_topic=4), clock, {"fake": FakePlatform()}, rng=random.Random(1))
    await service.channels.configure(ADMIN, REFS[0], ConfigChange.of(timezone="UTC"))
    await service.channels.configure(
        ADMIN, REFS[1], ConfigChange.of(timezone="Asia/Tokyo", speed_bonus=True, reactions=False, recap_day=None)
    )
    await service.channels.configure(
        ADMIN,
        REFS[2],
        ConfigChange.of(
            timezone="Europe/Berlin", answer_window=dt.timedelta(hours=20), topics=frozenset({"autograd", "tensors"})
        ),
    )
    for day in range(DAYS):
        clock.set(T0 + dt.timedelta(days=day))
        for ref in REFS:
            round_ = await service.posting.post_scheduled(ref)
            assert round_ is not None
            for user in rng.sample(USERS, 18):
                clock.advance(seconds=rng.randrange(1, 30))
                await service.answers.submit_answer(round_.id, user, rng.randrange(4))
            try:  # a second answer is refused and changes nothing
                await service.answers.submit_answer(round_.id, USERS[0], 0)
            except (AlreadyAnswered, RoundClosed):
                pass
        for user in rng.sample(USERS, 3):
            card = await service.practice.start_practice(REFS[day % 3], user)
            await service.answers.submit_answer(card.round_id, user, rng.randrange(4))
    await service.practice.start_practice(REFS[0], "ada")  # an open practice round with no answer
    assert await store.mark_recap(REFS[0], dt.date(2026, 11, 29), clock.now())  # a week recapped
    latest = await store.latest_daily_round(REFS[0])
    assert latest is not None
    await store.mark_unsure(latest.id, "ada")  # a "not sure" mark on a daily answer
    # a space's own pack and a round's kept question (bodies are opaque text to the copy)
    await store.save_pack(
        "fake",
        "space-1",
        "mine",
        [("q1", '{"id": "q1", "prompt": "émile?"}'), ("q2", "{}")],
        replace=False,
        max_packs=50,
        now=T0,
    )
    await store.save_round_question(1, '{"id": "q1"}')
    # a season archived with its top three, a channel's season card and a champion role
    for round_ in await store.open_daily_rounds():
        if round_.local_date is not None and round_.local_date.month == 11:
            await service.reveals.reveal_round(round_.id)
    season = await store.archive_season("fake", "space-1", "2026-11", clock.now())
    assert season is not None and len(season.rows) == 3
    assert await store.mark_season_post(REFS[0], "2026-11", clock.now())
    await store.save_channel(
        replace(
            await service.channels.channel_config(REFS[0]),
            champion_role="123456789012345678",
            manager_role="223456789012345678",
            ping_role="323456789012345678",
            ping_group="S0123ABCD",
        )
    )
    # a team of two and November's team of the month
    assert (await store.create_team("fake", "space-1", "green tea", "Green Tea", "ada", T0)).name == "Green Tea"
    assert (await store.join_team("fake", "space-1", "green tea", USERS[0], T0)).name == "Green Tea"
    await store.claim_season_team("fake", "space-1", "2026-11", TeamTotal(1, "Green Tea", 30, 2), clock.now())
    # members' suggestions: one decided, one pending, and the day's count
    ref = ChannelRef("fake", "space-1", "chan-1")
    for _ in range(2):
        await store.add_suggestion(ref, "ada", '{"id": "suggestion", "prompt": "ça?"}', T0, T0.date(), 3)
    await store.reject_suggestion("fake", "space-1", 1, "a reason", "admin", T0)
    await service.reminders.set(REFS[2], "ada", True, dt.time(7, 45))  # a reminder, and a day it was sent
    assert await store.claim_reminder_day("fake", REFS[2].space_id, "ada", dt.date(2026, 11, 30), clock.now())
    # reports of a question (one resolved with hold: a held question), and one still open
    first = await store.latest_daily_round(REFS[1])
    assert first is not None
    await service.reports.report_round("ada", first.id, ReportReason.TYPO, "émile *typo*")
    [report] = await store.reports("fake", first.ref.space_id)
    await service.reports.resolve(Actor("admin", is_admin=True), "fake", first.ref.space_id, report.id, "hold")
    await service.reports.report_round(USERS[1], first.id, ReportReason.WRONG, "")
    # Slack workspaces that added the bot: one with token rotation (a renewal claimed), one without; an install
    # link in flight and a Slack delivery already handled
    box = Fernet(KEY)
    await service.installs.save_install(
        WorkspaceInstall(
            "slack",
            "T0COPY",
            "U0BOT",
            box.encrypt(SLACK_TOKENS["T0COPY"].encode()).decode(),
            T0,
            bot_id="B0BOT",
            scopes="commands,chat:write",
            installed_by="U0ANN",
            refresh_secret=box.encrypt(REFRESH.encode()).decode(),
            token_expires_at=T0 + dt.timedelta(hours=12),
        )
    )
    plain = WorkspaceInstall("slack", "T0PLAIN", "U0BOT", box.encrypt(SLACK_TOKENS["T0PLAIN"].encode()).decode(), T0)
    await service.installs.save_install(plain)
    copying = await store.find_install("slack", "T0COPY")
    assert copying is not None
    assert await service.installs.claim_token_refresh(copying, dt.timedelta(minutes=1))
    await service.installs.issue_oauth_state(dt.timedelta(minutes=10))
    assert await store.remember_once("slack-event", "Ev0COPY", clock.now(), dt.timedelta(hours=1))
    # the dashboard: a one-time sign-in link used, one still waiting, and a client's sign-in attempts
    used = await service.access.issue_link(LinkGrant("console", "local", "you", True))
    await service.access.issue_link(LinkGrant("fake", "space-1", "ada", False))
    assert await service.access.redeem_link(used) is not None
    assert await service.access.allow_attempt("127.0.0.1")
    # issue 31: a review limit, a vacation hold, a plan and a question a review served
    await service.practice.review_limit(REFS[0], "ada", 7)
    await service.practice.pause_reviews(REFS[0], "Zed", 10)
    await service.practice.plans.set(REFS[0], "émile", dt.date(2027, 1, 20), ("autograd",))
    served = await service.practice.practice_round(
        REFS[0], "ada", service.context.bank.questions[0], served=(clock.now().date(), "review")
    )
    assert served.round_id
    await service.close()
    # live games: one played to its podium (the space's live board), one running with its first question open
    platform = LiveRecorder(clock)
    live = bootstrap(store, make_bank(per_topic=4), clock, {"fake": platform}, rng=random.Random(2))
    await live.live.start(REFS[0], "ada", 3, None, 10)

    async def answer(card: QuestionCard) -> None:
        await live.answers.submit_answer(card.round_id, "ada", 0)
        clock.advance(seconds=2)
        await live.answers.submit_answer(card.round_id, "émile", 1)

    await play(live, clock, platform, answer)
    await live.live.start(REFS[2], "Zed", 3, None, 10)
    await live.live.run_due()
    await live.close()


async def dump(store: SqliteStore | PostgresStore) -> dict[str, list[tuple]]:
    """Every row of every table, as the store holds it."""
    out: dict[str, list[tuple]] = {name: [] for name in TABLE_NAMES}
    specs = [(name, [c for c, _ in columns], list(order)) for name, columns, order in TABLES]
    async for table, rows in store.export_rows(specs):
        out[table].extend(rows)
    return out


async def views(store: SqliteStore | PostgresStore) -> dict:
    """What the service reads: leaderboards, ranks, rounds, answers, streaks and stats."""
    seen: dict = {"channels": await store.list_channels()}
    seen["next recaps"] = [await store.get_next_recap(r) for r in REFS]
    rounds = []
    for round_id in range(1, 200):
        round_ = await store.get_round(round_id)
        if round_ is not None:
            rounds.append(round_)
            seen[("answers", round_id)] = await store.round_answers(round_id)
    seen["rounds"] = rounds
    seen["open"] = await store.open_daily_rounds()
    seen["reminder"] = await store.get_reminder("fake", REFS[2].space_id, "ada")
    seen["live"] = [(await store.get_live_game(g), await store.live_questions(g)) for g in (1, 2)]
    for space in ("space-1", "space-2"):
        dates = {r.local_date for r in rounds if r.local_date and r.ref.space_id == space}
        keys = {pk for d in dates for pk in period_keys(d)}
        for period, key in sorted(keys):
            seen[(space, period, key)] = await store.leaderboard("fake", space, Period(period), key, 1000)
            for user in USERS:
                seen[(space, period, key, user)] = await store.rank_of("fake", space, Period(period), key, user)
        for user in USERS:
            seen[(space, "streak", user)] = await store.streak("fake", space, user)
            stats = await store.user_topic_stats("fake", space, user)
            seen[(space, "stats", user)] = sorted(stats, key=lambda kt: (kt[1].topic, kt[0].value))
        seen[(space, "latest")] = await store.latest_revealed_date("fake", space)
        seen[(space, "counts")] = await store.question_counts("fake", space, RoundKind.DAILY)
        week = (dt.date(2026, 11, 24), dt.date(2026, 11, 30))
        seen[(space, "recap")] = await store.recap_rounds("fake", space, *week)
        seen[(space, "recap top")] = await store.recap_scorers("fake", space, *week, 10)
        seen[(space, "recap chan-1")] = await store.recap_scorers("fake", space, *week, 10, "chan-1")
        seen[(space, "season")] = await store.season_archive("fake", space, "2026-11")
        seen[(space, "teams")] = await store.list_teams("fake", space)
        seen[(space, "roster")] = await store.team_roster("fake", space)
        seen[(space, "live board")] = await store.live_board("fake", space, 100)
    return seen


@pytest.fixture(scope="module")
def history_file(tmp_path_factory) -> Path:
    """The history is made once per module (about 500 answers through the service); tests copy the file."""

    async def make(path: Path) -> None:
        store = SqliteStore(path)
        await store.open()
        await make_history(store)
        await store.close()

    path = tmp_path_factory.mktemp("history") / "source.db"
    asyncio.run(make(path))
    return path


@pytest.fixture
async def sqlite_source(history_file, tmp_path):
    path = tmp_path / "source.db"
    shutil.copyfile(history_file, path)
    store = SqliteStore(path)
    await store.open()
    yield store
    await store.close()


@pytest.fixture
async def pg_store():
    async with throwaway_database("studybot_test_copy") as url:
        store = PostgresStore(url)
        await store.open()
        yield store
        await store.close()


async def test_sqlite_to_postgres_and_back_loses_nothing(sqlite_source, pg_store, tmp_path):
    before = await sqlite_source.count_rows(TABLE_NAMES)
    assert all(before.values()), before  # every table has rows to copy
    assert await copy_data(sqlite_source, pg_store) == before
    assert await pg_store.count_rows(TABLE_NAMES) == before

    back = SqliteStore(tmp_path / "back.db")
    await back.open()
    try:
        assert await copy_data(pg_store, back) == before
        assert await dump(back) == await dump(sqlite_source)  # the same stored values, byte for byte
        expected = await views(sqlite_source)
        assert await views(pg_store) == expected
        assert await views(back) == expected
    finally:
        await back.close()


async def test_the_copy_keeps_working_on_postgres(sqlite_source, pg_store):
    await copy_data(sqlite_source, pg_store)
    top = await pg_store.pool.fetchval("SELECT MAX(id) FROM rounds")
    latest = await pg_store.latest_daily_round(REFS[0])
    clock = FixedClock(T0 + dt.timedelta(days=DAYS, minutes=30))  # 09:00: the copied round's promise
    service = bootstrap(pg_store, make_bank(per_topic=4), clock, {"fake": FakePlatform()}, rng=random.Random(2))
    before = await service.boards.leaderboard("fake", "space-1", Period.ALL, "ada")
    new = await service.posting.post_scheduled(REFS[0])  # reveals the copied open round of chan-1
    assert new is not None and new.id == top + 1  # the identity continues after the copied ids
    reports = await pg_store.reports("fake", "space-1", open_only=False)
    report = NewReport("fake", "space-1", "q9", "pytorch", "cy", ReportReason.OTHER, "", clock.now())
    status, report_id = await pg_store.add_report(report, since=T0, daily_limit=5)
    assert report_id == max(r.id for r in reports) + 1  # so does the reports' identity
    assert (await pg_store.get_round(latest.id)).revealed_at is not None
    for ref in REFS:  # the copied daily slots still hold
        copied = await pg_store.latest_daily_round(ref) if ref != REFS[0] else latest
        assert await pg_store.claim_daily_round(ref, copied.local_date, "x", "tensors", T0, None) is None
    await service.answers.submit_answer(new.id, "ada", 0)
    after = await service.boards.leaderboard("fake", "space-1", Period.ALL, "ada")
    assert sum(r.answered for r in after.rows) >= sum(r.answered for r in before.rows)
    await service.close()


async def test_a_non_empty_destination_is_refused(sqlite_source, pg_store, tmp_path):
    counts = await copy_data(sqlite_source, pg_store)
    with pytest.raises(CopyError, match="not empty"):
        await copy_data(sqlite_source, pg_store)
    assert await pg_store.count_rows(TABLE_NAMES) == counts
    other = SqliteStore(tmp_path / "other.db")
    await other.open()
    try:
        await copy_data(pg_store, other)
        with pytest.raises(CopyError, match="not empty"):
            await copy_data(pg_store, other)
        with pytest.raises(CopyError, match="same store"):
            await copy_data(other, other)
    finally:
        await other.close()


class FailingSource:
    """A source that breaks after its first batches (a lost connection, a full disk)."""

    def __init__(self, inner: SqliteStore | PostgresStore) -> None:
        self.inner = inner
        self.dialect = dialect_of(inner)

    async def count_rows(self, tables: Sequence[str]) -> dict[str, int]:
        return await self.inner.count_rows(tables)

    async def list_tables(self) -> list[str]:
        return await self.inner.list_tables()

    async def export_rows(self, tables, batch: int = 5000) -> AsyncIterator[tuple[str, list[tuple]]]:  # type: ignore[no-untyped-def]
        sent = 0
        async for table, rows in self.inner.export_rows(tables, 50):
            yield table, rows
            sent += 1
            if sent == 4:
                raise OSError("the source went away")


class MiscountingSource(FailingSource):
    async def count_rows(self, tables: Sequence[str]) -> dict[str, int]:
        counts = await self.inner.count_rows(tables)
        return {**counts, "answers": counts["answers"] + 1}  # a bot wrote an answer meanwhile

    async def export_rows(self, tables, batch: int = 5000) -> AsyncIterator[tuple[str, list[tuple]]]:  # type: ignore[no-untyped-def]
        async for item in self.inner.export_rows(tables, batch):
            yield item


async def test_a_failed_copy_leaves_the_destination_empty(sqlite_source, pg_store, tmp_path):
    with pytest.raises(CopyError, match="nothing was written: OSError: the source went away"):
        await copy_data(FailingSource(sqlite_source), pg_store)  # type: ignore[arg-type]
    assert set((await pg_store.count_rows(TABLE_NAMES)).values()) == {0}
    back = SqliteStore(tmp_path / "back.db")
    await back.open()
    try:
        await copy_data(sqlite_source, pg_store)
        with pytest.raises(CopyError, match="nothing was written: OSError: the source went away"):
            await copy_data(FailingSource(pg_store), back)  # type: ignore[arg-type]
        assert set((await back.count_rows(TABLE_NAMES)).values()) == {0}
    finally:
        await back.close()


async def test_counts_that_differ_at_the_end_raise(sqlite_source, pg_store):
    with pytest.raises(CopyError, match="answers: source"):
        await copy_data(MiscountingSource(sqlite_source), pg_store)  # type: ignore[arg-type]


async def test_the_command_copies_by_url(sqlite_source, tmp_path, capsys):
    source = f"sqlite:///{sqlite_source.path}"
    async with throwaway_database("studybot_test_cli") as url:
        assert await asyncio.to_thread(copy_main, ["--from", source, "--to", url]) == 0
        assert "row counts match" in capsys.readouterr().out
        assert await asyncio.to_thread(copy_main, ["--from", source, "--to", url]) == 1  # not empty any more
        assert "not empty" in capsys.readouterr().err
    missing = f"sqlite:///{tmp_path / 'missing.db'}"
    assert await asyncio.to_thread(copy_main, ["--from", missing, "--to", f"sqlite:///{tmp_path / 'x.db'}"]) == 1
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "missing.db").exists()


async def test_slack_installations_are_copied_still_sealed_and_open_with_the_same_key(
    sqlite_source, pg_store, tmp_path
):
    await copy_data(sqlite_source, pg_store)
    back = SqliteStore(tmp_path / "back.db")
    await back.open()
    try:
        await copy_data(pg_store, back)
        for team, token in SLACK_TOKENS.items():
            source = await sqlite_source.find_install("slack", team)
            assert source is not None
            assert await pg_store.find_install("slack", team) == source == await back.find_install("slack", team)
            assert Fernet(KEY).decrypt(source.token_secret.encode()).decode() == token
        copied = await back.find_install("slack", "T0COPY")
        assert copied is not None and copied.token_expires_at == T0 + dt.timedelta(hours=12)
        assert Fernet(KEY).decrypt((copied.refresh_secret or "").encode()).decode() == REFRESH
        # the renewal claimed in the source is still claimed: no process renews twice across the move
        assert not await back.claim_token_refresh("slack", "T0COPY", copied.token_secret, T0, T0)
    finally:
        await back.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("back.db*"))
    assert not [t for t in (*SLACK_TOKENS.values(), REFRESH) if t.encode() in raw], "copied as ciphertext"


async def test_a_table_the_copy_does_not_know_makes_it_refuse_and_write_nothing(
    sqlite_source, pg_store, tmp_path, capsys
):
    await sqlite_source.db.execute("CREATE TABLE team_badges (team TEXT PRIMARY KEY, badge TEXT)")
    await sqlite_source.db.execute("INSERT INTO team_badges VALUES ('red', 'gold')")
    await sqlite_source.db.commit()
    with pytest.raises(CopyError, match="team_badges"):
        await copy_data(sqlite_source, pg_store)
    assert set((await pg_store.count_rows(TABLE_NAMES)).values()) == {0}

    # the same for a table only the destination has (a newer studybot migrated it)
    await sqlite_source.db.execute("DROP TABLE team_badges")
    await sqlite_source.db.commit()
    await pg_store.pool.execute("CREATE TABLE team_badges (team TEXT PRIMARY KEY)")
    with pytest.raises(CopyError, match="team_badges"):
        await copy_data(sqlite_source, pg_store)
    assert set((await pg_store.count_rows(TABLE_NAMES)).values()) == {0}

    # the command says so and never claims that the counts match
    await sqlite_source.db.execute("CREATE TABLE team_badges (team TEXT PRIMARY KEY)")
    await sqlite_source.db.commit()
    dst = f"sqlite:///{tmp_path / 'dst.db'}"
    assert await asyncio.to_thread(copy_main, ["--from", f"sqlite:///{sqlite_source.path}", "--to", dst]) == 1
    out, err = capsys.readouterr()
    assert "row counts match" not in out and "team_badges" in err
