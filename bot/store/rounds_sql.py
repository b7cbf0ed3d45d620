"""Rounds and answers in SQL written once for both engines."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any

from bot.daily.values import PastRound
from bot.kernel.values import (
    Answer,
    ChannelRef,
    Round,
    RoundKind,
)
from bot.store.base import SqlBase
from bot.store.rows import (
    ANSWER_COLUMNS,
    ROUND_COLUMNS,
    ROUND_COLUMNS_OF_R,
    answer_from_row,
    asked_where,
    round_from_row,
)

IDS_PER_STATEMENT = 500  # ids in one IN (...) list (SQLite allows 32,766 parameters a statement)
# the rounds posted as messages of one platform, each with its channel's reaction setting (NULL: not stored);
# {among}: which messages (RoundSql._read_among)
REACTION_ROUNDS = (
    f"SELECT {ROUND_COLUMNS_OF_R}, c.reactions FROM rounds r LEFT JOIN channels c "
    "ON c.platform = r.platform AND c.channel_id = r.channel_id "
    "WHERE r.platform = ? AND r.message_id IS NOT NULL AND {among}"
)


def by_platform(messages: Sequence[tuple[str, str]]) -> dict[str, list[str]]:
    """(platform, message id) pairs as each platform's distinct message ids."""
    ids: dict[str, set[str]] = {}
    for platform, message_id in messages:
        ids.setdefault(platform, set()).add(message_id)
    return {platform: sorted(each) for platform, each in ids.items()}


def reaction_rows(rows: Iterable[Any]) -> dict[tuple[str, str], tuple[Round, bool]]:
    """REACTION_ROUNDS' rows by (platform, message id): the latest round of each (a message posted again belongs
    to its latest round), and whether its channel takes reaction answers."""
    found: dict[tuple[str, str], tuple[Round, bool]] = {}
    for row in rows:
        round_ = round_from_row(row[: len(row) - 1])
        reactions = row[len(row) - 1]
        key = (round_.ref.platform, str(round_.message_id))
        if key not in found or found[key][0].id < round_.id:
            found[key] = (round_, reactions is None or bool(reactions))
    return found


