"""What reports need of the store."""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from bot.kernel.store import RoundReads
from bot.reports.values import NewReport, Report, ReportWrite


class ReportStore(Protocol):
    """Members' reports of a question's problems, and the questions they hold."""

    # reports of a question's problems (bot.reports)
    async def add_report(
        self, report: NewReport, *, since: dt.datetime, daily_limit: int
    ) -> tuple[ReportWrite, int | None]:
        """Store a report and return (ADDED, its id); (DUPLICATE, None) when the reporter has an open report on
        the question, (LIMIT, None) when they made `daily_limit` reports in the space since `since`. One
        decision, also across processes; nothing is stored when refused."""
        ...

    async def reports(self, platform: str, space_id: str, *, open_only: bool = True, limit: int = 50) -> list[Report]:
        """The space's reports (open ones, or all), oldest first."""
        ...

    async def get_report(self, platform: str, space_id: str, report_id: int) -> Report | None: ...

    async def resolve_reports(
        self, platform: str, space_id: str, question_id: str, resolution: str, by: str, now: dt.datetime
    ) -> int:
        """Close the question's open reports with `resolution` (keep releases a hold; hold and edit hold the
        question until a keep); how many were closed."""
        ...

    async def held_question_ids(self, platform: str, space_id: str, threshold: int) -> set[str]:
        """Questions not to select in the space: `threshold` open reports or more, or held by an admin."""
        ...

    async def report_counts(self, platform: str, space_id: str) -> dict[str, tuple[int, int]]:
        """Per reported question: (reports, open reports)."""
        ...


class ReportDeskStore(ReportStore, RoundReads, Protocol):
    """What the report desk reads and writes: reports, and the rounds they are about."""
