"""A live game in the console channel, in process with an injected clock: `/quiz live`, three people typing
A-D, each question printed once and its close once, the podium and table, faster right answers scoring more,
a second `/quiz live` refused while one runs, `/quiz live stop` and `/quiz leaderboard live`."""

from __future__ import annotations

import datetime as dt
import io
import random
import re

from adapters.console.channel import CONSOLE_REF, ConsoleChannel
from bot.app.bootstrap import bootstrap
from bot.features import Features
from tests.support.fakes import FixedClock, make_bank
from tests.support.memory_store import InMemoryStore

T0 = dt.datetime(2026, 12, 8, 8, 0, tzinfo=dt.UTC)
BANK = make_bank()


async def console() -> tuple[ConsoleChannel, Features, FixedClock, io.StringIO]:
    store = InMemoryStore()
    await store.open()
    clock = FixedClock(T0)
    service = bootstrap(store, BANK, clock, rng=random.Random(7))
    out = io.StringIO()
    return ConsoleChannel(service, stdin=io.StringIO(""), stdout=out), service, clock, out


async def play(channel: ConsoleChannel, service: Features, clock: FixedClock, players: list[tuple[str, bool, int]]):
    """Run the due steps with the clock; at each new question the players type their letter `after` seconds in."""
    seen: set[int] = set()
    for _ in range(100):
        next_due = await service.live.run_due()
        round_ = await service.live.open_round(CONSOLE_REF)
        if round_ is not None and round_.id not in seen:
            seen.add(round_.id)
            question = BANK.get(round_.question_id)
            start = clock.now()
            for user, right, after in players:
                clock.set(start + dt.timedelta(seconds=after))
                await channel.handle(f"/quiz as {user}")
                await channel.handle("ABCD"[question.answer if right else (question.answer + 1) % 4])
        if next_due is None:
            return
        clock.set(max(next_due, clock.now()))
    raise AssertionError("the game did not end")


async def test_a_live_game_of_five_with_three_players_in_the_console():
    channel, service, clock, out = await console()
    await channel.handle("/quiz live 5 10")
    assert "(private to you) Live game on: 5 questions, 10 seconds each" in out.getvalue()
    await channel.handle("/quiz as bob")
    await channel.handle("/quiz live")
    assert "already running in this channel; wait for its final table, or /quiz live stop ends it" in out.getvalue()

    await play(channel, service, clock, [("ann", True, 1), ("bob", True, 6), ("cat", False, 2)])
    text = out.getvalue()
    for i in range(1, 6):
        assert text.count(f"== Live question {i} of 5 (#") == 1
        assert text.count(f"== Live question {i} of 5: closed ==") == 1
    assert text.count("3 answered, 2 right.") == 5
    assert text.count("(private to ann) Your answer") == 5 and "Everyone answers by typing A, B, C or D" in text
    final = text[text.index("== Live game: final results ==") :]
    assert final.index("ann") < final.index("bob") < final.index("cat")
    points = {m[1]: int(m[2].replace(",", "")) for m in re.finditer(r"\d\. (\w+): ([\d,]+) pts", final)}
    assert points["ann"] > points["bob"] > points["cat"] == 0  # the faster right answers scored more

    await channel.handle("/quiz leaderboard live")
    board = out.getvalue()[out.getvalue().index("== Live games: all time ==") :]
    assert board.index("ann") < board.index("bob") and "1 won of 1 game" in board


async def test_live_stop_in_the_console_ends_with_the_table_so_far():
    channel, service, clock, out = await console()
    await channel.handle("/quiz as ann")
    await channel.handle("/quiz live 5 20")
    await service.live.run_due()
    await channel.handle("B")
    await channel.handle("/quiz as bob")
    await channel.handle("/quiz live stop")
    assert "Only the member who started this live game, or an admin, can stop it." in out.getvalue()
    await channel.handle("/quiz as ann")
    await channel.handle("/quiz live stop")
    text = out.getvalue()
    assert "Live game stopped" in text and "== Live game: final results (stopped after 1 question) ==" in text
    assert text.count(": closed ==") == 1
    await channel.handle("C")  # no live question now: A-D is for practice again
    assert "You have no open practice question" in out.getvalue()


async def test_a_letter_typed_between_two_live_questions_is_told_the_question_closed():
    channel, service, clock, out = await console()
    await channel.handle("/quiz live 3 10")

    async def step() -> None:  # the game's next due step, with the clock moved to it
        next_due = await service.live.run_due()
        assert next_due is not None
        clock.set(max(next_due, clock.now()))
        await service.live.run_due()

    while await service.live.open_round(CONSOLE_REF) is None:
        await step()  # question 1 opens
    await step()  # question 1 closes; question 2 comes a few seconds later
    assert await service.live.open_round(CONSOLE_REF) is None and await service.live.running(CONSOLE_REF)
    await channel.handle("B")
    text = out.getvalue()
    assert "(private to you) That live question is closed: answer the next one when it comes." in text
    assert "You have no open practice question" not in text
