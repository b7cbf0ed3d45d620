"""Issue 31 on Discord, end to end on loopback: /review limit, pause and resume options (plain /review still
serves a review), /plan with a date and topics, and /stats with today's share and the streak's freezes."""

from __future__ import annotations

import datetime as dt
import re

from adapters.discord.app import StudyBotClient
from bot.kernel.values import NewAnswer
from bot.settings import ConfigChange
from tests.adapters.discord.conftest import START, Core, channel_ref
from tests.adapters.discord.fake_discord import FakeDiscord
from tests.support.learning import SETUP


async def plant_misses(core: Core, fake: FakeDiscord, n: int) -> None:
    """n practice misses of alice's, all due a day later."""
    ref = channel_ref(fake)
    for q in core.service.context.bank.questions[:n]:
        round_ = await core.store.create_practice_round(ref, fake.alice.id, q.id, q.topic, START)
        await core.store.add_answers([NewAnswer(round_.id, fake.alice.id, (q.answer + 1) % 4, False, START)], START)
        assert await core.store.reveal_round(round_.id, START, None)


async def test_review_limit_pause_and_resume_options_and_stats_speak_of_todays_share(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    await core.service.channels.configure(SETUP, channel_ref(fake), ConfigChange.of(timezone="UTC"))
    await plant_misses(core, fake, 6)
    core.clock.set(START + dt.timedelta(days=1, hours=1))

    limit = await fake.reply(await fake.slash(fake.alice, "review", limit=2))
    assert limit.ephemeral and "at most 2 a day" in limit.text and "/review" in limit.text
    stats = await fake.reply(await fake.slash(fake.alice, "stats"))
    memory = [f["value"] for f in stats.embeds[0]["fields"] if f["name"] == "Memory"][0]
    assert "Reviews: 2 today (at most 2 a day)" in memory and "6" not in memory.split("\n")[0]
    streak = [f["value"] for f in stats.embeds[0]["fields"] if f["name"] == "Streak"][0]
    assert streak == "0 now, best 0; freezes: 0 held, 0 used"

    reply = await fake.reply(await fake.slash(fake.alice, "review", count=10))
    assert reply.embeds[-1]["title"].startswith("Review 1/2")  # the limit, not the count
    for _ in range(2):
        round_ = await core.store.get_round(int(reply.custom_ids[0].split(":")[2]))
        question = core.service.context.bank.get(round_.question_id)  # type: ignore[union-attr]
        reply = await fake.reply(
            await fake.click(fake.alice, fake.messages[reply.message_id], reply.custom_ids[question.answer])  # type: ignore[union-attr]
        )
    assert "Review done: 2 of 2 right." in reply.text
    done = await fake.reply(await fake.slash(fake.alice, "review"))
    assert "That was today's 2 reviews" in done.text and "/review limit:N" in done.text

    paused = await fake.reply(await fake.slash(fake.alice, "review", pause=10))
    assert "paused until" in paused.text and "/review resume:True ends it sooner" in paused.text
    assert "paused until" in (await fake.reply(await fake.slash(fake.alice, "review"))).text
    resumed = await fake.reply(await fake.slash(fake.alice, "review", resume=True))
    assert resumed.text.startswith("Reviews resumed")

    both = await fake.reply(await fake.slash(fake.alice, "review", limit=3, pause=2))
    assert both.ephemeral and "one of limit, pause or resume" in both.text
    for options, said in (({"limit": 0}, "1 to 100"), ({"limit": 101}, "1 to 100"), ({"pause": 61}, "1 to 60 days")):
        bad = await fake.reply(await fake.slash(fake.alice, "review", **options))
        assert bad.ephemeral and said in bad.text, options
    prefs = await core.store.review_prefs("discord", fake.guild_id, fake.alice.id)
    assert (prefs.limit, prefs.paused_at) == (2, None)


async def test_plan_with_a_date_and_topics_shows_coverage_and_a_daily_target(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    made = await fake.reply(await fake.slash(fake.alice, "plan", date="2026-06-11", topics="autograd, tensors"))
    assert made.ephemeral and "Plan saved" in made.text
    assert "Coverage: 0 of" in made.text and "Daily target:" in made.text and "10 days left" in made.text
    shown = await fake.reply(await fake.slash(fake.alice, "plan"))
    assert "Plan for Thu 11 Jun 2026 (autograd, tensors)" in shown.text
    review = await fake.reply(await fake.slash(fake.alice, "review"))
    round_ = await core.store.get_round(int(review.custom_ids[0].split(":")[2]))
    assert round_ is not None and round_.topic in {"autograd", "tensors"}
    for options, said in (
        ({"date": "tomorrow"}, "'tomorrow' is not a date"),
        ({"date": "2026-05-01"}, "not after today"),
        ({"date": "2026-06-11", "topics": "cooking"}, "'cooking' is not a topic here"),
        ({"topics": "autograd"}, "Give the interview's date too"),
    ):
        bad = await fake.reply(await fake.slash(fake.alice, "plan", **options))
        assert bad.ephemeral and said in bad.text, options
    assert (await core.store.learner_plan("discord", fake.guild_id, fake.alice.id)).topics == ("autograd", "tensors")  # type: ignore[union-attr]
    off = await fake.reply(await fake.slash(fake.alice, "plan", date="off"))
    assert off.text == "Your plan is off."
    assert await core.store.learner_plan("discord", fake.guild_id, fake.alice.id) is None


async def test_stats_give_the_next_review_and_a_pause_as_discord_timestamps(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    await core.service.channels.configure(SETUP, channel_ref(fake), ConfigChange.of(timezone="Europe/Berlin"))
    await plant_misses(core, fake, 1)  # due a day after START: nothing today yet
    cards = await core.store.learner_cards("discord", fake.guild_id, fake.alice.id)
    stamp = int(min(c.due for c in cards).timestamp())
    stats = await fake.reply(await fake.slash(fake.alice, "stats"))
    memory = [f["value"] for f in stats.embeds[0]["fields"] if f["name"] == "Memory"][0]
    assert f"Reviews: 0 today (at most 20 a day); next <t:{stamp}:F> (<t:{stamp}:R>)" in memory  # each reader's zone
    await fake.reply(await fake.slash(fake.alice, "review", pause=3))
    stats = await fake.reply(await fake.slash(fake.alice, "stats"))
    memory = [f["value"] for f in stats.embeds[0]["fields"] if f["name"] == "Memory"][0]
    assert re.match(r"Reviews paused until <t:(\d+):F> \(<t:\1:R>\)", memory), memory
