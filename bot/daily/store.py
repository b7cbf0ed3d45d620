"""What the daily game needs of the store (each engine implements these; bot.store.ports composes them)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence
from typing import Protocol

from bot.daily.answer_batcher import AnswerWriter
from bot.daily.values import (
    DailyClaim,
    DueFinish,
    DuePost,
    PastRound,
    PickInputs,
    PostFinish,
    RevealedRound,
    RevealFinish,
    SendClaim,
)
from bot.kernel.scoring import Scorer
from bot.kernel.selection import SpaceRates
from bot.kernel.store import ChannelReads, RoundReads
from bot.kernel.values import (
    ChannelConfig,
    ChannelRef,
    DueChannel,
    Round,
    SpaceFilter,
)


class ChannelStore(ChannelReads, Protocol):
    """A channel's saved settings and its next due post."""

    # channels
    async def save_channel(self, config: ChannelConfig) -> None: ...

    # the space's manager role (Discord's manager_role): a setting of the space, kept on each of its channels
    async def manager_role(self, platform: str, space_id: str) -> str | None:
        """The manager role the space's channels carry (the latest saved one's, should they differ), or None."""
        ...

    async def set_manager_role(self, platform: str, space_id: str, role_id: str | None) -> None:
        """Give every channel of the space this manager role (None: off), in one statement."""
        ...

    # durable daily work (every process runs the same tick over these)
    async def set_next_post(self, ref: ChannelRef, at: dt.datetime | None) -> None:
        """The channel's next due post (None: nothing due, e.g. paused); releases any claim on it."""
        ...

    async def get_next_post(self, ref: ChannelRef) -> dt.datetime | None: ...

    async def unscheduled_channels(self, spaces: SpaceFilter | None = None) -> list[ChannelConfig]:
        """Running (unpaused) channels without a next due post (saved before schedules were stored), of
        these spaces (None: all)."""
        ...


class RoundStore(RoundReads, AnswerWriter, Protocol):
    """Rounds, their answers and the questions each space has been asked."""

    # rounds
    async def claim_daily_round(
        self,
        ref: ChannelRef,
        local_date: dt.date,
        question_id: str,
        topic: str,
        opened_at: dt.datetime,
        closes_at: dt.datetime | None,
        *,
        lease_until: dt.datetime | None = None,
    ) -> Round | None:
        """Create the daily round for (channel, local date); None when that slot is already taken.
        With `lease_until` the round is created already claimed for its first send (post_state sending)."""
        ...

    async def set_message_id(self, round_id: int, message_id: str) -> None: ...

    async def set_reveal_at(self, round_id: int, at: dt.datetime) -> None:
        """Give an open daily round without one its promised reveal instant (rounds from before promises)."""
        ...

    async def mark_unsure(self, round_id: int, user_id: str) -> None:
        """Remember that this user's daily answer was given "not sure" (read when the round is revealed)."""
        ...


class UptimeStore(Protocol):
    """When the bot was running: each process's running spans (bot.daily.uptime), shared by every process."""

    async def note_running(
        self,
        span: str,
        platform: str,
        since: dt.datetime,
        now: dt.datetime,
        *,
        forget_before: dt.datetime | None = None,
    ) -> None:
        """Record that the run `span` of a process running `platform` has run from `since` to `now` (a span
        only grows: an earlier `now` changes nothing); with `forget_before`, also forget every span last
        seen before then."""
        ...

    async def running_at(self, platform: str, at: dt.datetime) -> bool:
        """Whether a process running `platform` was running at `at` (a span from at or before it to at or
        after it)."""
        ...


