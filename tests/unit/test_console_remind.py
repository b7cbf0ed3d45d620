"""`/quiz remind` in the console, in process with an injected clock: the reply, the reminder printed as a direct
message by the tick, and a bad time refused with nothing changed."""

from __future__ import annotations

import datetime as dt

from adapters.console.channel import CONSOLE_REF
from bot.app.scheduler import DailyScheduler
from tests.support.fakes import FixedClock, store_of
from tests.unit.test_console_daily import console_at

START = dt.datetime(2026, 12, 8, 6, 0, tzinfo=dt.UTC)


async def test_remind_in_the_console():
    console, service, out = await console_at(START)
    store, clock = store_of(service), service.context.clock
    assert isinstance(clock, FixedClock)
    user = console.user_id
    await console.handle("/quiz remind on 7pm")
    assert "'7pm' is not a reminder time" in out.getvalue()
    assert await store.get_reminder(CONSOLE_REF.platform, CONSOLE_REF.space_id, user) is None
    await console.handle("/quiz remind on 07:30")
    assert f"(private to {user}) Reminders are on: at 07:30 (UTC)" in out.getvalue()
    card = await service.practice.start_practice(CONSOLE_REF, user)  # a miss: due for review tomorrow
    round_ = await store.get_round(card.round_id)
    question = service.context.bank.get(round_.question_id)
    await service.answers.submit_answer(card.round_id, user, (question.answer + 1) % 4)
    clock.set(dt.datetime(2026, 12, 9, 7, 30, tzinfo=dt.UTC))
    await DailyScheduler(service, clock).tick()
    assert f"(direct message to {user}) Reminder from studybot\nYou have 1 review today" in out.getvalue()
    stop = "(You get this at 07:30 (UTC) because reminders are on: /quiz remind off stops them, /quiz remind shows"
    assert stop in out.getvalue()  # every reminder says how to stop them
    await console.handle("/quiz remind off")
    assert "Reminders are off" in out.getvalue()
    await service.close()
    await store.close()
