"""Members' reports of a question's problems."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from enum import StrEnum


class ReportReason(StrEnum):
    WRONG = "wrong"  # the marked answer is wrong
    UNCLEAR = "unclear"
    TYPO = "typo"
    OTHER = "other"


class ReportWrite(StrEnum):
    """What the store decided about a new report."""

    ADDED = "added"
    LIMIT = "limit"  # the reporter's daily reports in the space are used up
    DUPLICATE = "duplicate"  # the reporter has an open report on this question already


@dataclass(frozen=True)
class NewReport:
    platform: str
    space_id: str
    question_id: str
    pack: str
    reporter: str
    reason: ReportReason
    text: str  # the member's own words, stored and shown as plain text
    created_at: dt.datetime


@dataclass(frozen=True)
class Report(NewReport):
    """A stored report: the new report's fields, its number, and how it was resolved."""

    id: int = field(kw_only=True)
    status: str = "open"  # open | resolved
    resolution: str | None = None  # keep | hold | edit (when resolved)
    resolved_by: str | None = None
    resolved_at: dt.datetime | None = None

    @property
    def is_open(self) -> bool:
        return self.status == "open"
