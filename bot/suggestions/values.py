"""Members' question suggestions."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum

from bot.kernel.values import ChannelRef


class SuggestionStatus(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"


@dataclass(frozen=True)
class Suggestion:
    """A question a member suggested (bot.suggestions): its canonical JSON body and its review state."""

    id: int
    ref: ChannelRef  # where it was suggested
    author_id: str
    body: str  # the question in the bank's schema, as canonical JSON (its id is filled in on approval)
    status: SuggestionStatus
    created_at: dt.datetime
    reason: str | None = None  # why it was rejected
    decided_by: str | None = None
    decided_at: dt.datetime | None = None
    question_id: str | None = None  # its id in the pack `suggestions`, once approved
