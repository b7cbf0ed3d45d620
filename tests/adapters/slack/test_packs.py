"""Question packs on Slack (issue 12): /quiz packs, /quiz config packs, a channel posting from its pack."""

from __future__ import annotations

import datetime as dt

from bot.kernel.values import Actor
from tests.adapters.slack.harness import ADMIN, ANN, SlackHarness, texts
from tests.support.packs import pack_csv


async def test_a_channel_switched_to_a_pack_posts_from_it(slack: SlackHarness) -> None:
    now = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
    await slack.service.catalog.import_pack(
        Actor("admin", is_admin=True), "slack", slack.ref.space_id, "team", pack_csv(), "csv", now=now
    )
    refused = await slack.reply(await slack.command("config packs team", user=ANN))
    assert "Only members who can manage" in texts(refused)
    saved = await slack.reply(await slack.command("config packs team", user=ADMIN))
    assert "packs team" in texts(saved)
    listed = await slack.reply(await slack.command("packs", user=ANN))
    assert "Question packs" in texts(listed) and "team: 30 questions (this channel)" in texts(listed)
    round_ = await slack.service.posting.post_scheduled(slack.ref)
    assert round_ is not None and round_.question_id.startswith("team/team-")
    [post] = slack.stub.calls_to("chat.postMessage")
    assert "Which number does the team call question" in str(post.args)


async def test_question_stats_for_admins_only(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    await slack.service.answers.submit_answer(round_.id, ANN, 0)
    refused = await slack.reply(await slack.command("question-stats", user=ANN))
    assert "Only members who can manage" in texts(refused)
    hidden = await slack.reply(await slack.command("question-stats", user=ADMIN))
    assert "Question stats (every pack)" in texts(hidden) and round_.question_id not in texts(hidden)  # still open
    assert await slack.service.reveals.reveal_round(round_.id) is not None
    shown = await slack.reply(await slack.command("question-stats", user=ADMIN))
    assert "Question stats (every pack)" in texts(shown) and f"{round_.question_id}: asked 1, 1 answer," in texts(shown)
