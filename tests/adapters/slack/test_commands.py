"""Every `/quiz` subcommand through the real bolt app: signed slash-command requests in, ephemeral replies
(response_url) and Web API calls out, the SQLite store checked behind them."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.daily.values import PostFinish
from bot.kernel.errors import NotAllowed
from bot.kernel.values import Actor, ChannelRef, Difficulty, Period, RoundKind
from bot.settings import ConfigChange
from tests.adapters.slack.harness import ADMIN, ANN, BOB, CHANNEL, OWNER, SlackHarness, buttons, texts


async def test_help_and_unknown_subcommand_get_the_help_text(slack: SlackHarness) -> None:
    help_reply = await slack.reply(await slack.command("help"))
    assert help_reply.args["response_type"] == "ephemeral"
    assert "/quiz leaderboard [teams] [week|month|all]" in texts(help_reply)
    assert ":one: :two: :three: :four:" in texts(help_reply)

    unknown = await slack.reply(await slack.command("frobnicate now"))
    assert unknown.args["response_type"] == "ephemeral"
    assert "'frobnicate' is not a /quiz command" in texts(unknown)
    assert "/quiz answer B" in texts(unknown)


async def test_bare_quiz_and_practice_topic_give_a_private_practice_question(slack: SlackHarness) -> None:
    reply = await slack.reply(await slack.command(""))
    assert reply.args["response_type"] == "ephemeral"
    [practice] = [r for r in await _rounds(slack) if r.kind is RoundKind.PRACTICE]
    assert practice.user_id == ANN
    assert buttons(reply) == [f"studybot.answer.{practice.id}.{i}" for i in range(4)] + [
        f"studybot.unsure.{practice.id}.{i}"
        for i in range(4)  # the "not sure" row
    ]
    assert "never counts toward leaderboards" in texts(reply)

    topical = await slack.reply(await slack.command("practice autograd"))
    newest = max(await _rounds(slack), key=lambda r: r.id)
    assert newest.topic == "autograd" and newest.kind is RoundKind.PRACTICE
    assert buttons(topical)[0] == f"studybot.answer.{newest.id}.0"
    assert not slack.stub.calls_to("chat.postMessage"), "practice is never posted in the channel"

    bad = await slack.reply(await slack.command("practice astrology"))
    assert "'astrology' is not a topic" in texts(bad)


async def test_answer_records_the_daily_answer_and_refuses_a_bad_choice(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    ok = await slack.reply(await slack.command("answer b"))
    assert "Your answer B is locked in" in texts(ok)
    [answer] = await slack.store.round_answers(round_.id)
    assert (answer.user_id, answer.choice) == (ANN, 1)

    bad = await slack.reply(await slack.command("answer E", user=BOB))
    assert texts(bad).startswith("'E' is not a choice: answer with A, B, C or D.")
    assert len(await slack.store.round_answers(round_.id)) == 1


async def test_answer_without_an_open_question_says_so(slack: SlackHarness) -> None:
    reply = await slack.reply(await slack.command("answer A"))
    assert "no open daily question in this channel" in texts(reply)


async def test_leaderboard_and_stats(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    question = slack.service.context.bank.get(round_.question_id)
    assert question is not None
    await slack.service.answers.submit_answer(round_.id, ANN, question.answer)
    await slack.service.reveals.reveal_round(round_.id)

    board = await slack.reply(await slack.command("leaderboard all"))
    assert "Leaderboard: all time" in texts(board)
    assert f"1. <@{ANN}>" in texts(board)
    week = await slack.reply(await slack.command("leaderboard"))
    assert "Leaderboard: week 2025-W10" in texts(week)
    bad = await slack.reply(await slack.command("leaderboard decade"))
    assert "'decade' is not a period" in texts(bad)

    mine = await slack.reply(await slack.command("stats"))
    assert f"<@{ANN}>: answered 1 (1 daily, 0 practice), right 1 (100%)" in texts(mine)
    theirs = await slack.reply(await slack.command(f"stats <@{BOB}|bob>", user=ANN))
    assert f"<@{BOB}>: answered 0" in texts(theirs)
    nobody = await slack.reply(await slack.command("stats bob"))
    assert "'bob' is not a person" in texts(nobody)


async def test_config_set_by_an_admin_saves_the_schedule_and_joins_the_channel(slack: SlackHarness) -> None:
    reply = await slack.reply(await slack.command("config time 09:30 tz europe/berlin days mon-fri", user=ADMIN))
    assert "time 09:30 tz Europe/Berlin days mon-fri" in texts(reply)
    cfg = await slack.store.get_channel(slack.ref)
    assert cfg is not None
    assert (cfg.post_time, cfg.timezone, cfg.weekdays, cfg.paused) == (
        dt.time(9, 30),
        "Europe/Berlin",
        frozenset(range(5)),
        False,
    )
    [join] = slack.stub.calls_to("conversations.join")
    assert join.args["channel"] == CHANNEL


async def test_config_show_pause_resume_filters_and_reactions(slack: SlackHarness) -> None:
    show = await slack.reply(await slack.command("config show"))
    assert f"Quiz settings for <#{CHANNEL}>" in texts(show)

    await slack.reply(await slack.command("config pause", user=OWNER))
    assert (await slack.service.channels.channel_config(slack.ref)).paused is True
    resumed = await slack.reply(await slack.command("config resume", user=ADMIN))
    assert "next post" in texts(resumed)
    assert (await slack.service.channels.channel_config(slack.ref)).paused is False

    await slack.reply(await slack.command("config filters topics autograd difficulty easy,medium", user=ADMIN))
    cfg = await slack.service.channels.channel_config(slack.ref)
    assert cfg.topics == frozenset({"autograd"})
    assert cfg.difficulties == frozenset({Difficulty.EASY, Difficulty.MEDIUM})

    await slack.reply(await slack.command("config reactions off", user=ADMIN))
    assert (await slack.service.channels.channel_config(slack.ref)).reactions is False


async def test_config_channel_names_another_channel(slack: SlackHarness) -> None:
    reply = await slack.reply(await slack.command("config channel <#C0OTHER|pytorch> time 07:45", user=ADMIN))
    assert "Quiz settings for <#C0OTHER>" in texts(reply)
    other = await slack.store.get_channel(ChannelRef("slack", slack.ref.space_id, "C0OTHER"))
    assert other is not None and other.post_time == dt.time(7, 45)
    assert await slack.store.get_channel(slack.ref) is None

    bad = await slack.reply(await slack.command("config channel pytorch time 07:45", user=ADMIN))
    assert "'pytorch' is not a channel" in texts(bad)


async def test_bad_times_timezones_weekdays_get_specific_messages(slack: SlackHarness) -> None:
    cases = {
        "config time 25:00": "'25:00' is not a time: use 24-hour HH:MM",
        "config tz Mars/Olympus": "'Mars/Olympus' is not an IANA timezone",
        "config days funday": "'funday' is not a list of days",
        "config window 99h": "'99h' is not an answer window",
        "config colour blue": "'colour' is not a setting",
    }
    for text, message in cases.items():
        reply = await slack.reply(await slack.command(text, user=ADMIN))
        assert reply.args["response_type"] == "ephemeral"
        assert message in texts(reply), text
    assert await slack.store.get_channel(slack.ref) is None, "nothing is saved from a bad setting"


async def test_non_admin_config_is_refused_and_changes_nothing(slack: SlackHarness) -> None:
    for text in ("config time 10:00", "config pause", "config post-now", "config reveal"):
        reply = await slack.reply(await slack.command(text, user=ANN))
        assert reply.args["response_type"] == "ephemeral"
        assert "Only members who can manage this server or workspace" in texts(reply), text
    assert await slack.store.get_channel(slack.ref) is None
    assert not slack.stub.calls_to("chat.postMessage")
    assert not slack.stub.calls_to("conversations.join")
    assert [c.args["user"] for c in slack.stub.calls_to("users.info")] == [ANN], "rights are looked up (cached)"


async def test_allow_list_makes_a_member_an_admin(slack_factory) -> None:  # type: ignore[no-untyped-def]
    slack = await slack_factory(admins=frozenset({ANN}))
    reply = await slack.reply(await slack.command("config time 10:00", user=ANN))
    assert "time 10:00" in texts(reply)
    assert (await slack.service.channels.channel_config(slack.ref)).post_time == dt.time(10, 0)
    assert not slack.stub.calls_to("users.info"), "the allow-list needs no lookup"


async def test_post_now_posts_the_daily_question_with_buttons(slack: SlackHarness) -> None:
    await slack.service.channels.configure(Actor(ADMIN, True), slack.ref, ConfigChange.of(reactions=True))
    reply = await slack.reply(await slack.command("config post-now", user=ADMIN))
    assert f"Posted today's question in <#{CHANNEL}>" in texts(reply)
    [post] = slack.stub.calls_to("chat.postMessage")
    [round_] = await slack.store.open_daily_rounds(slack.ref)
    assert post.args["channel"] == CHANNEL
    assert buttons(post) == [f"studybot.answer.{round_.id}.{i}" for i in range(4)]
    assert ":one: *A.*" in texts(post) and "The answer is revealed" in texts(post)
    assert round_.closes_at is not None  # each member reads the reveal time in their own timezone
    stamp = int(round_.closes_at.timestamp())
    assert f"The answer is revealed <!date^{stamp}^{{date_short_pretty}} at {{time}}|" in texts(post)
    assert round_.message_id == f"{CHANNEL}:1700000000.000001"

    again = await slack.reply(await slack.command("config post-now", user=ADMIN))
    assert "already posted" in texts(again)
    assert len(slack.stub.calls_to("chat.postMessage")) == 1


async def test_reveal_command_updates_the_question_and_posts_the_result(slack: SlackHarness) -> None:
    round_ = await slack.daily_round()
    reply = await slack.reply(await slack.command("config reveal", user=ADMIN))
    assert "Revealed: Answer:" in texts(reply)
    assert (await slack.store.get_round(round_.id)).revealed_at is not None  # type: ignore[union-attr]
    assert len(slack.stub.calls_to("chat.update")) == 1
    board = await slack.service.boards.leaderboard("slack", slack.ref.space_id, Period.ALL)
    assert board.rows == ()


async def _rounds(slack: SlackHarness) -> list:  # type: ignore[type-arg]
    out = []
    for i in range(1, 50):
        r = await slack.store.get_round(i)
        if r is None:
            break
        out.append(r)
    return out


async def test_config_of_another_workspace_s_channel_is_refused_and_changes_nothing(slack: SlackHarness) -> None:
    # issue 10, observation 7: `/quiz config channel C0THEIRS time 03:00` from workspace 1
    theirs = ChannelRef("slack", "T0THEIRS", "C0THEIRS")
    await slack.service.channels.configure(
        Actor("U0THEIRADMIN", True), theirs, ConfigChange.of(post_time=dt.time(9, 0))
    )
    reply = await slack.reply(await slack.command("config channel <#C0THEIRS|quiz> time 03:00", user=ADMIN))
    assert "another workspace" in texts(reply)
    kept = await slack.store.get_channel(theirs)
    assert kept is not None and kept.ref.space_id == "T0THEIRS" and kept.post_time == dt.time(9, 0)
    with pytest.raises(NotAllowed):  # nor read from here
        await slack.service.channels.show_config(ChannelRef("slack", slack.ref.space_id, "C0THEIRS"))


async def test_a_click_naming_another_workspace_s_round_is_refused(slack: SlackHarness) -> None:
    theirs = ChannelRef("slack", "T0THEIRS", "C0THEIRS")
    at = slack.service.context.clock.now()
    round_ = await slack.store.claim_daily_round(theirs, at.date(), "q", "tensors", at, at + dt.timedelta(days=1))
    await slack.store.finish_posts([PostFinish(round_.id, "sent", message_id="C0THEIRS:1.2")])
    reply = await slack.reply(await slack.click(round_.id, 1))
    assert reply.args["response_type"] == "ephemeral" and "not known here" in reply.args["text"]
    assert await slack.store.round_answers(round_.id) == []


async def test_show_answers_with_the_settings_as_config_show_does(slack: SlackHarness) -> None:
    await slack.service.channels.configure(Actor(ADMIN, True), slack.ref, ConfigChange.parse([("time", "07:30")]))
    shown = texts(await slack.reply(await slack.command("show")))
    assert f"Quiz settings for <#{CHANNEL}>" in shown and "07:30" in shown
    assert "/quiz leaderboard [teams] [week|month|all]" not in shown, "the settings, not the help"
    assert shown == texts(await slack.reply(await slack.command("config show")))
