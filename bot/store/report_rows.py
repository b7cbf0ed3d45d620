"""Row mapping of question reports (bot.reports), shared by both SQL stores."""

from __future__ import annotations

from typing import Any

from bot.model import Report, ReportReason
from bot.store.rows import from_ts

REPORT_COLUMNS = (
    "id, platform, space_id, question_id, pack, reporter, reason, body, created_at, status, resolution, "
    "resolved_by, resolved_at"
)
HOLD_ACTIONS = ("hold", "edit")  # resolutions that keep the question held; keep releases it


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
