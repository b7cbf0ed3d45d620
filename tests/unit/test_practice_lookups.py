"""What the dashboard's review page reads of practice: the learner's question still waiting for an answer, and
the verdict of one they answered, never anyone else's round nor one of another space."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import replace

from bot.app.bootstrap import bootstrap
from bot.bank.load import Bank
from bot.kernel.values import Actor
from bot.settings import ConfigChange
from tests.support.fakes import REF, FakePlatform, FixedClock, make_question
from tests.support.memory_store import InMemoryStore

T0 = dt.datetime(2026, 12, 7, 9, 0, tzinfo=dt.UTC)
BANK = Bank(tuple(make_question(f"tensors-{n}", answer=n % 4) for n in range(3)))


async def test_the_waiting_question_and_a_verdict_are_the_learners_own_in_their_space() -> None:
    store = InMemoryStore()
    await store.open()
    service = bootstrap(store, BANK, FixedClock(T0), {"fake": FakePlatform()}, rng=random.Random(2))
    try:
        await service.channels.configure(Actor("admin", True), REF, ConfigChange())
        practice = service.practice
        assert await practice.waiting_question(REF.platform, REF.space_id, "ada") is None
        card = await practice.start_practice(REF, "ada", None, None)
        waiting = await practice.waiting_question(REF.platform, REF.space_id, "ada")
        assert waiting is not None and (waiting.round_id, waiting.prompt) == (card.round_id, card.prompt)
        assert await practice.waiting_question(REF.platform, REF.space_id, "bob") is None
        assert await practice.verdict_of(REF.platform, REF.space_id, "ada", card.round_id) is None  # not answered

        question = next(q for q in BANK.questions if q.prompt == card.prompt)
        wrong = (question.answer + 1) % 4
        await service.answers.submit_answer(card.round_id, "ada", wrong, sure=True)
        assert await practice.waiting_question(REF.platform, REF.space_id, "ada") is None  # answered: none waits
        found = await practice.verdict_of(REF.platform, REF.space_id, "ada", card.round_id)
        assert found is not None
        judged, verdict = found
        assert judged == question and not verdict.correct and verdict.confident_miss
        assert verdict.chosen_letter == "ABCD"[wrong] and verdict.correct_letter == question.answer_letter
        unsure = await practice.verdict_of(REF.platform, REF.space_id, "ada", card.round_id, sure=False)
        assert unsure is not None and not unsure[1].confident_miss
        assert await practice.verdict_of(REF.platform, REF.space_id, "bob", card.round_id) is None  # not bob's
        elsewhere = replace(REF, space_id="space-2")
        assert await practice.verdict_of(elsewhere.platform, elsewhere.space_id, "ada", card.round_id) is None
        daily = await service.posting.post_scheduled(REF)
        assert daily is not None
        assert await practice.verdict_of(REF.platform, REF.space_id, "ada", daily.id) is None
    finally:
        await service.close()
        await store.close()
