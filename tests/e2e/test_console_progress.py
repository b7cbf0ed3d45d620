"""`/quiz progress` in the console over a scripted fortnight (issue 31, "done when"), in process with an injected
clock. (The same script was also played once by hand against `python -m bot` under libfaketime, outside the suite.)

Europe/Berlin, daily question at 09:00, from Mon 23 Mar 2026 to Sun 5 Apr: the clocks spring forward on the
night of Sun 29 Mar, so the second week's posts are an hour earlier in UTC. The learner answers every daily
question and, from the second day on, every review that is due (`/quiz stats` says how many), right or wrong and
sure or not as the script says. The figures the report must show are counted here from the transcript alone:
retention from the review answers by local week, recall of misses from the first answer to each missed
question 7 or more local days later, calibration from the sure and not-sure answers and from FSRS's predictions
replayed with py-fsrs itself. The chart must be a PNG that opens.
"""

from __future__ import annotations

import datetime as dt
import io
import random
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from fsrs import Card, Rating, Scheduler
from PIL import Image

from adapters.console.channel import CONSOLE_REF, ConsoleChannel
from bot.app.bootstrap import bootstrap
from bot.app.scheduler import DailyScheduler
from bot.features import Features
from bot.kernel.values import LETTERS, Period
from bot.practice.progress import MIN_BUCKET, MIN_COMEBACKS, MIN_RATE, MIN_WEEK
from bot.settings import ConfigChange
from bot.store.sqlite import SqliteStore
from tests.support.fakes import FixedClock, make_bank, store_of
from tests.support.learning import SETUP

BERLIN = ZoneInfo("Europe/Berlin")
START = dt.date(2026, 3, 23)  # a Monday
DAYS = 14
DAILY_WRONG = {0, 1, 2, 3, 4, 5, 6, 8, 11, 13}  # the days whose daily answer is wrong
DAILY_UNSURE = {1, 6, 7, 9}
REVIEW = re.compile(r"== Review (\d+)/(\d+): .* \(#(\d+), ")
DUE = re.compile(r"Reviews: (\d+) today")
CHART = re.compile(r"Chart: (.+\.png)")


def review_wrong(day: int, position: int) -> bool:
    return (day + position) % 4 == 0


def review_unsure(day: int, position: int) -> bool:
    return position % 3 == 2


def local(day: dt.date, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute), BERLIN).astimezone(dt.UTC)


@dataclass(frozen=True)
class Said:
    """One answer of the script."""

    question: str
    at: dt.datetime
    right: bool
    sure: bool
    kind: str  # daily | review


def take(out: io.StringIO) -> str:
    text = out.getvalue()
    out.seek(0)
    out.truncate()
    return text


async def letter_for(service: Features, round_id: int, right: bool) -> tuple[str, str]:
    round_ = await store_of(service).get_round(round_id)
    assert round_ is not None
    question = service.context.bank.get(round_.question_id)
    assert question is not None
    return round_.question_id, LETTERS[question.answer if right else (question.answer + 1) % 4]


async def play_fortnight(
    service: Features, console: ConsoleChannel, out: io.StringIO, clock: FixedClock
) -> tuple[list[Said], DailyScheduler]:
    scheduler = DailyScheduler(service, clock)
    said: list[Said] = []
    for i in range(DAYS):
        day = START + dt.timedelta(days=i)
        clock.set(local(day, 9, 1))
        await scheduler.tick()  # reveals yesterday's question, posts today's
        daily = await store_of(service).latest_daily_round(CONSOLE_REF)
        assert daily is not None and daily.local_date == day
        clock.set(local(day, 9, 6))
        right, sure = i not in DAILY_WRONG, i not in DAILY_UNSURE
        question, letter = await letter_for(service, daily.id, right)
        await console.handle(f"/quiz answer {letter}{'' if sure else ' ?'}")
        assert f"Your answer {letter} is locked in" in take(out)
        said.append(Said(question, clock.now(), right, sure, "daily"))
        clock.set(local(day, 12, 0))
        await console.handle("/quiz stats")
        due = int(DUE.search(take(out)).group(1))  # type: ignore[union-attr]
        if due == 0:
            continue
        await console.handle(f"/quiz review {due}")
        text = take(out)
        for position in range(1, due + 1):
            found = REVIEW.search(text)
            assert found is not None and (int(found.group(1)), int(found.group(2))) == (position, due), text
            right, sure = not review_wrong(i, position), not review_unsure(i, position)
            question, letter = await letter_for(service, int(found.group(3)), right)
            assert any(s.question == question for s in said)  # a due review: a question seen before
            clock.advance(minutes=1)
            await console.handle(letter if sure else f"{letter} ?")
            text = take(out)
            assert ("Correct!" in text) == right
            said.append(Said(question, clock.now(), right, sure, "review"))
    return said, scheduler


