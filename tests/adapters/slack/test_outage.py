"""Issue 30 item 2 on Slack: PostgreSQL made unreachable (a TCP proxy on loopback, cut and restored; the
machine's server keeps running). Every request is acknowledged at once and the person who acted gets the private
"try again"; the replay guard neither raises (no HTTP 500) nor lets a replay through; and the log, library
loggers included, says once that the database is down and once that it is back."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.slack.suggestions import CALLBACK, suggest_view
from bot.app import retry_logs
from bot.app.scheduler import DailyScheduler
from bot.kernel.outage import STORE_DOWN
from bot.store.postgres import PostgresStore
from tests.adapters.slack.harness import ADMIN, ANN, BOB, FORM, SECRET, SlackHarness
from tests.adapters.slack.signing import signed_headers
from tests.integration.test_postgres_store import throwaway_database
from tests.support.loglines import printed_log
from tests.support.pgproxy import PgProxy

ACK_WITHIN = 3.0  # Slack's limit for the acknowledgement


@pytest.fixture
async def proxy() -> AsyncIterator[PgProxy]:
    async with throwaway_database("studybot_slack_outage") as url:
        proxy = await PgProxy(url).start()
        yield proxy
        await proxy.close()


@pytest.fixture
async def slack(tmp_path: Path, proxy: PgProxy) -> AsyncIterator[SlackHarness]:
    store = PostgresStore(proxy.url, max_size=4)
    await store.open()
    harness = await SlackHarness.start(tmp_path, store=store)
    harness.service.context.outage.probe_every = 0.1
    yield harness
    await harness.close()


async def post_raw(slack: SlackHarness, body: str, headers: dict[str, str]) -> tuple[int, str, float]:
    began = time.monotonic()
    async with slack.session.post(slack.url, data=body.encode(), headers=headers) as resp:
        return resp.status, await resp.text(), time.monotonic() - began


def private_note(call: object) -> bool:
    args = getattr(call, "args", {})
    return args.get("text") == STORE_DOWN and args.get("response_type", "ephemeral") == "ephemeral"


async def test_while_the_database_is_down_every_request_is_acknowledged_with_a_private_try_again(
    slack: SlackHarness, proxy: PgProxy
) -> None:
    retry_logs.install()  # as `studybot` does: the libraries' retry records, one line or none
    round_ = await slack.daily_round()
    before = await slack.click(round_.id, 1, user=BOB)  # handled before the outage: its signature is kept
    assert "locked in" in (await slack.reply(before)).args["text"]
    replay_body, _ = slack.click_body(round_.id, 3, user=BOB)
    replay_headers = signed_headers(SECRET, replay_body, FORM)
    assert (await post_raw(slack, replay_body, replay_headers))[0] == 200  # BOB's second click: "already answered"

    with printed_log() as printed:
        await proxy.cut()
        scheduler = DailyScheduler(slack.service, slack.clock)
        await scheduler.tick()  # the tick fails too: told once with the rest, never per tick

        # a slash command: the acknowledgement itself is the private note, within Slack's 3 s
        for _ in range(10):
            sent = await slack.command("leaderboard week")
            assert sent.status == 200 and sent.seconds < ACK_WITHIN, sent
            assert json.loads(sent.text) == {"response_type": "ephemeral", "text": STORE_DOWN}

        # an answer button: acknowledged at once, the note through its response_url; nothing recorded
        click = await slack.click(round_.id, 2, user=ANN)
        assert click.status == 200 and click.seconds < ACK_WITHIN
        assert private_note(await slack.reply(click))

        # a replay of a request handled before the outage: refused (the guard cannot tell), never run, no 500
        status, _, seconds = await post_raw(slack, replay_body, replay_headers)
        assert status == 200 and seconds < ACK_WITHIN

        # a reaction answer: acknowledged, an ephemeral note to the member in the channel
        reacted = await slack.react(round_, "three", user=ADMIN, event_id="Ev0DOWN1")
        assert reacted.status == 200 and reacted.seconds < ACK_WITHIN
        notes = await slack.stub.wait_for("chat.postEphemeral")
        assert [(c.args["user"], c.args["text"]) for c in notes] == [(ADMIN, STORE_DOWN)]

        # a form: it stays open with the note on its first field
        view = suggest_view(slack.ref.channel_id)
        submitted = await slack.submit_view(CALLBACK, {}, blocks=view["blocks"])
        assert submitted.status == 200
        first_field = next(b["block_id"] for b in view["blocks"] if b["type"] == "input")
        assert json.loads(submitted.text) == {"response_action": "errors", "errors": {first_field: STORE_DOWN}}

        await scheduler.tick()
        await asyncio.sleep(0.3)  # several probes fail meanwhile: each is silent
        assert slack.service.context.outage.down

        await proxy.restore()
        for _ in range(100):  # the probe notices within a tenth of a second
            if not slack.service.context.outage.down:
                break
            await asyncio.sleep(0.05)
        assert not slack.service.context.outage.down

        again = await slack.click(round_.id, 2, user=ANN)
        assert "locked in" in (await slack.reply(again)).args["text"]  # recorded again
        assert (await post_raw(slack, replay_body, replay_headers))[0] == 401  # the replay guard is back
        await scheduler.tick()

    answers = {a.user_id: a.choice for a in await slack.store.round_answers(round_.id)}
    assert answers == {BOB: 1, ANN: 2}  # nothing from the outage was recorded, BOB's first answer stands
    assert len([r for r in slack.stub.responses() if r.method == f"respond:{before.reply_to}"]) == 1

    lines = [line for _, lines in printed.printed for line in lines]
    loud = [(r.name, r.levelname, r.getMessage()) for r, _ in printed.printed if r.levelno >= logging.WARNING]
    assert [(name, level) for name, level, _ in loud] == [
        ("bot.kernel.outage", "ERROR"),
        ("bot.kernel.outage", "WARNING"),
    ], loud
    assert loud[0][2].startswith("the database is unavailable (")
    assert loud[1][2].startswith("the database is back after ")
    assert not [line for line in lines if "Traceback" in line]
    assert len([line for line in lines if "database" in line]) == 2, lines


async def test_a_store_that_does_not_answer_still_gets_slack_its_ack_in_time(
    slack: SlackHarness, proxy: PgProxy
) -> None:
    """A replay check the database never answers (a hung connection, not a refused one) is given up after
    GUARD_WAIT (2 s): the command is acknowledged within Slack's 3 s with the private note, and later
    requests are refused at once while the store is known to be down."""
    from adapters.slack.signature import GUARD_WAIT

    await slack.daily_round()
    store = slack.store
    real = store.remember_once
    release = asyncio.Event()

    async def hangs(*args: object, **kwargs: object) -> bool:
        await release.wait()
        return await real(*args, **kwargs)  # type: ignore[arg-type]

    store.remember_once = hangs  # type: ignore[method-assign]
    slack.service.context.outage.probe_wait = 0.2
    try:
        first = await slack.command("leaderboard week")
        assert first.status == 200 and GUARD_WAIT <= first.seconds < ACK_WITHIN, first
        assert json.loads(first.text)["text"] == STORE_DOWN
        later = await slack.command("leaderboard week")
        assert later.status == 200 and later.seconds < 0.5 and json.loads(later.text)["text"] == STORE_DOWN
    finally:
        store.remember_once = real  # type: ignore[method-assign]
        release.set()
    for _ in range(100):
        if not slack.service.context.outage.down:
            break
        await asyncio.sleep(0.05)
    assert not slack.service.context.outage.down
    assert (await slack.command("leaderboard week")).text == ""  # run again: its reply goes to the response_url


async def test_a_store_failing_under_a_listener_gets_the_private_note_too(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The replay check went through, then the database failed under the listener (or Socket Mode, which has no
    replay guard): the command's reply and the button's note are the private "try again", the outage is told
    once, and a bug is still a bug (its own ERROR with a traceback, the generic apology)."""
    import sqlite3

    slack = await SlackHarness.start(tmp_path)
    try:
        round_ = await slack.daily_round()
        store = slack.store
        real_board, real_add = store.board_and_rank, store.add_answers

        async def io_error(*args: object, **kwargs: object) -> object:
            raise sqlite3.OperationalError("disk I/O error")

        outage = slack.service.context.outage
        outage.probe_every = 0.1
        store.add_answers = io_error  # type: ignore[method-assign]
        caplog.set_level(logging.INFO)
        assert private_note(await slack.reply(await slack.click(round_.id, 1)))  # the answer batch failed
        refused = await slack.command("leaderboard week")  # known to be down now: refused at the door
        assert json.loads(refused.text) == {"response_type": "ephemeral", "text": STORE_DOWN}
        store.add_answers = real_add  # type: ignore[method-assign]
        for _ in range(100):
            if not outage.down:
                break
            await asyncio.sleep(0.05)
        assert "locked in" in (await slack.reply(await slack.click(round_.id, 1))).args["text"]

        store.board_and_rank = io_error  # type: ignore[method-assign]
        assert (await slack.reply(await slack.command("leaderboard week"))).args["text"] == STORE_DOWN  # /quiz
        store.board_and_rank = real_board  # type: ignore[method-assign]
        for _ in range(100):
            if not outage.down:
                break
            await asyncio.sleep(0.05)

        async def bug(*args: object, **kwargs: object) -> object:
            raise KeyError("a bug")

        store.board_and_rank = bug  # type: ignore[method-assign]
        assert "Something went wrong" in (await slack.reply(await slack.command("leaderboard week"))).args["text"]
        store.board_and_rank = real_board  # type: ignore[method-assign]
    finally:
        await slack.close()
    loud = [(r.name, r.levelname, bool(r.exc_info)) for r in caplog.records if r.levelno >= logging.WARNING]
    assert loud == [
        *[("bot.kernel.outage", "ERROR", False), ("bot.kernel.outage", "WARNING", False)] * 2,  # two outages
        ("adapters.slack.commands", "ERROR", True),  # the bug
    ], loud
