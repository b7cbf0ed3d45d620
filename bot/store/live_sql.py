"""Live games on SQL, written once for both stores (bot.live.store.LiveStore): the game rows and their due
steps, claimed with a lease by one UPDATE (a second process's UPDATE of the same row waits for the first and
then finds the lease taken), each question's round (kind live), its points written once, and the space's
live board folded once per game.

Statements use numbered `?N` marks (SQLite takes them as they are, PostgreSQL after `numbered`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from bot.kernel.values import ChannelRef, Round, SpaceFilter
from bot.live.values import LiveGame, LiveQuestion, LiveStep, NewLiveGame, Standing
from bot.store.base import SqlBase, SqlTx
from bot.store.rows import ROUND_COLUMNS, from_ts, round_from_row

GAME_COLUMNS = (
    "id, platform, space_id, channel_id, starter_id, total, seconds, topic, started_at, step, position, due_at, "
    "attempts, stopped_by, ended_at"
)
_RUNNING = "step <> 'done'"
# forget-me (bot.store.learner_sql): the learner's place on the space's live board goes too (their answers go
# with every other answer of theirs)
FORGET_LIVE: tuple[tuple[str, str], ...] = (
    ("live", "DELETE FROM live_scores WHERE platform = ?1 AND space_id = ?2 AND user_id = ?3"),
)


def game_from_row(row: Any) -> LiveGame:
    return LiveGame(
        id=int(row[0]),
        ref=ChannelRef(row[1], row[2], row[3]),
        starter_id=row[4],
        total=int(row[5]),
        seconds=int(row[6]),
        topic=row[7],
        started_at=from_ts(row[8]),
        step=LiveStep(row[9]),
        position=int(row[10]),
        due_at=from_ts(row[11]) if row[11] is not None else None,
        attempts=int(row[12]),
        stopped_by=row[13],
        ended_at=from_ts(row[14]) if row[14] is not None else None,
    )


class LiveSql(SqlBase):
    """The live games' methods of the Store port."""

    async def start_live_game(self, game: NewLiveGame) -> LiveGame | None:
        ref = game.ref
        rows = await self._atomic(
            "INSERT INTO live_games (platform, space_id, channel_id, starter_id, total, seconds, topic, started_at, "
            "step, position, due_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'post', 0, ?8) "
            f"ON CONFLICT DO NOTHING RETURNING {GAME_COLUMNS}",
            (
                ref.platform,
                ref.space_id,
                ref.channel_id,
                game.starter_id,
                game.total,
                game.seconds,
                game.topic,
                self._ts(game.started_at),
            ),
        )
        return game_from_row(rows[0]) if rows else None

    async def running_live_game(self, ref: ChannelRef) -> LiveGame | None:
        row = await self._first(
            f"SELECT {GAME_COLUMNS} FROM live_games WHERE platform = ?1 AND channel_id = ?2 AND {_RUNNING}",
            (ref.platform, ref.channel_id),
        )
        return game_from_row(row) if row is not None else None

    async def get_live_game(self, game_id: int) -> LiveGame | None:
        row = await self._first(f"SELECT {GAME_COLUMNS} FROM live_games WHERE id = ?1", (game_id,))
        return game_from_row(row) if row is not None else None

    async def claim_live_games(
        self,
        now: dt.datetime,
        lease_until: dt.datetime,
        limit: int,
        spaces: SpaceFilter | None = None,
        *,
        game_id: int | None = None,
    ) -> list[LiveGame]:
        due = f"{_RUNNING} AND due_at <= ?2 AND (claimed_until IS NULL OR claimed_until <= ?2)"
        params: list[object] = [self._ts(lease_until), self._ts(now), limit]
        only = ""
        if game_id is not None:
            only = " AND id = ?4"
            params.append(game_id)
        where, space_params = self._space_filter(spaces, len(params) + 1)
        rows = await self._atomic(
            f"UPDATE live_games SET claimed_until = ?1 WHERE id IN (SELECT id FROM live_games WHERE {due}{only}"
            f"{where} ORDER BY due_at, id LIMIT ?3) AND {due} RETURNING {GAME_COLUMNS}",
            (*params, *space_params),
        )
        games = [game_from_row(r) for r in rows]
        return sorted(games, key=lambda g: (g.due_at or g.started_at, g.id))

    async def next_live_due(self, spaces: SpaceFilter | None = None) -> dt.datetime | None:
        where, params = self._space_filter(spaces, 1)
        row = await self._first(
            "SELECT MIN(CASE WHEN claimed_until IS NOT NULL AND claimed_until > due_at THEN claimed_until "
            f"ELSE due_at END) FROM live_games WHERE {_RUNNING}{where}",
            params,
        )
        return from_ts(row[0]) if row is not None and row[0] is not None else None

    async def live_questions(self, game_id: int) -> list[LiveQuestion]:
        rows = await self._read(
            "SELECT q.game_id, q.position, q.round_id, r.question_id, q.scored FROM live_questions q "
            "JOIN rounds r ON r.id = q.round_id WHERE q.game_id = ?1 ORDER BY q.position",
            (game_id,),
        )
        return [LiveQuestion(int(r[0]), int(r[1]), int(r[2]), r[3], bool(r[4])) for r in rows]

    async def open_live_question(
        self,
        game_id: int,
        position: int,
        question_id: str,
        topic: str,
        opened_at: dt.datetime,
        closes_at: dt.datetime,
    ) -> Round:
        async with self._write_tx() as tx:
            found = await tx.rows(
                "SELECT round_id FROM live_questions WHERE game_id = ?1 AND position = ?2", (game_id, position)
            )
            if found:
                return await _round(tx, int(found[0][0]))
            game = await tx.rows("SELECT platform, space_id, channel_id FROM live_games WHERE id = ?1", (game_id,))
            if not game:
                raise LookupError(f"no live game {game_id}")
            platform, space_id, channel_id = game[0]
            rows = await tx.rows(
                "INSERT INTO rounds (kind, platform, space_id, channel_id, question_id, topic, opened_at, closes_at, "
                f"post_state) VALUES ('live', ?1, ?2, ?3, ?4, ?5, ?6, ?7, 'sent') RETURNING {ROUND_COLUMNS}",
                (platform, space_id, channel_id, question_id, topic, self._ts(opened_at), self._ts(closes_at)),
            )
            round_ = round_from_row(rows[0])
            await tx.run(
                "INSERT INTO live_questions (game_id, position, round_id) VALUES (?1, ?2, ?3)",
                (game_id, position, round_.id),
            )
            return round_

    async def record_live_post(
        self, round_id: int, message_id: str, opened_at: dt.datetime, closes_at: dt.datetime
    ) -> Round:
        async with self._write_tx() as tx:
            await tx.run(
                "UPDATE rounds SET message_id = ?2, opened_at = ?3, closes_at = ?4 WHERE id = ?1 AND kind = 'live' "
                "AND message_id IS NULL AND revealed_at IS NULL",
                (round_id, message_id, self._ts(opened_at), self._ts(closes_at)),
            )
            return await _round(tx, round_id)

    async def advance_live_game(
        self,
        game_id: int,
        step: LiveStep,
        position: int,
        to_step: LiveStep,
        to_position: int,
        due_at: dt.datetime | None,
        *,
        attempts: int = 0,
    ) -> bool:
        rows = await self._atomic(
            "UPDATE live_games SET step = ?4, position = ?5, due_at = ?6, attempts = ?7, claimed_until = NULL "
            "WHERE id = ?1 AND step = ?2 AND position = ?3 RETURNING 1",
            (game_id, step.value, position, to_step.value, to_position, self._maybe_ts(due_at), attempts),
        )
        return bool(rows)

    async def stop_live_game(self, game_id: int, user_id: str, now: dt.datetime) -> LiveGame | None:
        async with self._write_tx() as tx:
            rows = await tx.rows(
                "UPDATE live_games SET stopped_by = ?2, due_at = CASE WHEN step IN ('post', 'close') THEN ?3 "
                f"ELSE due_at END WHERE id = ?1 AND {_RUNNING} AND stopped_by IS NULL RETURNING {GAME_COLUMNS}",
                (game_id, user_id, self._ts(now)),
            )
            if not rows:
                return None
            game = game_from_row(rows[0])
            if game.step is LiveStep.CLOSE:  # the open question takes no answer from now on
                await tx.run(
                    "UPDATE rounds SET closes_at = ?1 WHERE id IN (SELECT round_id FROM live_questions "
                    "WHERE game_id = ?2 AND position = ?3) AND revealed_at IS NULL AND closes_at > ?1",
                    (self._ts(now), game_id, game.position),
                )
            return game

    async def score_live_question(self, game_id: int, position: int, points: Mapping[str, int]) -> bool:
        async with self._write_tx() as tx:
            rows = await tx.rows(
                "UPDATE live_questions SET scored = ?3 WHERE game_id = ?1 AND position = ?2 AND NOT scored "
                "RETURNING round_id",
                (game_id, position, True),
            )
            if not rows:
                return False
            round_id = int(rows[0][0])
            if points:
                await tx.run_many(
                    "UPDATE answers SET points = ?1 WHERE round_id = ?2 AND user_id = ?3",
                    [(int(p), round_id, user) for user, p in sorted(points.items())],
                )
            return True

    async def live_standings(self, game_id: int) -> list[Standing]:
        rows = await self._read(
            "SELECT a.user_id, SUM(a.points), SUM(CASE WHEN a.correct THEN 1 ELSE 0 END), COUNT(*) "
            "FROM live_questions q JOIN answers a ON a.round_id = q.round_id WHERE q.game_id = ?1 AND q.scored "
            "GROUP BY a.user_id",
            (game_id,),
        )
        return [Standing(r[0], int(r[1] or 0), int(r[2]), int(r[3])) for r in rows]

    async def finish_live_game(
        self, game_id: int, ended_at: dt.datetime, standings: Sequence[Standing], won_by: Collection[str]
    ) -> bool:
        async with self._write_tx() as tx:
            rows = await tx.rows(
                "UPDATE live_games SET ended_at = ?2 WHERE id = ?1 AND ended_at IS NULL RETURNING platform, space_id",
                (game_id, self._ts(ended_at)),
            )
            if not rows:
                return False
            platform, space_id = rows[0]
            if standings:
                await tx.run_many(
                    "INSERT INTO live_scores (platform, space_id, user_id, points, games, wins) "
                    "VALUES (?1, ?2, ?3, ?4, 1, ?5) ON CONFLICT (platform, space_id, user_id) DO UPDATE SET "
                    "points = live_scores.points + excluded.points, games = live_scores.games + 1, "
                    "wins = live_scores.wins + excluded.wins",
                    [
                        (platform, space_id, s.user_id, s.points, int(s.user_id in won_by))
                        for s in sorted(standings, key=lambda s: s.user_id)
                    ],
                )
            return True

    async def live_board(self, platform: str, space_id: str, limit: int) -> list[Standing]:
        rows = await self._read(
            "SELECT user_id, points, games, wins FROM live_scores WHERE platform = ?1 AND space_id = ?2 "
            f"ORDER BY points DESC, wins DESC, user_id{self.text_order} LIMIT ?3",
            (platform, space_id, limit),
        )
        return [Standing(r[0], int(r[1]), games=int(r[2]), wins=int(r[3])) for r in rows]

    async def live_standing(self, platform: str, space_id: str, user_id: str) -> tuple[int, Standing] | None:
        row = await self._first(
            "SELECT s.user_id, s.points, s.games, s.wins, (SELECT COUNT(*) FROM live_scores o "
            "WHERE o.platform = s.platform AND o.space_id = s.space_id AND o.points > s.points) "
            "FROM live_scores s WHERE s.platform = ?1 AND s.space_id = ?2 AND s.user_id = ?3",
            (platform, space_id, user_id),
        )
        if row is None:
            return None
        return int(row[4]) + 1, Standing(row[0], int(row[1]), games=int(row[2]), wins=int(row[3]))

    async def recent_questions(self, platform: str, space_id: str, since: dt.datetime) -> dict[str, dt.datetime]:
        rows = await self._read(
            "SELECT question_id, MAX(opened_at) FROM rounds WHERE platform = ?1 AND space_id = ?2 "
            "AND kind IN ('daily', 'live') AND opened_at >= ?3 GROUP BY question_id",
            (platform, space_id, self._ts(since)),
        )
        return {r[0]: from_ts(r[1]) for r in rows}


async def _round(tx: SqlTx, round_id: int) -> Round:
    rows = await tx.rows(f"SELECT {ROUND_COLUMNS} FROM rounds WHERE id = ?1", (round_id,))
    return round_from_row(rows[0])