# ---- what the transcript implies, counted here -------------------------------------------------------


def rate_line(right: int, n: int, least: int, what: str) -> str:
    if n >= least:
        return f"{right} of {n} right ({round(100 * right / n)}%)"
    need = least - n
    return f"{right} of {n} right; a rate needs {need} more {what}{'' if need == 1 else 's'}"


def week_of(at: dt.datetime) -> dt.date:
    day = at.astimezone(BERLIN).date()
    return day - dt.timedelta(days=day.weekday())


def expected_retention(revealed: list[Said]) -> list[str]:
    reviews = [s for s in revealed if s.kind == "review"]
    weeks = sorted({week_of(s.at) for s in reviews})
    lines = [
        f"Last {len(weeks)} weeks: " + rate_line(sum(s.right for s in reviews), len(reviews), MIN_RATE, "review") + "."
    ]
    for week in weeks:
        mine = [s for s in reviews if week_of(s.at) == week]
        lines.append(f"Week of {week:%d %b}: {rate_line(sum(s.right for s in mine), len(mine), MIN_WEEK, 'review')}.")
    return lines


def comebacks(revealed: list[Said], through: dt.date | None = None) -> tuple[int, int, int]:
    """(daily questions missed, came back 7+ local days later, right that first time back)."""
    missed = back = right = 0
    for miss in revealed:
        if miss.kind != "daily" or miss.right:
            continue
        miss_day = miss.at.astimezone(BERLIN).date()
        if through is not None and miss_day > through:
            continue
        missed += 1
        later = [
            s
            for s in revealed
            if s.question == miss.question
            and (s.at.astimezone(BERLIN).date() - miss_day).days >= 7
            and (through is None or s.at.astimezone(BERLIN).date() <= through)
        ]
        if later:
            back += 1
            right += min(later, key=lambda s: s.at).right
    return missed, back, right


def expected_misses(revealed: list[Said]) -> list[str]:
    missed, back, right = comebacks(revealed)
    if back >= MIN_COMEBACKS:
        lines = [f"{right} of {back} right when they came back 7 or more days later ({round(100 * right / back)}%)."]
    else:
        need = MIN_COMEBACKS - back
        lines = [
            f"{back} of your misses came back 7 or more days later, {right} right; "
            f"a share needs {need} more miss{'' if need == 1 else 'es'} to come back."
        ]
    waiting = missed - back
    if waiting:
        lines.append(
            f"{waiting} missed question{'s have' if waiting != 1 else ' has'} not come back 7 or more days later yet."
        )
    return lines


