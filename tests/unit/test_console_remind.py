"""`/quiz remind` in the console, in process with an injected clock: the reply, the reminder printed as a direct
message by the tick, and a bad time refused with nothing changed."""

from __future__ import annotations

import datetime as dt
import io
import random

from adapters.console.channel import CONSOLE_REF, ConsoleChannel
from bot.app.scheduler import DailyScheduler
from bot.quiz import QuizService
from tests.support.fakes import FixedClock, make_bank
from tests.support.memory_store import InMemoryStore

START = dt.datetime(2026, 12, 8, 6, 0, tzinfo=dt.UTC)


async def test_remind_in_the_console():
    store = InMemoryStore()
    await store.open()
    clock = FixedClock(START)
    service = QuizService(store, make_bank(), clock, rng=random.Random(7))
    out = io.StringIO()
    console = ConsoleChannel(service, stdin=io.StringIO(""), stdout=out)
    user = console.user_id
    await console.handle("/quiz remind on 7pm")
    assert "'7pm' is not a reminder time" in out.getvalue()
    assert await store.get_reminder(CONSOLE_REF.platform, CONSOLE_REF.space_id, user) is None
    await console.handle("/quiz remind on 07:30")
    assert f"(private to {user}) Reminders are on: at 07:30 (UTC)" in out.getvalue()
    card = await service.start_practice(CONSOLE_REF, user)  # a miss: due for review tomorrow
    round_ = await store.get_round(card.round_id)
    question = service.bank.get(round_.question_id)
    await service.submit_answer(card.round_id, user, (question.answer + 1) % 4)
    clock.set(dt.datetime(2026, 12, 9, 7, 30, tzinfo=dt.UTC))
    await DailyScheduler(service, clock).tick()
    assert f"(direct message to {user}) Reminder from studybot\nYou have 1 review due" in out.getvalue()
    await console.handle("/quiz remind off")
    assert "Reminders are off" in out.getvalue()
    await service.close()
    await store.close()
