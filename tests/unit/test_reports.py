"""Reports (issue 12, the feedback loop): members report a question, 5 a day; 3 open reports hold it from
selection in the space (daily, practice, review) until an admin keeps, holds or edits; admins only."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from bot.app.bootstrap import bootstrap
from bot.features import Features
from bot.kernel.errors import BadSetting, NotAllowed, ReportRefused, UnknownRound
from bot.kernel.values import Actor, ChannelConfig, ChannelRef, RoundKind
from bot.practice.cards import ReviewEmpty
from bot.reports.service import HOLD_AT, MAX_REPORT_TEXT, REPORT_DAILY_LIMIT, parse_report_words
from bot.reports.values import ReportReason
from bot.store.sqlite import SqliteStore
from tests.support.fakes import FakePlatform, FixedClock, make_bank, store_of
from tests.support.memory_store import InMemoryStore
from tests.support.packs import pack_csv

T0 = dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.UTC)
ADMIN = Actor("admin", is_admin=True)
MEMBER = Actor("member")
REF = ChannelRef("fake", "space-1", "chan-1")
WRONG = ReportReason.WRONG


@pytest.fixture
async def env():
    store = InMemoryStore()
    await store.open()
    clock = FixedClock(T0)
    service = bootstrap(store, make_bank(per_topic=2), clock, {"fake": FakePlatform()}, rng=random.Random(5))
    yield service, store, clock
    await service.close()
    await store.close()


async def practice_of(service: Features, user: str) -> int:
    card = await service.practice.start_practice(REF, user)
    return card.round_id


async def hold(service: Features, round_id: int, users: tuple[str, ...] = ("u1", "u2", "u3")) -> str:
    round_ = await store_of(service).get_round(round_id)
    assert round_ is not None
    for user in users:  # each reports the question through a practice round of their own
        own = await store_of(service).create_practice_round(REF, user, round_.question_id, round_.topic, T0)
        await service.reports.report_round(user, own.id, WRONG, "the answer is wrong")
    return round_.question_id


def test_reason_words():
    assert parse_report_words(["typo", "in", "choice", "B"]) == (ReportReason.TYPO, "in choice B")
    assert parse_report_words(["B", "is", "right"]) == (ReportReason.OTHER, "B is right")
    assert parse_report_words([]) == (ReportReason.OTHER, "")
    with pytest.raises(BadSetting, match="at most 500"):
        parse_report_words(["wrong", "x" * (MAX_REPORT_TEXT + 1)])


async def test_a_report_is_stored_with_its_pack_reporter_and_text(env):
    service, store, _ = env
    rid = await practice_of(service, "ann")
    reply = await service.reports.report_round("ann", rid, WRONG, "  **B** <@123>\x07 is right  ")
    assert "in the admins' queue" in reply
    [report] = await store.reports("fake", "space-1")
    question = (await store.get_round(rid)).question_id
    assert (report.question_id, report.pack, report.reporter, report.reason) == (question, "pytorch", "ann", WRONG)
    assert report.text == "**B** <@123>  is right"  # control characters dropped; markup kept as typed (plain)
    assert report.created_at == T0 and report.is_open


async def test_a_second_report_on_the_same_question_is_refused(env):
    service, store, _ = env
    rid = await practice_of(service, "ann")
    await service.reports.report_round("ann", rid, WRONG)
    with pytest.raises(ReportRefused, match="already reported"):
        await service.reports.report_round("ann", rid, ReportReason.TYPO)
    assert len(await store.reports("fake", "space-1")) == 1


async def test_the_sixth_report_in_a_day_is_refused_and_tomorrow_is_a_new_day(env):
    service, store, clock = env
    questions = [q.id for q in service.context.bank.questions]
    for qid in questions[:REPORT_DAILY_LIMIT]:
        own = await store.create_practice_round(REF, "ann", qid, "tensors", T0)
        await service.reports.report_round("ann", own.id, WRONG)
    sixth = await store.create_practice_round(REF, "ann", questions[5], "tensors", T0)
    with pytest.raises(ReportRefused, match="5 reports today"):
        await service.reports.report_round("ann", sixth.id, WRONG)
    assert len(await store.reports("fake", "space-1")) == REPORT_DAILY_LIMIT
    clock.advance(hours=16)  # 00:00 UTC, the space's next day
    assert "queue" in await service.reports.report_round("ann", sixth.id, WRONG)


async def test_the_day_is_the_spaces_local_day(env):
    service, store, clock = env
    await store.save_channel(ChannelConfig(ref=REF, timezone="Asia/Tokyo"))  # 08:00 UTC is 17:00 there
    questions = [q.id for q in service.context.bank.questions]
    for qid in questions[:REPORT_DAILY_LIMIT]:
        own = await store.create_practice_round(REF, "ann", qid, "tensors", T0)
        await service.reports.report_round("ann", own.id, WRONG)
    clock.advance(hours=7)  # 15:00 UTC: midnight has passed in Tokyo
    own = await store.create_practice_round(REF, "ann", questions[5], "tensors", T0)
    assert "queue" in await service.reports.report_round("ann", own.id, WRONG)


async def test_someone_elses_practice_round_and_another_space_are_refused(env):
    service, _, _ = env
    rid = await practice_of(service, "ann")
    with pytest.raises(NotAllowed, match="someone else"):
        await service.reports.report_round("bob", rid, WRONG)
    with pytest.raises(UnknownRound):
        await service.reports.report_round("ann", rid, WRONG, space=("fake", "space-2"))
    with pytest.raises(UnknownRound):
        await service.reports.report_round("ann", 999, WRONG)


async def test_three_open_reports_hold_a_question_from_daily_practice_and_review(env):
    service, store, clock = env
    await service.channels.configure(ADMIN, REF)
    rid = await practice_of(service, "ann")
    question = service.context.bank.get((await store.get_round(rid)).question_id)
    await service.answers.submit_answer(rid, "ann", (question.answer + 1) % 4)  # a miss: due for review soon
    held = await hold(service, rid)
    assert await service.reports.held("fake", "space-1") == {held}
    assert await service.reports.held("fake", "space-2") == set()  # only in its space
    clock.advance(hours=2)  # 10:00, after the 09:00 post
    asked = set()
    for _ in range(20):  # the rest of the bank is asked several times over: never the held question
        clock.advance(days=1)
        round_ = await service.posting.post_scheduled(REF)
        assert round_ is not None and round_.question_id != held
        asked.add(round_.question_id)
    assert asked == {q.id for q in service.context.bank.questions} - {held}
    for user in ("p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"):
        card = await service.practice.start_practice(REF, user)
        assert (await store.get_round(card.round_id)).question_id != held
    review = await service.practice.start_review(REF, "ann", 20)  # her miss is due, but held
    assert not isinstance(review, ReviewEmpty)
    assert (await store.get_round(review.round_id)).question_id != held


async def test_two_reports_do_not_hold_and_the_third_does(env):
    service, _, _ = env
    rid = await practice_of(service, "ann")
    qid = await hold(service, rid, ("u1", "u2"))
    assert await service.reports.held("fake", "space-1") == set()
    await hold(service, rid, ("u3",))
    assert await service.reports.held("fake", "space-1") == {qid}
    assert HOLD_AT == 3


async def test_keep_releases_hold_keeps_it_held(env):
    service, store, _ = env
    rid = await practice_of(service, "ann")
    qid = await hold(service, rid)
    [first, *_] = await store.reports("fake", "space-1")
    reply = await service.reports.resolve(ADMIN, "fake", "space-1", first.id, "hold")
    assert "3 open report(s)" in reply and "held" in reply
    assert await store.reports("fake", "space-1") == []  # the queue is empty, the question still held
    assert await service.reports.held("fake", "space-1") == {qid}
    card = await service.reports.queue(ADMIN, "fake", "space-1")
    assert "Held without open reports: " + qid in card.text
    assert "asked again" in await service.reports.resolve(ADMIN, "fake", "space-1", first.id, "keep")
    assert await service.reports.held("fake", "space-1") == set()


async def test_edit_is_for_a_spaces_own_pack_only(env):
    service, store, _ = env
    rid = await practice_of(service, "ann")
    await service.reports.report_round("ann", rid, WRONG)
    [report] = await store.reports("fake", "space-1")
    with pytest.raises(BadSetting, match="shipped pack pytorch"):
        await service.reports.resolve(ADMIN, "fake", "space-1", report.id, "edit")
    assert (await store.reports("fake", "space-1")) == [report]  # nothing changed
    await service.catalog.import_pack(ADMIN, "fake", "space-1", "team", pack_csv(), "csv", now=T0)
    await service.channels.configure(ADMIN, REF, None)
    own = await store.create_practice_round(REF, "ann", "team/team-3", "team-lore", T0)
    await service.reports.report_round("ann", own.id, ReportReason.TYPO, "typo in the prompt")
    team_report = (await store.reports("fake", "space-1"))[-1]
    assert team_report.pack == "team"
    reply = await service.reports.resolve(ADMIN, "fake", "space-1", team_report.id, "edit")
    assert "export the pack team" in reply and "team-3" in reply and "keep" in reply
    assert "team/team-3" in await service.reports.held("fake", "space-1")
    with pytest.raises(BadSetting, match="keep, hold or edit"):
        await service.reports.resolve(ADMIN, "fake", "space-1", team_report.id, "delete")
    with pytest.raises(BadSetting, match="no report #999"):
        await service.reports.resolve(ADMIN, "fake", "space-1", 999, "keep")


async def test_members_cannot_see_or_resolve_the_queue(env):
    service, store, _ = env
    await service.reports.report_round("ann", await practice_of(service, "ann"), WRONG)
    with pytest.raises(NotAllowed, match="see the reports queue"):
        await service.reports.queue(MEMBER, "fake", "space-1")
    [report] = await store.reports("fake", "space-1")
    with pytest.raises(NotAllowed, match="resolve reports"):
        await service.reports.resolve(MEMBER, "fake", "space-1", report.id, "keep")
    assert (await store.reports("fake", "space-1")) == [report]


async def test_the_queue_lists_open_reports_as_plain_text(env):
    service, _, _ = env
    rid = await practice_of(service, "ann")
    await service.reports.report_round("ann", rid, WRONG, "*bold* @everyone")
    card = await service.reports.queue(ADMIN, "fake", "space-1")
    assert card.text.startswith("Reports: 1 open")
    marked = card.render(escape=lambda t: t.replace("*", "\\*"), who=lambda u: f"<@{u}>")
    assert "by <@ann>: \\*bold\\* @everyone" in marked  # the reporter is named; their words are escaped
    assert "[wrong answer]" in marked


async def test_the_queue_shows_each_reported_questions_prompt_never_its_answer_and_fits_a_limit(env):
    service, store, _ = env
    rid = await practice_of(service, "ann")
    round_ = await store.get_round(rid)
    assert round_ is not None
    question = next(q for q in make_bank(per_topic=2).questions if q.id == round_.question_id)
    await service.reports.report_round("ann", rid, WRONG, "B is right")
    text = (await service.reports.queue(ADMIN, "fake", "space-1")).text
    assert f"    Q: {question.prompt}" in text.split("\n")
    assert question.explanation not in text and question.choices[question.answer] not in text
    for user in ("bo", "cy", "di", "ed"):  # four more reports, each of another question
        await service.reports.report_round(user, await practice_of(service, user), WRONG, "x" * 150)
    card = await service.reports.queue(ADMIN, "fake", "space-1")
    full = card.render()
    assert full.count("    Q: ") == 5 and "more (resolve these first)" not in full
    short = card.render(limit=len(full) - 1)  # one report fewer fits: it is counted, the hint stays
    assert len(short) < len(full) and short.count("    Q: ") == 4
    assert "... and 1 more (resolve these first)" in short and short.endswith("keep|hold|edit")


async def test_typed_report_takes_the_latest_of_daily_and_own_practice(env):
    service, store, _ = env
    with pytest.raises(BadSetting, match="no question to report"):
        await service.reports.report_latest(REF, "ann", WRONG)
    await service.channels.configure(ADMIN, REF)
    daily = await service.posting.post_scheduled(REF, dt.date(2026, 12, 1))
    await service.reports.report_latest(REF, "ann", WRONG, "x")
    assert (await store.reports("fake", "space-1"))[-1].question_id == daily.question_id
    practice = await service.practice.start_practice(REF, "bob")
    await service.reports.report_latest(REF, "bob", ReportReason.UNCLEAR)
    got = (await store.reports("fake", "space-1"))[-1]
    assert got.question_id == (await store.get_round(practice.round_id)).question_id
    assert (await store.get_round(practice.round_id)).kind is RoundKind.PRACTICE


async def test_question_stats_count_open_reports(env):
    service, store, _ = env
    rid = await practice_of(service, "ann")
    await service.answers.submit_answer(rid, "ann", 0)
    await service.reports.report_round("ann", rid, WRONG)
    qid = (await store.get_round(rid)).question_id
    card = await service.packs.question_stats(ADMIN, "fake", "space-1")
    [reported] = card.reported
    assert (reported.question_id, reported.reports) == (qid, 1)
    assert "Most reported:" in card.text and "1 report" in card.text
    [report] = await store.reports("fake", "space-1")
    await service.reports.resolve(ADMIN, "fake", "space-1", report.id, "keep")
    assert (await service.packs.question_stats(ADMIN, "fake", "space-1")).reported == ()  # resolved: not counted


@pytest.mark.parametrize("report_id", [0, -1, 2**63, 2**70])
async def test_a_report_number_no_store_can_hold_is_no_report(report_id: int) -> None:
    """An adapter that hands over any int (a forged option) gets the same refusal as for an unknown number,
    never the SQL driver's OverflowError."""
    store = SqliteStore(":memory:")
    await store.open()
    service = bootstrap(store, make_bank(per_topic=2), FixedClock(T0), {"fake": FakePlatform()})
    try:
        with pytest.raises(BadSetting, match="There is no report"):
            await service.reports.resolve(ADMIN, "fake", "space-1", report_id, "keep")
    finally:
        await service.close()
        await store.close()
