"""Idempotent daily sends on Slack (issue 30): every post and reveal carries message metadata naming its round
and kind; a send whose outcome is unknown (the process died while the call was at Slack, or its answer was
lost) is settled by reading the channel's history since the intent and adopting the message found; only when
there is none is it sent."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from typing import Any

from adapters.slack.platform import EVENT_TYPE
from bot.app.scheduler import DailyScheduler
from bot.kernel.platform import IdempotentSends
from bot.kernel.values import Actor, Round
from tests.adapters.slack.harness import ADMIN, CHANNEL, SlackHarness


async def configure(slack: SlackHarness) -> None:
    slack.stub.clock = lambda: slack.clock.now().timestamp()  # Slack's and the bot's clocks agree
    await slack.service.channels.configure(Actor(ADMIN, True), slack.ref)


async def killed_while_held(hold: Any, work: Any) -> None:
    """Run `work` until its call is at the stub (done there, its answer held), then stop it there, as a
    kill -9 would: nothing after the call runs, the claim stays in the store."""
    task = asyncio.ensure_future(work)
    await asyncio.wait_for(hold.arrived.wait(), 5)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    hold.release()


async def latest(slack: SlackHarness) -> Round:
    round_ = await slack.store.latest_daily_round(slack.ref)
    assert round_ is not None
    return round_


async def test_posts_and_reveals_carry_metadata_naming_their_round_and_kind(slack: SlackHarness) -> None:
    await configure(slack)
    round_ = await slack.service.posting.post_scheduled(slack.ref)
    assert round_ is not None
    await slack.service.reveals.reveal_round(round_.id)
    posts = [c for c in slack.stub.calls_to("chat.postMessage") if not c.args.get("thread_ts")]
    assert [c.args["metadata"] for c in posts] == [
        {"event_type": EVENT_TYPE, "event_payload": {"round_id": round_.id, "kind": "question"}},
        {"event_type": EVENT_TYPE, "event_payload": {"round_id": round_.id, "kind": "reveal"}},
    ]
    assert isinstance(slack.service.context.platforms["slack"], IdempotentSends)


async def test_a_post_killed_while_at_slack_is_found_in_the_history_and_not_sent_again(slack: SlackHarness) -> None:
    await configure(slack)
    hold = slack.stub.hold_next("chat.postMessage")
    await killed_while_held(hold, slack.service.posting.post_scheduled(slack.ref))
    round_ = await latest(slack)
    assert round_.post_state == "sending" and round_.message_id is None
    [made] = slack.stub.round_messages(CHANNEL, round_.id, "question")
    slack.clock.advance(minutes=3)  # the dead process's lease runs out
    await DailyScheduler(slack.service, slack.clock).tick()
    assert slack.stub.round_messages(CHANNEL, round_.id, "question") == [made]
    got = await latest(slack)
    assert got.post_state == "sent" and got.message_id == f"{CHANNEL}:{made['ts']}"
    [history] = slack.stub.calls_to("conversations.history")
    assert history.args["include_all_metadata"] in ("1", "true", True)
    assert float(history.args["oldest"]) <= round_.opened_at.timestamp()


async def test_a_reveal_killed_while_at_slack_is_found_and_not_posted_again(slack: SlackHarness) -> None:
    await configure(slack)
    round_ = await slack.service.posting.post_scheduled(slack.ref)
    assert round_ is not None
    hold = slack.stub.hold_next("chat.postMessage", when=lambda a: a["metadata"]["event_payload"]["kind"] == "reveal")
    await killed_while_held(hold, slack.service.reveals.reveal_round(round_.id))
    assert len(slack.stub.round_messages(CHANNEL, round_.id, "reveal")) == 1
    slack.clock.advance(minutes=3)
    await DailyScheduler(slack.service, slack.clock).tick()
    assert len(slack.stub.round_messages(CHANNEL, round_.id, "reveal")) == 1
    assert len(slack.stub.round_messages(CHANNEL, round_.id, "question")) == 1


async def test_a_post_whose_answer_was_lost_is_adopted(slack: SlackHarness) -> None:
    await configure(slack)
    slack.stub.fail_next("chat.postMessage", status=500, error="internal_error", retry_after=None, after=True)
    await slack.service.posting.post_scheduled(slack.ref)
    round_ = await latest(slack)
    assert round_.post_state == "failed"
    [made] = slack.stub.round_messages(CHANNEL, round_.id, "question")
    slack.clock.advance(seconds=10)
    await DailyScheduler(slack.service, slack.clock).tick()
    assert slack.stub.round_messages(CHANNEL, round_.id, "question") == [made]
    assert (await latest(slack)).message_id == f"{CHANNEL}:{made['ts']}"


async def test_a_post_that_failed_before_slack_is_sent_after_looking(slack: SlackHarness) -> None:
    await configure(slack)
    slack.stub.fail_next("chat.postMessage", status=500, error="internal_error", retry_after=None)
    await slack.service.posting.post_scheduled(slack.ref)
    round_ = await latest(slack)
    assert round_.post_state == "failed" and slack.stub.round_messages(CHANNEL, round_.id, "question") == []
    slack.clock.advance(seconds=10)
    await DailyScheduler(slack.service, slack.clock).tick()
    assert len(slack.stub.calls_to("conversations.history")) == 1  # asked first: it might have gone out
    [made] = slack.stub.round_messages(CHANNEL, round_.id, "question")  # none was found: sent
    assert (await latest(slack)).message_id == f"{CHANNEL}:{made['ts']}"


async def test_without_the_history_scopes_an_unknown_send_is_sent_again_and_logged(slack: SlackHarness, caplog) -> None:
    await configure(slack)
    hold = slack.stub.hold_next("chat.postMessage")
    await killed_while_held(hold, slack.service.posting.post_scheduled(slack.ref))
    round_ = await latest(slack)
    slack.clock.advance(minutes=3)
    slack.stub.fail_next("conversations.history", status=200, error="missing_scope", retry_after=None)
    with caplog.at_level(logging.WARNING):
        await DailyScheduler(slack.service, slack.clock).tick()
    assert "cannot ask slack whether its question went out (Slack missing_scope" in caplog.text
    assert len(slack.stub.round_messages(CHANNEL, round_.id, "question")) == 2  # its one duplicate
    assert (await latest(slack)).post_state == "sent"


async def test_reading_back_takes_only_that_round_and_kind_since_the_intent_across_pages(slack: SlackHarness) -> None:
    await configure(slack)
    platform = slack.service.context.platforms["slack"]
    assert isinstance(platform, IdempotentSends)

    def post(round_id: int, kind: str) -> dict[str, Any]:
        ts = f"{int(slack.clock.now().timestamp())}.{len(slack.stub.messages[CHANNEL]) + 1:06d}"
        message = {"type": "message", "ts": ts, "text": "x", "user": "U0BOT"}
        if round_id:
            message["metadata"] = {"event_type": EVENT_TYPE, "event_payload": {"round_id": round_id, "kind": kind}}
        slack.stub.messages[CHANNEL].append(message)
        return message

    old = post(7, "question")
    slack.clock.advance(hours=1)
    since = slack.clock.now()
    mine = post(7, "question")
    post(7, "reveal")
    post(8, "question")
    for _ in range(450):  # three pages of chatter after it
        post(0, "")
    assert await platform.find_sent(slack.ref, 7, "question", since) == f"{CHANNEL}:{mine['ts']}"
    assert len(slack.stub.calls_to("conversations.history")) == 3
    assert await platform.find_sent(slack.ref, 9, "question", since) is None
    slack.stub.messages[CHANNEL].remove(mine)
    assert await platform.find_sent(slack.ref, 7, "question", since) is None  # the older one is before the intent
    assert await platform.find_sent(slack.ref, 7, "question", since - dt.timedelta(hours=2)) == f"{CHANNEL}:{old['ts']}"
