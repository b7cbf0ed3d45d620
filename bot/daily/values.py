"""The daily game's durable work: claims of the scheduler's tick and the outcomes of its sends."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from bot.kernel.selection import SpaceRates
from bot.kernel.values import Answer, ChannelConfig, ChannelRef, DueChannel, Round


@dataclass(frozen=True)
class SendClaim:
    """One process's claim to send a round's question (or reveal) now.

    `doubtful`: an earlier attempt was claimed and never finished (the process stopped mid-send), so the
    message may have gone out already (the platform is asked: bot.daily.outcomes.earlier_send); `doubts`
    counts such attempts."""

    round: Round
    attempts: int
    doubtful: bool
    doubts: int


@dataclass(frozen=True)
class DuePost:
    """A claimed due channel with what its post needs, read in the claim's trip: the channel's settings
    (None: it was deleted) and its open daily rounds (older ones the post may have to reveal first)."""

    due: DueChannel
    config: ChannelConfig | None
    open_rounds: tuple[Round, ...]


@dataclass(frozen=True)
class RevealedRound:
    """A daily round just revealed in a batch, with what its reveal post needs: its answers, its channel's
    settings and this process's claim on the reveal post (None: another process holds it)."""

    round: Round
    answers: tuple[Answer, ...]
    config: ChannelConfig | None
    claim: SendClaim | None


@dataclass(frozen=True)
class PastRound:
    """A daily round members saw and that is revealed, with how its channel answered it (answers per choice
    index) and the asker's own choice (None: they did not answer it)."""

    round: Round
    chosen: dict[int, int]
    mine: int | None


@dataclass(frozen=True)
class DailyClaim:
    """Store.claim_daily_round's arguments: one (channel, local date) slot to claim with its question."""

    ref: ChannelRef
    local_date: dt.date
    question_id: str
    topic: str
    opened_at: dt.datetime
    closes_at: dt.datetime | None
    lease_until: dt.datetime | None = None


@dataclass(frozen=True)
class PostFinish:
    """The outcome of one question send (Store.finish_post's arguments)."""

    round_id: int
    state: str
    message_id: str | None = None
    retry_at: dt.datetime | None = None


@dataclass(frozen=True)
class RevealFinish:
    """The outcome of one reveal send (Store.finish_reveal's arguments)."""

    round_id: int
    state: str
    retry_at: dt.datetime | None = None


@dataclass(frozen=True)
class DueFinish:
    """A claimed due channel released (Store.finish_due_channel's arguments)."""

    ref: ChannelRef
    due_at: dt.datetime
    next_at: dt.datetime | None


@dataclass(frozen=True)
class PickInputs:
    """What a space's daily pick reads (Store.daily_pick_inputs): how often each question was asked there as a
    daily and the latest one (question_history), the questions held from selection (held_question_ids) and
    how each channel answered each question (daily_answer_rates)."""

    counts: dict[str, int]
    last: str | None
    held: set[str]
    rates: SpaceRates
