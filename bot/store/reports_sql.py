"""The reports of a question's problems (bot.reports) in SQL that reads the same on SQLite and PostgreSQL,
written once over a store's `_read` and `_atomic_steps` (see bot.store.base), with their row mapping.

The two decisions (one open report per member and question, the daily limit) are one INSERT ... SELECT
... WHERE in one transaction: SQLite's single writer serializes it; PostgreSQL first takes the reporter's
advisory lock (`_report_lock`), so two processes never both let a sixth report through."""

from __future__ import annotations

import datetime as dt
from typing import Any

from bot.kernel.values import Round
from bot.reports.values import NewReport, Report, ReportReason, ReportWrite
from bot.store.base import SqlBase, Step
from bot.store.rows import ROUND_COLUMNS, from_ts, round_from_row

REPORT_COLUMNS = (
    "id, platform, space_id, question_id, pack, reporter, reason, body, created_at, status, resolution, "
    "resolved_by, resolved_at"
)
HOLD_ACTIONS = ("hold", "edit")  # resolutions that keep the question held; keep releases it
_OPEN_ONE = (
    "SELECT 1 FROM question_reports WHERE platform = ? AND space_id = ? AND question_id = ? AND reporter = ? "
    "AND status = 'open'"
)


def report_from_row(row: Any) -> Report:
    (rid, platform, space_id, question_id, pack, reporter, reason, body, created, status, *rest) = tuple(row)
    resolution, resolved_by, resolved_at = rest
    return Report(
        id=int(rid),
        platform=platform,
        space_id=space_id,
        question_id=question_id,
        pack=pack,
        reporter=reporter,
        reason=ReportReason(reason),
        text=body,
        created_at=from_ts(created),
        status=status,
        resolution=resolution,
        resolved_by=resolved_by,
        resolved_at=from_ts(resolved_at) if resolved_at is not None else None,
    )


def held_sql(spaces: str) -> str:
    """(platform, space id, question id) of the questions held from selection in the spaces `spaces` selects
    (a condition on platform and space_id): a threshold (its mark after the first `spaces`) of open reports or
    more, or held by an admin. Its marks: those of `spaces`, the threshold, those of `spaces` again."""
    return (
        f"SELECT platform, space_id, question_id FROM question_reports WHERE status = 'open' AND ({spaces}) "
        "GROUP BY platform, space_id, question_id HAVING COUNT(*) >= ? "
        f"UNION SELECT platform, space_id, question_id FROM question_holds WHERE {spaces}"
    )


class ReportSql(SqlBase):
    """Store methods of question reports and holds."""

    def _report_lock(self, key: str) -> list[Step]:
        """Statements that serialize one reporter's decisions (none where the engine has one writer)."""
        return []

    async def add_report(
        self, report: NewReport, *, since: dt.datetime, daily_limit: int
    ) -> tuple[ReportWrite, int | None]:
        """Store a report unless the reporter has an open one on the question (DUPLICATE) or has made
        `daily_limit` reports in the space since `since` (LIMIT); one statement decides both."""
        r = report
        mine = (r.platform, r.space_id, r.question_id, r.reporter)
        insert = (
            "INSERT INTO question_reports (platform, space_id, question_id, pack, reporter, reason, body, created_at) "
            f"SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS ({_OPEN_ONE}) AND (SELECT COUNT(*) FROM question_reports "
            "WHERE platform = ? AND space_id = ? AND reporter = ? AND created_at >= ?) < ? RETURNING id"
        )
        values = (r.platform, r.space_id, r.question_id, r.pack, r.reporter, r.reason.value, r.text)
        params = (
            *values,
            self._ts(r.created_at),
            *mine,
            *(r.platform, r.space_id, r.reporter, self._ts(since), daily_limit),
        )
        key = f"{r.platform}\x1f{r.space_id}\x1f{r.reporter}"
        rows = await self._atomic_steps([*self._report_lock(key), (insert, params)])
        if rows:
            return ReportWrite.ADDED, int(rows[0][0])
        duplicate = await self._read(_OPEN_ONE, mine)
        return (ReportWrite.DUPLICATE if duplicate else ReportWrite.LIMIT), None

    async def reports(self, platform: str, space_id: str, *, open_only: bool = True, limit: int = 50) -> list[Report]:
        """The space's reports (open ones only, or all), oldest first, at most `limit`."""
        status = "AND status = 'open' " if open_only else ""
        rows = await self._read(
            f"SELECT {REPORT_COLUMNS} FROM question_reports WHERE platform = ? AND space_id = ? {status}"
            "ORDER BY id LIMIT ?",
            (platform, space_id, limit),
        )
        return [report_from_row(r) for r in rows]

    async def get_report(self, platform: str, space_id: str, report_id: int) -> Report | None:
        rows = await self._read(
            f"SELECT {REPORT_COLUMNS} FROM question_reports WHERE platform = ? AND space_id = ? AND id = ?",
            (platform, space_id, report_id),
        )
        return report_from_row(rows[0]) if rows else None

    async def resolve_reports(
        self, platform: str, space_id: str, question_id: str, resolution: str, by: str, now: dt.datetime
    ) -> int:
        """Close every open report of the question with `resolution`; hold and edit keep the question held
        (until a keep), keep releases it. Returns how many reports were closed. One transaction."""
        question = (platform, space_id, question_id)
        hold: Step = (
            (
                "INSERT INTO question_holds (platform, space_id, question_id, held_at, held_by) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                (*question, self._ts(now), by),
            )
            if resolution in HOLD_ACTIONS
            else ("DELETE FROM question_holds WHERE platform = ? AND space_id = ? AND question_id = ?", question)
        )
        close: Step = (
            "UPDATE question_reports SET status = 'resolved', resolution = ?, resolved_by = ?, resolved_at = ? "
            "WHERE platform = ? AND space_id = ? AND question_id = ? AND status = 'open' RETURNING id",
            (resolution, by, self._ts(now), *question),
        )
        return len(await self._atomic_steps([hold, close]))

    async def held_question_ids(self, platform: str, space_id: str, threshold: int) -> set[str]:
        """Questions held from selection in the space: `threshold` open reports or more, or held by an admin."""
        space = (platform, space_id)
        rows = await self._read(held_sql("platform = ? AND space_id = ?"), (*space, threshold, *space))
        return {r[2] for r in rows}

    async def report_counts(self, platform: str, space_id: str) -> dict[str, tuple[int, int]]:
        """Per reported question of the space: (every report, open reports)."""
        rows = await self._read(
            "SELECT question_id, COUNT(*), SUM(CASE WHEN status = 'open' THEN 1 ELSE 0 END) FROM question_reports "
            "WHERE platform = ? AND space_id = ? GROUP BY question_id",
            (platform, space_id),
        )
        return {r[0]: (int(r[1]), int(r[2])) for r in rows}

    async def latest_practice_round(self, platform: str, space_id: str, user_id: str) -> Round | None:
        """The learner's most recent practice (or review) round in the space."""
        rows = await self._read(
            f"SELECT {ROUND_COLUMNS} FROM rounds WHERE platform = ? AND space_id = ? AND kind = 'practice' "
            "AND user_id = ? ORDER BY id DESC LIMIT 1",
            (platform, space_id, user_id),
        )
        return round_from_row(rows[0]) if rows else None
