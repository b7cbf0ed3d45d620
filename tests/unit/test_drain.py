"""The background drain of practice card updates (bot.drain): batching, replies first, close."""

from __future__ import annotations

import asyncio

from bot.kernel.drain import Drain


async def _turns(n: int = 30) -> None:
    for _ in range(n):  # event-loop turns, not time
        await asyncio.sleep(0)


async def test_it_waits_while_answers_are_waiting_and_then_writes_everything_in_full_batches():
    left, calls, busy = 25, [], True

    async def step() -> int:
        nonlocal left
        done = min(10, left)
        left -= done
        calls.append(done)
        return done

    drain = Drain(step, 10, "cards", delay=0, busy=lambda: busy)
    drain.nudge()
    await _turns()
    assert calls == []  # replies first
    busy = False
    await _turns()
    assert calls == [10, 10, 5] and left == 0  # full batches repeat until a short one
    await drain.close()


async def test_close_cuts_the_wait_short_and_a_failing_step_is_retried_at_the_next_nudge(caplog):
    calls = []

    async def step() -> int:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("store down")
        return 0

    drain = Drain(step, 10, "cards", delay=3600, busy=lambda: True, max_defer=7200)
    drain.nudge()
    await drain.close()  # an hour's delay, cut short: the step runs once, now
    assert calls == [1] and "writing cards failed" in caplog.text
    drain.nudge()
    await drain.close()
    assert calls == [1, 1]
