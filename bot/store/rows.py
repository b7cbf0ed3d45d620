"""What the SQL stores share: conversions between core values and rows, column lists, checks."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any, TypeVar

from bot.installs import WorkspaceInstall
from bot.learning import CardKey, LearnerCard, ReviewEvent
from bot.model import Answer, ChannelConfig, ChannelRef, Difficulty, DueChannel, Round, RoundKind

# the column order of round_from_row and answer_from_row
ROUND_COLUMNS = (
    "id, kind, platform, space_id, channel_id, user_id, question_id, topic, local_date, opened_at, "
    "closes_at, revealed_at, message_id, post_state"
)
ANSWER_COLUMNS = "round_id, user_id, choice, correct, answered_at, points"
# the column order of install_from_row
INSTALL_COLUMNS = (
    "platform, workspace_id, bot_user_id, token_secret, installed_at, bot_id, scopes, installed_by, enterprise_id"
)


T = TypeVar("T")


def opened(handle: T | None) -> T:
    """A store's connection (or pool), or the error for a store used while closed."""
    if handle is None:
        raise RuntimeError("the store is not open")
    return handle


def ident(name: str) -> str:
    """A table or column name checked to be a plain SQL identifier (names are spliced into statements)."""
    if not (name.isidentifier() and name.isascii()):
        raise ValueError(f"not a plain SQL identifier: {name!r}")
    return name


# the second to_ts formatted last and its text, replaced as one tuple (so no thread sees half an update)
_last_second: tuple[tuple[int, ...], str] = ((), "")


def to_ts(moment: dt.datetime) -> str:
    """A UTC timestamp as fixed-width ISO text, so text order is time order.

    Runs once per answer: the text up to the second is kept from the last call (answers of one batch
    arrive within the same second), so only the microseconds are formatted."""
    global _last_second
    if moment.tzinfo is not dt.UTC:
        if moment.tzinfo is None:
            raise ValueError("timestamps must be timezone-aware")
        moment = moment.astimezone(dt.UTC)
    second = (moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second)
    last = _last_second
    if second != last[0]:
        last = _last_second = (second, moment.replace(microsecond=0, tzinfo=None).isoformat())
    return f"{last[1]}.{moment.microsecond:06d}+00:00"


def from_ts(text: str | dt.datetime) -> dt.datetime:
    if isinstance(text, dt.datetime):
        return text.astimezone(dt.UTC)
    return dt.datetime.fromisoformat(text).astimezone(dt.UTC)


def parse_date(value: str | dt.date | None) -> dt.date | None:
    if value is None or isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(value)


def asked_where(platform: str, space_id: str, kind: RoundKind, user_id: str | None, mark: str) -> tuple[str, list[str]]:
    """The WHERE clause (and its parameters) for the rounds of a kind in a space, and to a user if given;
    `mark` is the driver's placeholder: "?" (SQLite) or "$" (PostgreSQL's $1, $2, ...)."""
    params = [platform, space_id, kind.value] + ([] if user_id is None else [user_id])
    columns = ("platform", "space_id", "kind", "user_id")[: len(params)]
    marks = ["?"] * len(params) if mark == "?" else [f"${i}" for i in range(1, len(params) + 1)]
    return " AND ".join(f"{c} = {m}" for c, m in zip(columns, marks, strict=True)), params


def round_from_row(row: Any) -> Round:
    (
        rid,
        kind,
        platform,
        space_id,
        channel_id,
        user_id,
        question_id,
        topic,
        local_date,
        opened_at,
        closes_at,
        revealed_at,
        message_id,
        *rest,
    ) = tuple(row)
    return Round(
        id=int(rid),
        kind=RoundKind(kind),
        ref=ChannelRef(platform, space_id, channel_id),
        question_id=question_id,
        topic=topic,
        opened_at=from_ts(opened_at),
        local_date=parse_date(local_date),
        user_id=user_id,
        closes_at=from_ts(closes_at) if closes_at else None,
        revealed_at=from_ts(revealed_at) if revealed_at else None,
        message_id=message_id,
        post_state="sent" if not rest or kind != "daily" else str(rest[0]),
    )


def answer_from_row(row: Any) -> Answer:
    return Answer(
        round_id=int(row[0]),
        user_id=row[1],
        choice=int(row[2]),
        correct=bool(row[3]),
        answered_at=from_ts(row[4]),
        points=None if row[5] is None else int(row[5]),
    )


def config_to_row(c: ChannelConfig, now: dt.datetime) -> tuple[object, ...]:
    return (
        c.ref.platform,
        c.ref.channel_id,
        c.ref.space_id,
        f"{c.post_time:%H:%M}",
        c.timezone,
        ",".join(str(d) for d in sorted(c.weekdays)),
        ",".join(sorted(c.topics)),
        ",".join(sorted(d.value for d in c.difficulties)),
        int(c.paused),
        int(c.reactions),
        int(c.answer_window.total_seconds()) if c.answer_window else None,
        int(c.speed_bonus),
        to_ts(now),
        int(c.ping_winners),
        c.recap_day,
        int(c.threads),
        ",".join(sorted(c.packs)),
    )