def predicted_buckets(revealed: list[Said]) -> dict[str, tuple[int, int, float]]:
    """FSRS's predicted recall at each answer after a question's first, replayed with py-fsrs (the report's
    settings: desired retention 0.9, no learning steps, no fuzz): bucket label -> (reviews, right, mean)."""
    scheduler = Scheduler(desired_retention=0.9, learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    cards: dict[str, Card] = {}
    found: dict[int, list[tuple[float, bool]]] = {}
    edges = (0.7, 0.85, 0.95)
    for s in sorted(revealed, key=lambda s: s.at):
        card = cards.get(s.question)
        if card is not None:
            recall = scheduler.get_card_retrievability(card, s.at)
            found.setdefault(sum(recall >= e for e in edges), []).append((recall, s.right))
        rating = Rating.Again if not s.right else Rating.Good if s.sure else Rating.Hard
        cards[s.question], _ = scheduler.review_card(card or Card(card_id=1, due=s.at), rating, s.at)
    labels = ("predicted under 70%", "predicted 70%–85%", "predicted 85%–95%", "predicted 95% or more")
    return {labels[i]: (len(v), sum(r for _, r in v), sum(p for p, _ in v) / len(v)) for i, v in sorted(found.items())}


def expected_calibration(revealed: list[Said]) -> list[str]:
    sure = [s for s in revealed if s.sure]
    unsure = [s for s in revealed if not s.sure]
    lines = [
        f"When sure: {rate_line(sum(s.right for s in sure), len(sure), MIN_RATE, 'answer')}.",
        f"When not sure: {rate_line(sum(s.right for s in unsure), len(unsure), MIN_RATE, 'answer')}.",
        "Predicted recall (FSRS) against your answers:",
    ]
    for label, (n, right, mean) in predicted_buckets(revealed).items():
        lines.append(f"{label} (mean {round(100 * mean)}%): {rate_line(right, n, MIN_BUCKET, 'review')}.")
    return lines


def png_size(path: Path) -> tuple[int, int]:
    """The width and height of a PNG file that opens (its signature, its header, Pillow's check)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    with Image.open(path) as image:
        image.verify()
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def section(report: str, heading: str) -> list[str]:
    """The indented lines under a heading of the printed report."""
    lines = report.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading)) + 1
    body = []
    for line in lines[start:]:
        if not line.startswith("  "):
            break
        body.append(line.strip())
    return body


@pytest.fixture
async def service(tmp_path):
    store = SqliteStore(tmp_path / "console.db")
    await store.open()
    service = bootstrap(store, make_bank(per_topic=10), FixedClock(local(START, 8, 0)), rng=random.Random(31))
    yield service
    await service.close()
    await store.close()


async def test_a_scripted_fortnight_shows_exactly_the_figures_its_answers_imply(service: Features, tmp_path: Path):
    clock = service.context.clock
    assert isinstance(clock, FixedClock)
    out = io.StringIO()
    console = ConsoleChannel(service, stdout=out, timezone="Europe/Berlin")
    console.platform.recap_dir = tmp_path / "files"
    await service.channels.configure(SETUP, CONSOLE_REF, ConfigChange.parse([("tz", "Europe/Berlin")]))
    await service.channels.configure(SETUP, CONSOLE_REF, ConfigChange.of(post_time=dt.time(9, 0)))

    said, scheduler = await play_fortnight(service, console, out, clock)
    # the last day's daily answer is not revealed yet: it counts nowhere (hidden answers never show)
    last_daily = max((s for s in said if s.kind == "daily"), key=lambda s: s.at)
    revealed = [s for s in said if s is not last_daily]
    assert sum(1 for s in revealed if s.kind == "review") >= MIN_RATE  # enough for every rate shown below
    board_before = await store_of(service).leaderboard("console", "local", Period.ALL, "all", 10)

    clock.set(local(START + dt.timedelta(days=DAYS - 1), 20, 0))
    await console.handle("/quiz progress")
    report = take(out)

    assert section(report, "Memory that holds") == expected_retention(revealed)
    assert section(report, "Missed daily questions") == expected_misses(revealed)
    assert section(report, "Calibration") == expected_calibration(revealed)
    missed, back, _ = comebacks(revealed)
    assert back >= MIN_COMEBACKS and missed > back  # the script gives the share a number, and some still wait
    # the chart: a PNG that opens, written where the console writes files
    found = CHART.search(report)
    assert found is not None, report
    png = Path(found.group(1))
    assert png.parent == tmp_path / "files" and png.name.startswith("you-progress-2026-04-05")
    assert png_size(png) == (1200, 900)
    # the report changed nothing: the board counts the revealed daily answers alone, reviews never
    board_after = await store_of(service).leaderboard("console", "local", Period.ALL, "all", 10)
    assert board_after == board_before
    [row] = board_after
    dailies = [s for s in revealed if s.kind == "daily"]
    assert row.answered == len(dailies) and row.correct == sum(s.right for s in dailies)

    # Monday 6 Apr: the last daily answer is revealed, and the weekly recap's space-wide line counts the
    # once-missed questions recalled a week or more later up to Sunday, from the same transcript
    clock.set(local(START + dt.timedelta(days=DAYS), 9, 1))
    await scheduler.tick()
    recap = take(out)
    missed, back, right = comebacks(said, through=START + dt.timedelta(days=DAYS - 1))
    assert f"Once-missed questions recalled a week or more later (everyone, so far): {right} of {back} " in recap
    assert f"({round(100 * right / back)}%)." in recap and missed == len(
        [s for s in said if s.kind == "daily" and not s.right]
    )
