"""The console channel fed 6,000-character and hostile values in every `/quiz ...` subcommand: it answers each
line, never repeats more than a short part of what was typed, and keeps running."""

from __future__ import annotations

import datetime as dt
import io
import pickle
import random
from collections import Counter
from pathlib import Path

from adapters.console.channel import ConsoleChannel
from adapters.console.render import leaderboard_text
from adapters.discord.limits import CONTENT_MAX
from bot.app.bootstrap import bootstrap
from bot.kernel.cards import LeaderboardCard
from bot.kernel.errors import QuizError
from bot.settings import listed
from bot.store.postgres import PostgresStore
from bot.text.commands import parse_quiz
from bot.text.runner import HelpReply, run_command
from tests.integration.test_postgres_store import throwaway_database
from tests.support.fakes import FixedClock, make_bank
from tests.support.memory_store import InMemoryStore

LONG = "x" * 6000
HOSTILE = [LONG, ("@everyone <@&123> <!channel> __x__ ``````` " * 200)[:6000], "`" * 12, "__x__"]


def new_lines(value: str) -> list[str]:
    """The value in each place the newer subcommands take one (the console's and Slack's limit tests)."""
    return [
        f"remind {value}",
        f"remind on {value}",
        f"export {value}",
        f"forget-me {value}",
        f"report {value}",
        f"report wrong {value}",
        f"admin {value}",
        f"admin resolve {value} keep",
        f"admin resolve 1 {value}",
        f"suggest {value}",
        f"suggest {value} | easy | {value} | a | b | c | d | A | {value}",
        f"admin approve {value}",
        f"admin reject {value} spam",
        f"admin reject 1 {value}",
        f"admin import {value}",
        f"admin export {value}",
        f"admin question-stats {value}",
        f"leaderboard season {value}",
        "admin reports",
        "admin suggestions",
    ]


def lines_for(value: str) -> list[str]:
    out = [
        f"/quiz {value}",
        f"/quiz practice {value}",
        f"/quiz answer {value}",
        f"/quiz leaderboard {value}",
        f"/quiz stats {value}",
        f"/quiz config {value}",
        f"/quiz config {value} 1",
        f"/quiz config channel {value}",
        f"/quiz post-now {value}",
        f"/quiz as {value}",
        "/quiz as you",
        value,
        *(f"/quiz {line}" for line in new_lines(value)),
    ]
    return out + [f"/quiz config {s.word} {value}" for s in listed()]


async def test_every_console_subcommand_echoes_hostile_values_briefly() -> None:
    out = io.StringIO()
    store = InMemoryStore()
    await store.open()
    service = bootstrap(store, make_bank(), FixedClock(dt.datetime(2026, 6, 1, 8, tzinfo=dt.UTC)), rng=random.Random(3))
    console = ConsoleChannel(service, stdin=io.StringIO(""), stdout=out)
    await console.start()
    for value in HOSTILE:
        for line in lines_for(value):
            before = out.tell()
            assert await console.handle(line) is True
            said = out.getvalue()[before:]
            assert said.strip(), line[:60]
            assert "x" * 200 not in said, line[:60]
            assert len(said) <= 4000, (line[:60], len(said))
    await service.close()


# ---- generated input for the subcommands added since: remind, export, forget-me, report, suggest, the admin's
# queues and packs, season boards and champion_role, through the shared grammar and runner ------------------

SEED = 20261201
TRIES = 2000  # generated lines per subcommand
NEW_SUBCOMMANDS = (
    "remind",
    "remind on",
    "remind off",
    "export",
    "forget-me",
    "report",
    "report wrong",
    "admin",
    "admin reports",
    "admin resolve",
    "admin resolve 1",
    "suggest",
    "admin suggestions",
    "admin approve",
    "admin reject",
    "admin reject 1",
    "admin import",
    "admin export",
    "admin question-stats",
    "leaderboard season",
    "lb public season",
    "config champion_role",
    "review limit",
    "review pause",
    "review resume",
    "plan",
    "plan 2027-01-20",
)
WORDS = (
    *("on", "off", "confirm", "keep", "hold", "edit", "wrong", "unclear", "typo", "other", "season", "public"),
    *("yaml", "csv", "--replace", "pytorch", "suggestions", "tensors", "easy", "|", "a|b|c"),
    *("2026-11", "2026-13", "1999-01", "0000-00", "12:00", "25:61", "08:30", "8:5", "24:00"),
    *("0", "-1", "1", "7", "#1", "#-1", "?1", "?", "1e3", "0x1f", "NaN", "inf", "null", "None"),
    *("9" * 19, str(2**63), str(2**64), "-" + "9" * 30, "1" * 400),
    *("²", "٣", "１２", "Ⅻ", "ｏｎ", "ℌ", "😀", "\u202e", "\u200b", "\u2028", "\x00", "\x1b[31m", "\t"),
    *("<!channel>", "<!here>", "@everyone", "@here", "<@&123456789012345678>", "<@U0BOB>", "<#C1>"),
    *("**b**", "__x__", "`" * 12, "```py", "~s~", "> q", "[l](https://evil.example)"),
    *("'; DROP TABLE reports; --", "' OR '1'='1", '"', "'", "%s", "{0}", "${x}", "\\", "../../etc/passwd"),
)
SETUP = (
    "/quiz answer B",
    "/quiz remind on 08:00",
    "/quiz report typo the second choice has a typo",
    "/quiz suggest tensors | easy | What does x.shape give? | its size | its dtype | its device | nothing | A | "
    "The shape is the size of each dimension.",
    "/quiz as bob",
    "/quiz answer C",
    "/quiz remind on",
    "/quiz as you",
)


