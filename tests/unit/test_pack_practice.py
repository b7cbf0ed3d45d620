"""Practice, review and /quiz topics draw from the packs the channel uses (issue 12), not only the bank."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.kernel.cards import QuestionCard
from bot.kernel.errors import BadSetting
from bot.kernel.values import Difficulty
from bot.settings import ConfigChange
from bot.web.progress import progress_report
from tests.support.packs import pack_csv, pack_rows
from tests.unit.test_packs import ADMIN, REF, T0, service_on
from tests.unit.test_packs import store as store  # noqa: F401  # the in-memory store fixture


async def test_practice_from_an_own_pack_then_review_its_miss(store) -> None:
    service, _platform, clock = service_on(store)
    await service.catalog.import_pack(ADMIN, "fake", "space-1", "team", pack_csv(pack_rows(6)), "csv", now=T0)
    with pytest.raises(BadSetting, match="'team-lore' is not a topic here"):
        await service.practice.start_practice(REF, "ann", "team-lore")  # the channel uses only the bank so far
    await service.channels.configure(ADMIN, REF, ConfigChange.parse([("packs", "team")]))
    assert {line.split(":")[0] for line in await service.practice.topics_in(REF)} >= {"team-lore", "team-lore-2"}

    card = await service.practice.start_practice(REF, "ann", "team-lore", Difficulty.MEDIUM)
    assert isinstance(card, QuestionCard) and card.topic == "team-lore" and "of team?" in card.prompt
    round_ = await store.get_round(card.round_id)
    assert round_ is not None and round_.question_id in {"team/team-1", "team/team-3", "team/team-5"}
    wrong = next(i for i in range(4) if i != "ABCD".index(pack_rows(6)[int(round_.question_id[-1])]["answer"]))
    outcome = await service.answers.submit_answer(card.round_id, "ann", wrong)
    assert outcome.verdict is not None and not outcome.verdict.correct

    # two days later the miss is due (the stats card counts it): the review asks that pack question again
    clock.set(T0 + dt.timedelta(days=2))
    learning = (await service.boards.stats("fake", "space-1", "ann")).learning
    assert learning is not None and learning.due_now == 1
    review = await service.practice.start_review(REF, "ann", 1)
    assert isinstance(review, QuestionCard) and review.prompt == card.prompt
    assert (await store.get_round(review.round_id)).question_id == round_.question_id  # type: ignore[union-attr]


async def test_practice_without_a_topic_stays_in_the_channels_packs(store) -> None:
    service, _platform, _clock = service_on(store)
    await service.catalog.import_pack(ADMIN, "fake", "space-1", "team", pack_csv(pack_rows(4)), "csv", now=T0)
    await service.channels.configure(ADMIN, REF, ConfigChange.parse([("packs", "team")]))
    for _ in range(6):
        card = await service.practice.start_practice(REF, "ann")
        assert (await store.get_round(card.round_id)).question_id.startswith("team/")  # type: ignore[union-attr]
        await service.answers.submit_answer(card.round_id, "ann", 0)


async def test_the_dashboards_learning_report_covers_the_packs_of_the_spaces_channels(store) -> None:
    service, _platform, _clock = service_on(store)
    await service.catalog.import_pack(ADMIN, "fake", "space-1", "team", pack_csv(pack_rows(6)), "csv", now=T0)
    await service.channels.configure(ADMIN, REF, ConfigChange.parse([("packs", "team")]))
    for i in range(3):  # the three team-lore questions, each seen once
        card = await service.practice.start_practice(REF, "ann", "team-lore")
        await service.answers.submit_answer(card.round_id, "ann", i % 4)
    in_channel = await service.progress.report(REF, "ann", chart=False)
    seen = {(t.topic, t.seen, t.total) for t in in_channel.topics}
    assert ("team-lore", 3, 3) in seen
    assert await service.progress.space_report("fake", "space-1", "ann") == in_channel
    dashboard = await progress_report(service, "fake", "space-1", "ann")
    assert any("team-lore" in line for _, lines in dashboard.learning for line in lines)
    # its memory chart, like the report, shows a topic from 3 questions seen: in 30 days, as the report says
    card = await service.practice.start_practice(REF, "ann", "team-lore-2")
    await service.answers.submit_answer(card.round_id, "ann", 0)
    report = await service.progress.space_report("fake", "space-1", "ann")
    later = {t.topic: t.later for t in report.topics}
    assert later["team-lore"] is not None and later["team-lore-2"] is None
    charts = dict((await progress_report(service, "fake", "space-1", "ann")).charts)
    assert charts["memory"].title == "Memory by topic in 30 days if you stop (predicted recall)"
    assert charts["memory"].rows == (("team-lore (3/3)", later["team-lore"]),)
    stats = await service.boards.stats("fake", "space-1", "ann")  # /quiz stats: the same memory
    assert stats.learning is not None
    assert [(m.topic, m.seen, m.later) for m in stats.learning.mastery] == [
        ("team-lore", 3, later["team-lore"]),
        ("team-lore-2", 1, None),
    ]
