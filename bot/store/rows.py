"""What the SQL stores share: conversions between core values and rows, column lists, checks."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Collection, Iterable
from typing import Any, TypeVar

from bot.installs.values import WorkspaceInstall
from bot.kernel.errors import PackError
from bot.kernel.scoring import Board, LeaderboardRow
from bot.kernel.values import (
    Answer,
    ChannelConfig,
    ChannelRef,
    Difficulty,
    DueChannel,
    Round,
    RoundKind,
    StreakState,
)
from bot.practice.memory import CardKey, LearnerCard, ReviewEvent
from bot.seasons.values import SeasonArchive
from bot.suggestions.values import Suggestion, SuggestionStatus

# the column order of round_from_row and answer_from_row
ROUND_COLUMNS = (
    "id, kind, platform, space_id, channel_id, user_id, question_id, topic, local_date, opened_at, "
    "closes_at, revealed_at, message_id, post_state"
)
# the same, of a statement that names the rounds table `r` (joins, UPDATE ... FROM ... RETURNING)
ROUND_COLUMNS_OF_R = ", ".join(f"r.{column.strip()}" for column in ROUND_COLUMNS.split(","))
ANSWER_COLUMNS = "round_id, user_id, choice, correct, answered_at, points"
# the column order of install_from_row
INSTALL_COLUMNS = (
    "platform, workspace_id, bot_user_id, token_secret, installed_at, bot_id, scopes, installed_by, enterprise_id, "
    "refresh_secret, token_expires_at"
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
_DIGITS = tuple(f"{n:03d}" for n in range(1000))


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
    us = moment.microsecond
    return f"{last[1]}.{_DIGITS[us // 1000]}{_DIGITS[us % 1000]}+00:00"  # a third of the time `:06d` takes


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


# the columns config_to_row fills, in its order
CHANNEL_WRITE_COLUMNS = (
    "platform",
    "channel_id",
    "space_id",
    "post_time",
    "timezone",
    "weekdays",
    "topics",
    "difficulties",
    "paused",
    "reactions",
    "answer_window_s",
    "speed_bonus",
    "updated_at",
    "ping_winners",
    "recap_day",
    "threads",
    "packs",
    "champion_role",
    "manager_role",
    "ping_role",
    "ping_group",
)
# insert a channel's settings, or replace every one of them (the key stays)
CHANNEL_UPSERT_SQL = (
    f"INSERT INTO channels ({', '.join(CHANNEL_WRITE_COLUMNS)}) VALUES ({', '.join('?' * len(CHANNEL_WRITE_COLUMNS))}) "
    "ON CONFLICT (platform, channel_id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in CHANNEL_WRITE_COLUMNS[2:])
)


def config_to_row(c: ChannelConfig, now: dt.datetime, *, native: bool = False) -> tuple[object, ...]:
    """A channel's settings as CHANNEL_WRITE_COLUMNS values: SQLite's text and integers, or with `native` the
    driver's own types (PostgreSQL: time, booleans, a timestamp)."""
    flag: Any = bool if native else int
    return (
        c.ref.platform,
        c.ref.channel_id,
        c.ref.space_id,
        dt.time(c.post_time.hour, c.post_time.minute) if native else f"{c.post_time:%H:%M}",
        c.timezone,
        ",".join(str(d) for d in sorted(c.weekdays)),
        ",".join(sorted(c.topics)),
        ",".join(sorted(d.value for d in c.difficulties)),
        flag(c.paused),
        flag(c.reactions),
        int(c.answer_window.total_seconds()) if c.answer_window else None,
        flag(c.speed_bonus),
        now if native else to_ts(now),
        flag(c.ping_winners),
        c.recap_day,
        flag(c.threads),
        ",".join(sorted(c.packs)),
        c.champion_role,
        c.manager_role,
        c.ping_role,
        c.ping_group,
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
    champion_role = tuple(row)[17] if len(tuple(row)) > 17 else None
    manager_role, ping_role, ping_group = (tuple(row)[18:21] + (None, None, None))[:3]
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
        champion_role=champion_role or None,
        manager_role=manager_role or None,
        ping_role=ping_role or None,
        ping_group=ping_group or None,
    )