class DeliveryStore(UptimeStore, Protocol):
    """The durable work of the tick: claims with leases, and their outcomes."""

    async def claim_due_channels(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DueChannel]:
        """Atomically claim unpaused channels whose next post is due and not claimed by a live lease."""
        ...

    async def claim_posts(
        self,
        now: dt.datetime,
        lease_until: dt.datetime,
        limit: int,
        *,
        round_id: int | None = None,
        force: bool = False,
        spaces: SpaceFilter | None = None,
    ) -> list[SendClaim]:
        """Claim open daily rounds whose question still has to be sent (never sent, failed, or a send whose
        lease ran out). `force` (post-now) also takes a failed round whose retry is not due yet, and one given up."""
        ...

    async def due_reveals(self, now: dt.datetime, limit: int, spaces: SpaceFilter | None = None) -> list[Round]:
        """Open daily rounds whose promised reveal instant has passed."""
        ...

    async def answer_counts(self, round_ids: Sequence[int]) -> dict[int, int]:
        """How many answers each of these rounds holds (a round with none is left out)."""
        ...

    async def claim_reveals(
        self,
        now: dt.datetime,
        lease_until: dt.datetime,
        limit: int,
        *,
        round_id: int | None = None,
        spaces: SpaceFilter | None = None,
    ) -> list[SendClaim]:
        """Claim revealed daily rounds whose reveal message still has to be sent."""
        ...

    # the same work by the batch (the tick's fan-out: one trip or transaction per batch, not per channel)
    async def claim_due_posts(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DuePost]:
        """claim_due_channels, with each claimed channel's settings and open daily rounds read at once."""
        ...

    async def reveal_due_rounds(
        self,
        round_ids: Sequence[int],
        revealed_at: dt.datetime,
        scorer: Scorer | None,
        lease_until: dt.datetime,
        *,
        learn: bool = True,
    ) -> list[RevealedRound]:
        """reveal_round for each round in order, then for those revealed now (in order) their answers,
        channel settings and claim_reveals(revealed_at, lease_until, round_id=...). All or nothing: a
        failure reveals none of them (the caller then reveals them one by one)."""
        ...

    async def claim_daily_rounds(self, claims: Sequence[DailyClaim]) -> list[Round | None]:
        """claim_daily_round for each claim, in order, in one transaction: per claim its round, or None
        when the slot was taken."""
        ...

    async def finish_posts(self, items: Sequence[PostFinish]) -> None:
        """finish_post for each item in one transaction (in round id order; one round's in their order)."""
        ...

    async def finish_reveals(self, items: Sequence[RevealFinish]) -> None:
        """finish_reveal for each item in one transaction (in round id order; one round's in their order)."""
        ...

    async def finish_due_channels(self, items: Sequence[DueFinish]) -> None:
        """finish_due_channel for each item in one transaction (in channel order; one channel's in their order)."""
        ...

    # reveal and scores
    async def reveal_round(
        self,
        round_id: int,
        revealed_at: dt.datetime,
        scorer: Scorer | None,
        *,
        learn: bool = True,
        unsure: Collection[str] = (),
    ) -> bool:
        """Close a round once: score it (daily) and fold it into the leaderboards in one transaction;
        with `learn`, its answers update the learners' memory cards in that transaction too (`unsure`:
        users whose answer was marked "not sure"). False when it was already revealed."""
        ...


class StreakDates(Protocol):
    """What streak freezes read beside the streak: the daily dates a learner missed."""

    async def missed_daily_dates(
        self, platform: str, space_id: str, after: dt.date, through: dt.date, limit: int
    ) -> int:
        """How many distinct daily dates of the space were revealed after `after`, up to `through` included,
        at most `limit` (the dates a learner whose last right answer was on `after` missed)."""
        ...


class QuestionRates(Protocol):
    """How a space answers each question: what aims the daily pick."""

    async def daily_answer_rates(self, platform: str, space_id: str) -> SpaceRates:
        """Answers and right answers of the space's revealed daily rounds only, per question and per channel."""
        ...

    async def daily_pick_inputs(
        self, spaces: Sequence[tuple[str, str]], hold_at: int
    ) -> dict[tuple[str, str], PickInputs]:
        """Per (platform, space id) of `spaces`: question_history (daily), held_question_ids(hold_at) and
        daily_answer_rates, read for all of them at once (a batch of due posts picks in one read each)."""
        ...


class PastRounds(Protocol):
    """The space's past daily questions: `/quiz past` and the dashboard's Past questions."""

    async def past_daily_rounds(
        self, platform: str, space_id: str, user_id: str, *, limit: int, offset: int = 0, channel_id: str | None = None
    ) -> list[PastRound]:
        """The space's revealed daily rounds that were posted (or one channel's), newest local date first, with
        their answers per choice and `user_id`'s own choice; never a round still open."""
        ...