class RoundSql(SqlBase):
    """Rounds, their answers and the questions a space has been asked."""

    async def open_daily_rounds(self, ref: ChannelRef | None = None, *, unpromised: bool = False) -> list[Round]:
        only = " AND closes_at IS NULL" if unpromised else ""
        if ref is None:
            # sorted here, not by ORDER BY id: for that order SQLite's planner read every round (the whole
            # history) instead of the partial index of the open ones
            rows = await self._read(
                f"SELECT {ROUND_COLUMNS} FROM rounds WHERE revealed_at IS NULL AND kind = 'daily'{only}"
            )
            return sorted(map(round_from_row, rows), key=lambda r: r.id)
        rows = await self._read(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE platform = ? AND channel_id = ? "
            f"AND revealed_at IS NULL AND kind = 'daily'{only} ORDER BY id",
            (ref.platform, ref.channel_id),
        )
        return [round_from_row(r) for r in rows]

    async def create_practice_round(
        self, ref: ChannelRef, user_id: str, question_id: str, topic: str, opened_at: dt.datetime
    ) -> Round:
        rows = await self._atomic(
            "INSERT INTO rounds (kind, platform, space_id, channel_id, user_id, question_id, topic, opened_at) "
            f"VALUES ('practice',?,?,?,?,?,?,?) RETURNING {ROUND_COLUMNS}",
            (ref.platform, ref.space_id, ref.channel_id, user_id, question_id, topic, self._ts(opened_at)),
        )
        return round_from_row(rows[0])

    async def get_round(self, round_id: int) -> Round | None:
        row = await self._first(f"SELECT {ROUND_COLUMNS} FROM rounds WHERE id = ?", (round_id,))
        return round_from_row(row) if row else None

    async def get_rounds(self, round_ids: Sequence[int]) -> list[Round | None]:
        sql = f"SELECT {ROUND_COLUMNS} FROM rounds WHERE {{among}}"
        rows = await self._read_among(sql, (), "id", sorted(set(round_ids)), "bigint")
        found = {round_.id: round_ for round_ in map(round_from_row, rows)}
        return [found.get(rid) for rid in round_ids]

    async def _read_among(
        self, sql: str, params: Sequence[Any], column: str, values: Sequence[Any], kind: str
    ) -> list[Any]:
        """The rows of `sql` (`params`, then the values) whose `{among}` is `column` among `values`: here in IN
        lists of IDS_PER_STATEMENT; PostgreSQL reads them with one array of `kind` (its element type)."""
        rows: list[Any] = []
        for k in range(0, len(values), IDS_PER_STATEMENT):
            chunk = values[k : k + IDS_PER_STATEMENT]
            among = f"{column} IN ({','.join('?' * len(chunk))})"
            rows += await self._read(sql.format(among=among), (*params, *chunk))
        return rows

    async def latest_daily_round(self, ref: ChannelRef) -> Round | None:
        row = await self._first(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE platform = ? AND channel_id = ? AND kind = 'daily' "
            "ORDER BY local_date DESC LIMIT 1",
            (ref.platform, ref.channel_id),
        )
        return round_from_row(row) if row else None

    async def set_message_id(self, round_id: int, message_id: str) -> None:
        await self._atomic("UPDATE rounds SET message_id = ? WHERE id = ?", (message_id, round_id))

    async def round_by_message(self, platform: str, message_id: str) -> Round | None:
        row = await self._first(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE platform = ? AND message_id = ? ORDER BY id DESC LIMIT 1",
            (platform, message_id),
        )
        return round_from_row(row) if row else None

    async def reaction_rounds(self, messages: Sequence[tuple[str, str]]) -> list[tuple[Round, bool] | None]:
        found: dict[tuple[str, str], tuple[Round, bool]] = {}
        for platform, ids in by_platform(messages).items():
            found.update(
                reaction_rows(await self._read_among(REACTION_ROUNDS, (platform,), "r.message_id", ids, "text"))
            )
        return [found.get(message) for message in messages]

    async def question_counts(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> dict[str, int]:
        where, params = asked_where(platform, space_id, kind, user_id, "?")
        rows = await self._read(f"SELECT question_id, COUNT(*) FROM rounds WHERE {where} GROUP BY question_id", params)
        return {r[0]: int(r[1]) for r in rows}

    async def last_question_id(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> str | None:
        where, params = asked_where(platform, space_id, kind, user_id, "?")
        row = await self._first(f"SELECT question_id FROM rounds WHERE {where} ORDER BY id DESC LIMIT 1", params)
        return row[0] if row else None

    async def question_history(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> tuple[dict[str, int], str | None]:
        where, params = asked_where(platform, space_id, kind, user_id, "?")
        rows = await self._read(
            f"SELECT question_id, COUNT(*), MAX(id) FROM rounds WHERE {where} GROUP BY question_id", params
        )
        last = max(rows, key=lambda r: int(r[2]))[0] if rows else None  # the question of the latest round
        return {r[0]: int(r[1]) for r in rows}, last

    async def open_channel_question_ids(self, platform: str, space_id: str) -> set[str]:
        rows = await self._read(
            "SELECT question_id FROM rounds WHERE platform = ? AND space_id = ? AND kind IN ('daily', 'live') "
            "AND revealed_at IS NULL",
            (platform, space_id),
        )
        return {r[0] for r in rows}

    async def set_reveal_at(self, round_id: int, at: dt.datetime) -> None:
        await self._atomic(
            "UPDATE rounds SET closes_at = ? WHERE id = ? AND closes_at IS NULL AND revealed_at IS NULL",
            (self._ts(at), round_id),
        )

    async def get_answer(self, round_id: int, user_id: str) -> Answer | None:
        row = await self._first(
            f"SELECT {ANSWER_COLUMNS} FROM answers WHERE round_id = ? AND user_id = ?", (round_id, user_id)
        )
        return answer_from_row(row) if row else None

    async def round_answers(self, round_id: int) -> list[Answer]:
        rows = await self._read(
            f"SELECT {ANSWER_COLUMNS} FROM answers WHERE round_id = ? ORDER BY answered_at, user_id", (round_id,)
        )
        return [answer_from_row(r) for r in rows]

    async def past_daily_rounds(
        self, platform: str, space_id: str, user_id: str, *, limit: int, offset: int = 0, channel_id: str | None = None
    ) -> list[PastRound]:
        one = " AND r.channel_id = ?" if channel_id is not None else ""
        rows = await self._read(
            f"SELECT {ROUND_COLUMNS_OF_R}, (SELECT a.choice FROM answers a WHERE a.round_id = r.id AND a.user_id = ?) "
            "FROM rounds r WHERE r.platform = ? AND r.space_id = ? AND r.kind = 'daily' AND r.revealed_at IS NOT NULL "
            f"AND r.post_state = 'sent'{one} ORDER BY r.local_date DESC, r.id DESC LIMIT ? OFFSET ?",
            (user_id, platform, space_id, *([channel_id] if channel_id is not None else []), limit, offset),
        )
        rounds = [(round_from_row(tuple(row)[:-1]), tuple(row)[-1]) for row in rows]
        chosen: dict[int, dict[int, int]] = {round_.id: {} for round_, _ in rounds}
        sql = "SELECT round_id, choice, COUNT(*) FROM answers WHERE {among} GROUP BY round_id, choice"
        for rid, choice, count in await self._read_among(sql, (), "round_id", list(chosen), "bigint"):
            chosen[int(rid)][int(choice)] = int(count)
        return [PastRound(r, chosen[r.id], None if mine is None else int(mine)) for r, mine in rounds]

    async def answer_counts(self, round_ids: Sequence[int]) -> dict[int, int]:
        sql = "SELECT round_id, COUNT(*) FROM answers WHERE {among} GROUP BY round_id"
        rows = await self._read_among(sql, (), "round_id", round_ids, "bigint")
        return {int(r[0]): int(r[1]) for r in rows}

    async def mark_unsure(self, round_id: int, user_id: str) -> None:
        await self._atomic(
            "INSERT INTO answer_doubts (round_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING", (round_id, user_id)
        )
