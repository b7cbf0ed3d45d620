"""The "check this question" flag and the lists of /quizadmin question-stats (issue 12)."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.kernel.values import Actor
from bot.packs.question_stats import QuestionStat, question_stats
from bot.settings import ConfigChange
from tests.support.packs import pack_csv, pack_rows
from tests.unit.test_packs import ADMIN, REF, T0, service_on
from tests.unit.test_packs import store as store  # noqa: F401  # the in-memory store fixture

A, B, C, D = range(4)


def stat(answers: tuple[int, int, int, int], answer: int = A, reports: int = 0) -> QuestionStat:
    return QuestionStat("q", 1, answers, answers[answer], answer, reports)


def test_the_flags_need_at_least_30_answers() -> None:
    assert not stat((1, 28, 0, 0)).check  # 29 answers, a wrong option far ahead: still too few
    assert stat((1, 29, 0, 0)).check  # 30 answers


def test_under_15_percent_right_is_flagged() -> None:
    low = stat((4, 10, 10, 10))
    assert low.answered == 34 and low.correct_share < 0.15 and low.check
    assert not stat((6, 10, 12, 12), answer=D).check  # 12 of 40 right (30%), no wrong option ahead


def test_a_wrong_option_chosen_more_than_the_right_one_is_flagged() -> None:
    assert stat((15, 16, 2, 2)).check  # 43% right, but B beats A
    assert not stat((16, 16, 2, 2)).check  # a tie is not "more than"
    assert not stat((20, 5, 5, 4)).check


def test_most_chosen_wrong_option_and_its_share() -> None:
    s = stat((5, 2, 3, 0), answer=B)
    assert s.common_wrong == ("A", 0.5)
    assert stat((4, 0, 0, 0)).common_wrong is None
    assert stat((4, 0, 0, 0)).line() == "q: asked 1, 4 answers, 100% correct, 0 reports"
    assert stat((1, 30, 0, 0), reports=2).line() == (
        "q: asked 1, 31 answers, 3% correct, most chosen wrong B (97%), 2 reports - check this question: "
        "under 20% right; B chosen more than the right one; dead distractors C, D (chosen under 3%)"
    )


def test_too_easy_too_hard_and_dead_distractors_are_flagged_with_their_reasons() -> None:
    easy = stat((39, 1, 0, 0))  # 40 answers, 97.5% right
    assert easy.reasons[0] == "over 95% right" and easy.check
    assert "over 95% right" not in stat((38, 1, 1, 0)).reasons  # 95% exactly is not over
    assert stat((7, 11, 11, 11)).reasons == ("under 20% right", "B, C, D chosen more than the right one")
    assert "under 20% right" not in stat((8, 8, 8, 16)).reasons  # 20% exactly is not under
    assert stat((20, 10, 9, 1)).dead_distractors == (D,)  # 1 of 40 is 2.5%
    assert stat((20, 10, 8, 2)).dead_distractors == ()  # 2 of 40 is 5%
    assert stat((20, 10, 9, 0), answer=B).dead_distractors == (D,)  # the right option is never a distractor
    assert stat((10, 5, 0, 0)).reasons == ()  # 15 answers: too few to say


async def test_the_ten_hardest_the_most_reported_and_the_flagged(store) -> None:
    service, _platform, clock = service_on(store)
    await service.catalog.import_pack(ADMIN, "fake", "space-1", "team", pack_csv(pack_rows(12)), "csv", now=T0)
    await service.channels.configure(ADMIN, REF, ConfigChange.parse([("packs", "team")]))
    rows = pack_rows(12)
    for day in range(12):  # each day's question is answered before the next one is posted
        clock.set(T0 + dt.timedelta(days=day))
        round_ = await service.posting.post_scheduled(REF)
        assert round_ is not None
        n = int(round_.question_id.rsplit("-", 1)[1])
        right = "ABCD".index(rows[n]["answer"])
        if n == 0:  # answer A: 31 people, 4 right and 27 on C
            choices = [A] * 4 + [C] * 27
        elif n == 1:  # answer B: 31 people, 16 right, 15 on A
            choices = [B] * 16 + [A] * 15
        elif n == 11:  # answer D: one wrong answer
            choices = [A]
        else:
            choices = [right]
        for i, choice in enumerate(choices):
            await service.answers.submit_answer(round_.id, f"u{i}", choice)
        assert await service.reveals.reveal_round(round_.id) is not None  # statistics count revealed rounds only

    async def reports(platform: str, space_id: str) -> dict[str, int]:
        return {"team/team-5": 3, "team/team-1": 1}

    service.reports.report_counts = reports  # type: ignore[method-assign]  # the reports hook, as member reports fill it
    card = await service.packs.question_stats(ADMIN, "fake", "space-1", "team")
    assert len(card.hardest) == 10
    assert [s.question_id for s in card.hardest[:3]] == ["team/team-11", "team/team-0", "team/team-1"]
    # team-0: 13% right; team-1 is right more often than A, but C and D were never chosen (dead distractors)
    assert [(s.question_id, s.reasons) for s in card.flagged] == [
        (
            "team/team-0",
            ("under 20% right", "C chosen more than the right one", "dead distractors B, D (chosen under 3%)"),
        ),
        ("team/team-1", ("dead distractors C, D (chosen under 3%)",)),
    ]
    assert [(s.question_id, s.reports) for s in card.reported] == [("team/team-5", 3), ("team/team-1", 1)]
    text = card.text
    assert "Most reported:\nteam/team-5: asked 1, 1 answer, 100% correct, 3 reports" in text
    assert "Check these:\nteam/team-0: asked 1, 31 answers, 13% correct, most chosen wrong C (87%), 0 reports" in text
    with pytest.raises(Exception, match="Only members who can manage"):
        await question_stats(service.catalog, Actor("m", False), "fake", "space-1")


async def test_todays_open_question_shows_in_no_statistic_before_its_reveal(store) -> None:
    """Issue 28: an admin who plays must not learn today's question, its answers or its share right early."""
    service, clock = await on_a_team_pack(store)
    yesterday = await service.posting.post_scheduled(REF)
    assert yesterday is not None
    await service.answers.submit_answer(yesterday.id, "ann", A)
    assert await service.reveals.reveal_round(yesterday.id) is not None
    clock.set(T0 + dt.timedelta(days=1))
    today = await service.posting.post_scheduled(REF)
    assert today is not None and today.question_id != yesterday.question_id
    for i, choice in enumerate([A, B, B, C]):
        await service.answers.submit_answer(today.id, f"u{i}", choice)

    text = (await service.packs.question_stats(ADMIN, "fake", "space-1")).text
    assert yesterday.question_id in text
    assert today.question_id not in text  # its id would name the hidden topic
    assert "4 answers" not in text
    view = await service.packs.question(ADMIN, "fake", "space-1", today.question_id)  # the dashboard's page
    assert view is not None and view.open_now and view.stat is None and view.pack == "team"
    cli_card = await question_stats(service.catalog, ADMIN, "fake", "space-1", "team")
    assert [s.question_id for s in cli_card.hardest] == [yesterday.question_id]

    assert await service.reveals.reveal_round(today.id) is not None
    after = await service.packs.question_stats(ADMIN, "fake", "space-1")
    assert [(s.question_id, s.answered) for s in after.hardest if s.question_id == today.question_id] == [
        (today.question_id, 4)
    ]
    view = await service.packs.question(ADMIN, "fake", "space-1", today.question_id)
    assert view is not None and not view.open_now and view.stat is not None and view.stat.answers == (1, 2, 1, 0)


async def on_a_team_pack(store):
    """The service with the channel drawing from a two-question pack of the space's own, and its clock."""
    service, _platform, clock = service_on(store)
    await service.catalog.import_pack(ADMIN, "fake", "space-1", "team", pack_csv(pack_rows(2)), "csv", now=T0)
    await service.channels.configure(ADMIN, REF, ConfigChange.parse([("packs", "team")]))
    return service, clock


async def test_a_questions_page_is_of_its_space_and_for_admins(store) -> None:
    service, _clock = await on_a_team_pack(store)
    today = await service.posting.post_scheduled(REF)
    assert today is not None
    bank = service.catalog.bank.questions[0]
    shipped = await service.packs.question(ADMIN, "fake", "space-1", bank.id)
    assert shipped is not None and shipped.pack == "pytorch" and shipped.question == bank and shipped.stat is None
    assert await service.packs.question(ADMIN, "fake", "space-2", today.question_id) is None  # another space's pack
    assert await service.packs.question(ADMIN, "fake", "space-1", "team/no-such") is None
    with pytest.raises(Exception, match="Only members who can manage"):
        await service.packs.question(Actor("m", False), "fake", "space-1", today.question_id)