# ---- learner memory (bot.learning) ---------------------------------------------------------------------

# the column order of card_from_row and card_values
STREAK_COLUMNS = "current, best, last_date, kept, freezes, freezes_used, frozen"
# a learner's streak, inserted or replaced (one row per platform, space and user)
WRITE_STREAK = (
    "INSERT INTO streaks (platform, space_id, user_id, current, best, last_date, kept, freezes, freezes_used, "
    "frozen) VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT (platform, space_id, user_id) DO UPDATE SET "
    "current = excluded.current, best = excluded.best, last_date = excluded.last_date, kept = excluded.kept, "
    "freezes = excluded.freezes, freezes_used = excluded.freezes_used, frozen = excluded.frozen"
)
# the distinct revealed daily dates of a space strictly between two dates (the freezes a streak needs), at most ?
DAILY_DATES_BETWEEN = (
    "SELECT DISTINCT local_date FROM rounds WHERE platform = ? AND space_id = ? AND kind = 'daily' "
    "AND revealed_at IS NOT NULL AND local_date > ? AND local_date < ? ORDER BY local_date LIMIT ?"
)


def streak_from_row(row: Any) -> StreakState:
    """A streak from its STREAK_COLUMNS (SQLite text dates or PostgreSQL's own)."""
    return StreakState(int(row[0]), int(row[1]), parse_date(row[2]), int(row[3]), int(row[4]), int(row[5]), int(row[6]))


CARD_COLUMNS = (
    "platform, space_id, user_id, question_id, state, step, stability, difficulty, due, last_review, reviews, "
    "lapses, confident_miss"
)
EVENT_COLUMNS = "platform, space_id, user_id, question_id, reviewed_at, rating, sure, due_before, recall"


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
    platform, space_id, user_id, question_id, reviewed_at, rating, sure, due_before, recall = tuple(row)
    return ReviewEvent(
        CardKey(platform, space_id, user_id, question_id),
        int(rating),
        from_ts(reviewed_at),
        bool(sure),
        from_ts(due_before) if due_before else None,
        None if recall is None else float(recall),
    )


def event_values(event: ReviewEvent) -> tuple[object, ...]:
    k = event.key
    return (
        k.platform,
        k.space_id,
        k.user_id,
        k.question_id,
        event.reviewed_at,
        event.rating,
        event.sure,
        event.due_before,
        event.recall,
    )


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
        refresh_secret=row[9],
        token_expires_at=from_ts(row[10]) if row[10] else None,
    )


def board_key(board: Board) -> tuple[str, str, str, str]:
    """A leaderboard's key columns: platform, space, period, period key."""
    return board.platform, board.space_id, board.period.value, board.period_key


def due_order(due: DueChannel) -> tuple[dt.datetime, str, str, str]:
    """The order due channels are claimed in (the due indexes' order): earliest first, a space's together."""
    return (due.due_at, due.ref.platform, due.ref.space_id, due.ref.channel_id)


def due_channels(rows: Any) -> list[DueChannel]:
    """Claimed (platform, space, channel, due) rows, in the order they were claimed (due_order)."""
    return sorted((DueChannel(ChannelRef(r[0], r[1], r[2]), from_ts(r[3])) for r in rows), key=due_order)


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


# ---- monthly seasons ----------------------------------------------------------------------------------

