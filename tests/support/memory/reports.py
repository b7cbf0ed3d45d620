"""Members' reports of a question's problems and the questions they hold
(bot.reports.store.ReportStore)."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import asdict, replace

from bot.reports.values import NewReport, Report, ReportWrite
from bot.store.reports_sql import HOLD_ACTIONS
from tests.support.memory.tables import MemoryTables, utc


class MemoryReports(MemoryTables):
    """Reports in id order; the limits are decided here, in one call, as in a transaction."""

    async def add_report(
        self, report: NewReport, *, since: dt.datetime, daily_limit: int
    ) -> tuple[ReportWrite, int | None]:
        t = await self._db()
        created, since = utc(report.created_at), utc(since)
        space = [x for x in t.reports.values() if (x.platform, x.space_id) == (report.platform, report.space_id)]
        mine = [x for x in space if x.reporter == report.reporter]
        if any(x.is_open and x.question_id == report.question_id for x in mine):
            return ReportWrite.DUPLICATE, None
        if sum(1 for x in mine if x.created_at >= since) >= daily_limit:
            return ReportWrite.LIMIT, None
        t.last_report_id += 1
        t.reports[t.last_report_id] = Report(**asdict(replace(report, created_at=created)), id=t.last_report_id)
        return ReportWrite.ADDED, t.last_report_id

    async def reports(self, platform: str, space_id: str, *, open_only: bool = True, limit: int = 50) -> list[Report]:
        t = await self._db()
        found = [
            x
            for x in t.reports.values()
            if (x.platform, x.space_id) == (platform, space_id) and (x.is_open or not open_only)
        ]
        return found[:limit]

    async def get_report(self, platform: str, space_id: str, report_id: int) -> Report | None:
        found = (await self._db()).reports.get(report_id)
        return found if found is not None and (found.platform, found.space_id) == (platform, space_id) else None

    async def resolve_reports(
        self, platform: str, space_id: str, question_id: str, resolution: str, by: str, now: dt.datetime
    ) -> int:
        t = await self._db()
        now = utc(now)
        closed = 0
        for rid, x in list(t.reports.items()):
            if (x.platform, x.space_id, x.question_id) == (platform, space_id, question_id) and x.is_open:
                t.reports[rid] = replace(x, status="resolved", resolution=resolution, resolved_by=by, resolved_at=now)
                closed += 1
        key = (platform, space_id, question_id)
        if resolution in HOLD_ACTIONS:
            t.holds.setdefault(key, (now, by))
        else:
            t.holds.pop(key, None)
        return closed

    async def held_question_ids(self, platform: str, space_id: str, threshold: int) -> set[str]:
        t = await self._db()
        open_counts = Counter(
            x.question_id for x in t.reports.values() if (x.platform, x.space_id) == (platform, space_id) and x.is_open
        )
        held = {q for q, n in open_counts.items() if n >= threshold}
        return held | {q for p, s, q in t.holds if (p, s) == (platform, space_id)}

    async def report_counts(self, platform: str, space_id: str) -> dict[str, tuple[int, int]]:
        t = await self._db()
        out: dict[str, tuple[int, int]] = {}
        for x in t.reports.values():
            if (x.platform, x.space_id) == (platform, space_id):
                every, still = out.get(x.question_id, (0, 0))
                out[x.question_id] = (every + 1, still + int(x.is_open))
        return out