def config_from_row(row: Any) -> ChannelConfig:
    (
        platform,
        channel_id,
        space_id,
        post_time,
        timezone,
        weekdays,
        topics,
        difficulties,
        paused,
        reactions,
        window_s,
        speed_bonus,
        _updated,
        ping_winners,
        recap_day,
        threads,
    ) = tuple(row)[:16]
    packs = tuple(row)[16] if len(tuple(row)) > 16 else "pytorch"
    hh, mm = (int(x) for x in post_time.split(":"))
    return ChannelConfig(
        ref=ChannelRef(platform, space_id, channel_id),
        post_time=dt.time(hh, mm),
        timezone=timezone,
        weekdays=frozenset(int(d) for d in weekdays.split(",") if d),
        topics=frozenset(t for t in topics.split(",") if t),
        difficulties=frozenset(Difficulty(d) for d in difficulties.split(",") if d),
        paused=bool(paused),
        reactions=bool(reactions),
        answer_window=dt.timedelta(seconds=window_s) if window_s else None,
        speed_bonus=bool(speed_bonus),
        ping_winners=bool(ping_winners),
        recap_day=None if recap_day is None else int(recap_day),
        threads=bool(threads),
        packs=frozenset(p for p in (packs or "pytorch").split(",") if p),
    )


# ---- learner memory (bot.learning) ---------------------------------------------------------------------

# the column order of card_from_row and card_values
CARD_COLUMNS = (
    "platform, space_id, user_id, question_id, state, step, stability, difficulty, due, last_review, reviews, "
    "lapses, confident_miss"
)
EVENT_COLUMNS = "platform, space_id, user_id, question_id, reviewed_at, rating, sure"


def card_from_row(row: Any) -> LearnerCard:
    (
        platform,
        space_id,
        user_id,
        question_id,
        state,
        step,
        stability,
        difficulty,
        due,
        last_review,
        reviews,
        lapses,
        confident_miss,
    ) = tuple(row)
    return LearnerCard(
        key=CardKey(platform, space_id, user_id, question_id),
        state=int(state),
        step=None if step is None else int(step),
        stability=None if stability is None else float(stability),
        difficulty=None if difficulty is None else float(difficulty),
        due=from_ts(due),
        last_review=from_ts(last_review) if last_review else None,
        reviews=int(reviews),
        lapses=int(lapses),
        confident_miss=bool(confident_miss),
    )


def card_values(card: LearnerCard) -> tuple[object, ...]:
    """A card as plain values in CARD_COLUMNS order (aware datetimes, a bool)."""
    k = card.key
    return (
        k.platform,
        k.space_id,
        k.user_id,
        k.question_id,
        card.state,
        card.step,
        card.stability,
        card.difficulty,
        card.due,
        card.last_review,
        card.reviews,
        card.lapses,
        card.confident_miss,
    )


def event_from_row(row: Any) -> ReviewEvent:
    platform, space_id, user_id, question_id, reviewed_at, rating, sure = tuple(row)
    return ReviewEvent(CardKey(platform, space_id, user_id, question_id), int(rating), from_ts(reviewed_at), bool(sure))


def event_values(event: ReviewEvent) -> tuple[object, ...]:
    k = event.key
    return (k.platform, k.space_id, k.user_id, k.question_id, event.reviewed_at, event.rating, event.sure)


def install_from_row(row: Any) -> WorkspaceInstall:
    return WorkspaceInstall(
        platform=row[0],
        workspace_id=row[1],
        bot_user_id=row[2],
        token_secret=row[3],
        installed_at=from_ts(row[4]),
        bot_id=row[5],
        scopes=row[6] or "",
        installed_by=row[7],
        enterprise_id=row[8],
    )


def due_channels(rows: Any) -> list[DueChannel]:
    """Claimed (platform, space, channel, due) rows, earliest first."""
    return sorted(
        (DueChannel(ChannelRef(r[0], r[1], r[2]), from_ts(r[3])) for r in rows),
        key=lambda d: (d.due_at, d.ref.platform, d.ref.channel_id),
    )


def answer_counts(asked: Iterable[Any], chosen: Iterable[Any]) -> list[tuple[str, int, tuple[int, ...], int]]:
    """(question id, rounds, answers per choice A-D, correct answers) from (question, rounds) rows and
    (question, choice, answers, correct) rows."""
    counts: dict[str, list[int]] = {}
    for qid, choice, n, correct in chosen:
        row = counts.setdefault(qid, [0, 0, 0, 0, 0])
        if 0 <= int(choice) < 4:
            row[int(choice)] += int(n)
        row[4] += int(correct or 0)
    out = []
    for qid, n in asked:
        row = counts.get(qid, [0, 0, 0, 0, 0])
        out.append((str(qid), int(n), tuple(row[:4]), row[4]))
    return sorted(out)