SEASON_PLACES = 3  # a season archives its top three
# the month's board in season order: points, then who reached the score first (a total never reached last)
SEASON_TOP_SQL = (
    "SELECT user_id, points, correct, answered FROM scores WHERE platform = ? AND space_id = ? "
    "AND period = 'month' AND period_key = ? AND points > 0 "
    "ORDER BY points DESC, reached_at IS NULL, reached_at, user_id LIMIT 3"
)
# a daily round of the month still open: its answers are not on the board yet
SEASON_OPEN_SQL = (
    "SELECT 1 FROM rounds WHERE platform = ? AND space_id = ? AND kind = 'daily' AND revealed_at IS NULL "
    "AND local_date >= ? AND local_date < ? LIMIT 1"
)
SEASON_INSERT_SQL = "INSERT INTO seasons (platform, space_id, season, archived_at) VALUES (?, ?, ?, ?)"
SEASON_PLACE_INSERT_SQL = (
    "INSERT INTO season_places (platform, space_id, season, rank, user_id, points, answers, correct) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
SEASON_HEADER_SQL = "SELECT archived_at FROM seasons WHERE platform = ? AND space_id = ? AND season = ?"
SEASON_PLACES_SQL = (
    "SELECT rank, user_id, points, correct, answers FROM season_places WHERE platform = ? AND space_id = ? "
    "AND season = ? ORDER BY rank"
)
SEASON_CHAMPION_SQL = (
    "SELECT user_id FROM season_places WHERE platform = ? AND space_id = ? AND season < ? AND rank = 1 "
    "ORDER BY season DESC LIMIT 1"
)


def month_span(season: str) -> tuple[dt.date, dt.date]:
    """The first local date of a season (YYYY-MM) and the first of the month after it."""
    first = dt.date.fromisoformat(f"{season}-01")
    after = dt.date(first.year + first.month // 12, first.month % 12 + 1, 1)
    return first, after


def season_places(rows: Any) -> tuple[LeaderboardRow, ...]:
    """Places 1-3 from (user, points, correct, answered) rows in season order (a tie keeps its order)."""
    return tuple(
        LeaderboardRow(i + 1, str(uid), int(pts), int(corr), int(ans))
        for i, (uid, pts, corr, ans) in enumerate(list(rows)[:SEASON_PLACES])
    )


def season_place_rows(key: tuple[str, str, str], places: Iterable[LeaderboardRow]) -> list[tuple[object, ...]]:
    """The season_places rows of an archive (SEASON_PLACE_INSERT_SQL's order)."""
    return [(*key, r.rank, r.user_id, r.points, r.answered, r.correct) for r in places]


def season_from_rows(platform: str, space_id: str, season: str, archived_at: dt.datetime, rows: Any) -> SeasonArchive:
    """An archive from stored (rank, user, points, correct, answers) rows."""
    places = tuple(
        LeaderboardRow(int(rank), str(uid), int(pts), int(corr), int(ans)) for rank, uid, pts, corr, ans in rows
    )
    return SeasonArchive(platform, space_id, season, places, archived_at)


# ---- suggestions (bot.suggestions) ---------------------------------------------------------------

SUGGESTION_COLUMNS = (
    "id, platform, space_id, channel_id, author_id, body, status, reason, created_at, decided_by, decided_at, "
    "question_id"
)


def suggestion_from_row(row: Any) -> Suggestion:
    sid, platform, space_id, channel_id, author, body, status, reason, created, by, decided, qid = tuple(row)
    return Suggestion(
        id=int(sid),
        ref=ChannelRef(platform, space_id, channel_id),
        author_id=author,
        body=body,
        status=SuggestionStatus(status),
        created_at=from_ts(created),
        reason=reason,
        decided_by=by,
        decided_at=from_ts(decided) if decided else None,
        question_id=qid,
    )


def approved_question(suggestion_id: int, body: str, taken: Collection[str]) -> tuple[str, str]:
    """The id an approved suggestion gets in its pack (`suggestion-N`, with `-2`, `-3` ... if an imported
    question has it already) and its body with that id."""
    base = qid = f"suggestion-{suggestion_id}"
    n = 1
    while qid in taken:
        n += 1
        qid = f"{base}-{n}"
    question = json.loads(body)
    return qid, json.dumps(
        {"id": qid, **{k: v for k, v in question.items() if k != "id"}}, ensure_ascii=False, separators=(",", ":")
    )


def pack_full(pack: str, packs: int, questions: int | None, max_packs: int, max_questions: int) -> None:
    """PackError when one more question cannot join `pack` (questions None: the pack does not exist yet)."""
    if questions is None and packs >= max_packs:
        raise PackError(f"This space has {packs} packs, the most it may hold; remove one before approving.")
    if questions is not None and questions >= max_questions:
        raise PackError(f"The pack {pack} has {questions:,} questions, the most a pack may hold.")
