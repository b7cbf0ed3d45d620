"""Live games (bot.live.store.LiveStore): what bot.store.live_sql does on SQL, on the fake's tables. Each call
is atomic (no await after `_db`), as each SQL method is one statement or one transaction."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from bot.kernel.values import ChannelRef, Round, RoundKind, SpaceFilter
from bot.live.values import LiveGame, LiveQuestion, LiveStep, NewLiveGame, Standing
from bot.mydata.forget import Forgotten
from tests.support.memory.tables import MemoryTables, Tables, in_space, utc


def _running(t: Tables, ref: ChannelRef) -> LiveGame | None:
    return next(
        (
            g
            for g in t.live_games.values()
            if g.running and (g.ref.platform, g.ref.channel_id) == (ref.platform, ref.channel_id)
        ),
        None,
    )


class MemoryLive(MemoryTables):
    """Games with their due steps and leases, their questions' rounds, and the spaces' live boards."""

    async def start_live_game(self, game: NewLiveGame) -> LiveGame | None:
        t = await self._db()
        if _running(t, game.ref) is not None:
            return None
        started = utc(game.started_at)
        stored = LiveGame(
            id=max(t.live_games, default=0) + 1,
            ref=game.ref,
            starter_id=game.starter_id,
            total=game.total,
            seconds=game.seconds,
            topic=game.topic,
            started_at=started,
            step=LiveStep.POST,
            position=0,
            due_at=started,
        )
        t.live_games[stored.id] = stored
        return stored

    async def running_live_game(self, ref: ChannelRef) -> LiveGame | None:
        return _running(await self._db(), ref)

    async def get_live_game(self, game_id: int) -> LiveGame | None:
        return (await self._db()).live_games.get(game_id)

    async def claim_live_games(
        self,
        now: dt.datetime,
        lease_until: dt.datetime,
        limit: int,
        spaces: SpaceFilter | None = None,
        *,
        game_id: int | None = None,
    ) -> list[LiveGame]:
        t = await self._db()
        now, lease_until = utc(now), utc(lease_until)
        due = [
            g
            for g in t.live_games.values()
            if g.running
            and g.due_at is not None
            and g.due_at <= now
            and (g.id not in t.live_claims or t.live_claims[g.id] <= now)
            and (game_id is None or g.id == game_id)
            and (spaces is None or spaces(g.ref))
        ]
        due.sort(key=lambda g: (g.due_at, g.id))
        for g in due[:limit]:
            t.live_claims[g.id] = lease_until
        return due[:limit]

    async def next_live_due(self, spaces: SpaceFilter | None = None) -> dt.datetime | None:
        t = await self._db()
        times = []
        for g in t.live_games.values():
            if not g.running or g.due_at is None or (spaces is not None and not spaces(g.ref)):
                continue
            lease = t.live_claims.get(g.id)
            times.append(lease if lease is not None and lease > g.due_at else g.due_at)
        return min(times, default=None)

    async def live_questions(self, game_id: int) -> list[LiveQuestion]:
        t = await self._db()
        mine = [q for (gid, _), q in t.live_questions.items() if gid == game_id]
        return sorted(mine, key=lambda q: q.position)

    async def open_live_question(
        self,
        game_id: int,
        position: int,
        question_id: str,
        topic: str,
        opened_at: dt.datetime,
        closes_at: dt.datetime,
    ) -> Round:
        t = await self._db()
        found = t.live_questions.get((game_id, position))
        if found is not None:
            return t.rounds[found.round_id]
        game = t.live_games.get(game_id)
        if game is None:
            raise LookupError(f"no live game {game_id}")
        round_ = Round(
            id=t.last_id + 1,
            kind=RoundKind.LIVE,
            ref=game.ref,
            question_id=question_id,
            topic=topic,
            opened_at=utc(opened_at),
            closes_at=utc(closes_at),
        )
        t.last_id = round_.id
        t.rounds[round_.id] = round_
        t.live_questions[(game_id, position)] = LiveQuestion(game_id, position, round_.id, question_id)
        return round_

    async def record_live_post(
        self, round_id: int, message_id: str, opened_at: dt.datetime, closes_at: dt.datetime
    ) -> Round:
        t = await self._db()
        round_ = t.rounds[round_id]
        if round_.kind is RoundKind.LIVE and round_.message_id is None and round_.revealed_at is None:
            round_ = replace(round_, message_id=message_id, opened_at=utc(opened_at), closes_at=utc(closes_at))
            t.rounds[round_id] = round_
        return round_

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
        t = await self._db()
        game = t.live_games.get(game_id)
        if game is None or (game.step, game.position) != (step, position):
            return False
        t.live_games[game_id] = replace(
            game,
            step=to_step,
            position=to_position,
            due_at=utc(due_at) if due_at is not None else None,
            attempts=attempts,
        )
        t.live_claims.pop(game_id, None)
        return True

    async def stop_live_game(self, game_id: int, user_id: str, now: dt.datetime) -> LiveGame | None:
        t = await self._db()
        now = utc(now)
        game = t.live_games.get(game_id)
        if game is None or not game.running or game.stopped_by is not None:
            return None
        due = now if game.step in (LiveStep.POST, LiveStep.CLOSE) else game.due_at
        game = t.live_games[game_id] = replace(game, stopped_by=user_id, due_at=due)
        asked = t.live_questions.get((game_id, game.position))
        if game.step is LiveStep.CLOSE and asked is not None:
            round_ = t.rounds[asked.round_id]
            if round_.revealed_at is None and round_.closes_at is not None and round_.closes_at > now:
                t.rounds[round_.id] = replace(round_, closes_at=now)
        return game

    async def score_live_question(self, game_id: int, position: int, points: Mapping[str, int]) -> bool:
        t = await self._db()
        asked = t.live_questions.get((game_id, position))
        if asked is None or asked.scored:
            return False
        t.live_questions[(game_id, position)] = replace(asked, scored=True)
        answers = t.answers.get(asked.round_id, {})
        for user, p in points.items():
            if user in answers:
                answers[user] = replace(answers[user], points=int(p))
        return True

    async def live_standings(self, game_id: int) -> list[Standing]:
        t = await self._db()
        totals: dict[str, tuple[int, int, int]] = {}
        for (gid, _), asked in t.live_questions.items():
            if gid != game_id or not asked.scored:
                continue
            for a in t.answers.get(asked.round_id, {}).values():
                points, right, answered = totals.get(a.user_id, (0, 0, 0))
                totals[a.user_id] = (points + (a.points or 0), right + int(a.correct), answered + 1)
        return [Standing(user, *values) for user, values in totals.items()]

    async def finish_live_game(
        self, game_id: int, ended_at: dt.datetime, standings: Sequence[Standing], won_by: Collection[str]
    ) -> bool:
        t = await self._db()
        game = t.live_games.get(game_id)
        if game is None or game.ended_at is not None:
            return False
        t.live_games[game_id] = replace(game, ended_at=utc(ended_at))
        for s in standings:
            key = (game.ref.platform, game.ref.space_id, s.user_id)
            old = t.live_scores.get(key, Standing(s.user_id, 0))
            t.live_scores[key] = Standing(
                s.user_id, old.points + s.points, games=old.games + 1, wins=old.wins + int(s.user_id in won_by)
            )
        return True

    async def live_board(self, platform: str, space_id: str, limit: int) -> list[Standing]:
        t = await self._db()
        rows = [s for (p, sp, _), s in t.live_scores.items() if (p, sp) == (platform, space_id)]
        rows.sort(key=lambda s: (-s.points, -s.wins, s.user_id))
        return rows[:limit]

    async def live_standing(self, platform: str, space_id: str, user_id: str) -> tuple[int, Standing] | None:
        t = await self._db()
        mine = t.live_scores.get((platform, space_id, user_id))
        if mine is None:
            return None
        above = sum(
            1 for (p, sp, _), s in t.live_scores.items() if (p, sp) == (platform, space_id) and s.points > mine.points
        )
        return above + 1, mine

    async def recent_questions(self, platform: str, space_id: str, since: dt.datetime) -> dict[str, dt.datetime]:
        t = await self._db()
        since = utc(since)
        seen: dict[str, dt.datetime] = {}
        for r in t.rounds.values():
            if in_space(r, platform, space_id) and r.kind in (RoundKind.DAILY, RoundKind.LIVE) and r.opened_at >= since:
                seen[r.question_id] = max(seen.get(r.question_id, r.opened_at), r.opened_at)
        return seen

    async def forget_learner(self, platform: str, space_id: str, user_id: str) -> Forgotten:
        forgotten: Forgotten = await super().forget_learner(platform, space_id, user_id)  # type: ignore[misc]
        t = await self._db()
        live = t.live_scores.pop((platform, space_id, user_id), None)  # their place on the space's live board
        return replace(forgotten, live=int(live is not None))