def generated(rng: random.Random, prefix: str) -> str:
    """The subcommand, then up to four words (ten parts for a one-line suggestion): hostile words, huge and
    negative numbers, random code points, now and then 6,000 characters."""
    count = rng.randint(0, 10 if prefix == "suggest" else 4)
    words: list[str] = []
    for _ in range(count):
        pick = rng.random()
        if pick < 0.65:
            words.append(rng.choice(WORDS))
        elif pick < 0.8:
            words.append(str(rng.randint(-(10**25), 10**25)))
        elif pick < 0.95:
            words.append("".join(chr(rng.randint(1, 0x2FFFF)) for _ in range(rng.randint(1, 8))))
        else:
            words.append(rng.choice((LONG, HOSTILE[1])))
    separator = rng.choice((" ", " | " if prefix == "suggest" else "  ", "\t"))
    return f"{rng.choice(('/quiz', 'quiz', '/QUIZ'))} {prefix} " + separator.join(words)


def reply_text(result: object) -> str:
    """What a text reply shows (the console and Slack lay these out; long cards are the platforms' to split)."""
    if isinstance(result, HelpReply):
        return result.did_you_mean or result.reason or ""
    if isinstance(result, LeaderboardCard):
        return leaderboard_text(result)
    text = getattr(result, "text", "")
    return text if isinstance(text, str) else ""


def assert_fits(text: str, line: str) -> None:
    """Within Discord's 2,000 characters of content (the strictest of the platforms), no long echo of what was
    typed, and no control character of it."""
    assert len(text) <= CONTENT_MAX, (line[:80], len(text))
    assert "x" * 200 not in text and "1" * 200 not in text, line[:80]
    assert not any(c in text for c in "\x00\x1b\u2028"), (line[:80], text[:200])


async def test_generated_input_to_the_new_subcommands_raises_only_quiz_errors_and_a_refusal_changes_nothing(
    tmp_path: Path,
) -> None:
    store = InMemoryStore()
    await store.open()
    service = bootstrap(
        store, make_bank(), FixedClock(dt.datetime(2026, 12, 1, 8, tzinfo=dt.UTC)), rng=random.Random(3)
    )
    console = ConsoleChannel(service, stdin=io.StringIO(""), stdout=io.StringIO())
    console.export_dir = console.platform.recap_dir = tmp_path
    await console.start()
    for line in SETUP:
        assert await console.handle(line)
    assert await store.get_reminder("console", "local", "bob") is not None and await store.reports("console", "local")
    rng = random.Random(SEED)
    outcomes: Counter[str] = Counter()
    for prefix in NEW_SUBCOMMANDS:
        for _ in range(TRIES):
            line = generated(rng, prefix)
            console.user = rng.choice(("you", "bob"))  # an admin and a member
            before = pickle.dumps(store._tables)
            try:
                result = await run_command(service, console, parse_quiz(line))
            except QuizError as exc:
                assert_fits(exc.message, line)
                assert pickle.dumps(store._tables) == before, f"refused but changed the store: {line[:80]!r}"
                outcomes["refused"] += 1
                continue
            except Exception as exc:
                raise AssertionError(f"{type(exc).__name__} escaped the grammar on {line[:120]!r}") from exc
            if isinstance(result, HelpReply):
                assert pickle.dumps(store._tables) == before, f"not understood but changed the store: {line[:80]!r}"
            assert_fits(reply_text(result), line)
            outcomes[type(result).__name__] += 1
    assert outcomes["refused"] > TRIES * 3 and len(outcomes) >= 10, outcomes  # the lines reach the service too
    await service.close()


NUL_LINES = (
    "/quiz suggest tensors | easy | What does x.shape give? | its size | its dtype | its device | no | A | "
    "Its size: one number per dimension.",
    "/quiz suggest tensors | easy | What\x00 does it give? | its\x01 size | dtype | device | no | A | "
    "Its size: one number per dimension.",
    "/quiz suggest tensors | easy | What \udfc3 does it give? | its size | dtype | device | no | A | "
    "Its size: one number per dimension.",
    "/quiz admin reject 1 bad\x00reason\x1b[31m\ud800",
    "/quiz report wrong nul\x00here\udfc3",
    "/quiz stats \x00",
    "/quiz stats bob\x00",
    "/quiz admin question-stats \x00",
    "/quiz admin resolve 1\x00 keep",
    "/quiz admin approve 1\x00",
    "/quiz remind on 08:00\x00",
    "/quiz leaderboard season 2026-11\x00",
    "/quiz config champion_role \x00",
    "/quiz admin export team\x00 csv",
)


async def test_control_characters_never_reach_a_postgresql_text_column(tmp_path: Path) -> None:
    """PostgreSQL refuses a NUL in text (SQLite and the fake take it) and no store encodes a lone surrogate (a
    JSON payload may carry "\\udfc3"): every line is answered, none raises."""
    async with throwaway_database() as url:
        store = PostgresStore(url, min_size=1, max_size=2)
        await store.open()
        service = bootstrap(
            store, make_bank(), FixedClock(dt.datetime(2026, 12, 1, 8, tzinfo=dt.UTC)), rng=random.Random(3)
        )
        out = io.StringIO()
        console = ConsoleChannel(service, stdin=io.StringIO(""), stdout=out)
        console.export_dir = console.platform.recap_dir = tmp_path
        try:
            await console.start()
            for line in NUL_LINES:
                before = out.tell()
                await console._handle(line)  # not handle(): it would take a driver error for an outage
                assert out.getvalue()[before:].strip(), line
            [rejected] = await store.list_suggestions("console", "local", "rejected", 10)
            assert rejected.reason == "bad reason [31m"
            assert await store.list_suggestions("console", "local", "pending", 10) == []
            [report] = await store.reports("console", "local")
            assert report.text == "nul here"
        finally:
            await service.close()
            await store.close()
