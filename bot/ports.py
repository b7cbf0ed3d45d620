"""The ports the core consumes: a Store, outbound ChatPlatforms and a Clock (Protocols only; the values
they carry live in bot.model)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence
from typing import Protocol

from bot.clock import SystemClock as SystemClock  # re-exported for bot/app/cli.py; new code imports bot.clock
from bot.export import Miss
from bot.forget import Forgotten
from bot.installs import WorkspaceInstall
from bot.learning import CardKey, LearnerCard, PendingAnswer, ReviewEvent
from bot.model import (
    Answer,
    AnswerWrite,
    Board,
    ChannelConfig,
    ChannelRef,
    DailyClaim,
    DueChannel,
    DueFinish,
    DuePost,
    LeaderboardRow,
    NewAnswer,
    NewReport,
    Period,
    PostFinish,
    PracticeAnswer,
    QuestionCard,
    RecapCard,
    RecapRound,
    RecapScorer,
    Report,
    ReportWrite,
    RevealCard,
    RevealedRound,
    RevealFinish,
    Round,
    RoundKind,
    Scorer,
    ScoreRow,
    SeasonArchive,
    SeasonCard,
    SendClaim,
    SpaceFilter,
    StreakState,
    Suggestion,
    TopicStats,
)
from bot.reminders import Reminder


class Clock(Protocol):
    """Where the core gets the time: always an aware UTC datetime."""

    def now(self) -> dt.datetime: ...


class ChatPlatform(Protocol):
    """Outbound pushes to one chat platform. Inbound events reach the core through the service.

    A platform may also offer `async post_notice(ref, text)`: a plain note in a channel (e.g. that a day's
    question was skipped while the bot was offline); the service uses it when present. Likewise
    `async post_recap(ref, card, png)` (see RecapPlatform): the weekly recap chart, when the platform has it."""

    name: str

    async def post_question(self, ref: ChannelRef, card: QuestionCard) -> str:
        """Post a daily question card in a channel; returns the platform's message id."""
        ...

    async def post_reveal(self, ref: ChannelRef, card: RevealCard) -> str | None:
        """Mark the question message as revealed (if any) and post the reveal in the channel."""
        ...

    async def send_private(self, ref: ChannelRef, user_id: str, text: str) -> None:
        """A note only this user sees (ephemeral message or DM)."""
        ...


class RecapPlatform(Protocol):
    """The optional part of a ChatPlatform that posts the weekly recap."""

    async def post_recap(self, ref: ChannelRef, card: RecapCard, png: bytes | None) -> str | None:
        """Post the recap: the PNG chart with `recap_alt_text(card)` as its alt text, or (png None: no
        answers in the week) the plain note `recap_text(card)`; returns the message id if any."""
        ...


class SeasonPlatform(Protocol):
    """The optional part of a ChatPlatform that posts the monthly season card."""

    async def post_season(self, ref: ChannelRef, card: SeasonCard) -> str | None:
        """Post `season_text(card)` in the channel (names as plain text, nobody notified)."""
        ...


class RolePlatform(Protocol):
    """The optional part of a ChatPlatform with roles (Discord): the season's champion role."""

    async def champion_role_problem(self, ref: ChannelRef, role_id: str) -> str | None:
        """Why the bot cannot give this role in the space (e.g. no Manage Roles), or None when it can."""
        ...

    async def move_champion(self, ref: ChannelRef, role_id: str, winner: str, previous: str | None) -> None:
        """Give the role to `winner` and take it from `previous` (last season's champion, if another)."""
        ...


class DirectPlatform(Protocol):
    """The optional part of a ChatPlatform that writes to one member directly (a DM: reminders, a decided
    suggestion) and knows members' own timezones; without it suggestions fall back to `send_private`."""

    async def send_direct(self, ref: ChannelRef, user_id: str, text: str) -> None:
        """A direct message to the member (`ref`: the space and channel it concerns). Raises
        bot.errors.DirectMessageBlocked when the platform says the member cannot be messaged."""
        ...

    async def user_timezone(self, ref: ChannelRef, user_id: str) -> str | None:
        """The member's own IANA timezone when the platform knows it (None: it does not)."""
        ...


class NamePlatform(Protocol):
    """The optional part of a ChatPlatform that knows members' display names (for the recap's top five)."""

    async def display_names(self, ref: ChannelRef, user_ids: Sequence[str]) -> dict[str, str]: ...


class Store(Protocol):
    """Persistence. Unique keys do the correctness work: one daily round per (channel, local date), one
    answer per (round, user); leaderboard aggregates are derived from the answer log at reveal."""

    async def open(self, *, migrate: bool = True) -> None:
        """Connect and (unless told not to) apply pending migrations."""
        ...

    async def close(self) -> None: ...
    async def migrate(self) -> list[int]: ...
    async def schema_version(self) -> int: ...

    # channels
    async def save_channel(self, config: ChannelConfig) -> None: ...
    async def get_channel(self, ref: ChannelRef) -> ChannelConfig | None: ...
    async def list_channels(self, platform: str | None = None) -> list[ChannelConfig]: ...
    async def space_timezone(self, platform: str, space_id: str) -> str | None: ...

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

    async def create_practice_round(
        self, ref: ChannelRef, user_id: str, question_id: str, topic: str, opened_at: dt.datetime
    ) -> Round: ...
    async def get_round(self, round_id: int) -> Round | None: ...
    async def open_daily_rounds(self, ref: ChannelRef | None = None, *, unpromised: bool = False) -> list[Round]:
        """Daily rounds not revealed yet (in one channel, or everywhere); `unpromised`: only those stored
        without a promised reveal instant (posted before promises were stored)."""

    async def latest_daily_round(self, ref: ChannelRef) -> Round | None: ...
    async def set_message_id(self, round_id: int, message_id: str) -> None: ...
    async def round_by_message(self, platform: str, message_id: str) -> Round | None:
        """The round whose question was posted as this platform message (for reactions)."""
        ...

    async def question_counts(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> dict[str, int]:
        """How often each question was asked in a space (daily) or to a user (practice)."""
        ...

    async def last_question_id(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> str | None: ...

    async def question_history(
        self, platform: str, space_id: str, kind: RoundKind, user_id: str | None = None
    ) -> tuple[dict[str, int], str | None]:
        """question_counts and last_question_id together (one trip: what the next pick needs)."""
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

    async def claim_due_channels(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DueChannel]:
        """Atomically claim unpaused channels whose next post is due and not claimed by a live lease."""
        ...

    async def finish_due_channel(self, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None) -> None:
        """Release a claimed channel; its next post moves to `next_at` unless a config change moved it."""
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
        lease ran out). `force` (post-now) also takes a failed round whose retry is not due yet."""
        ...

    async def finish_post(
        self, round_id: int, state: str, *, message_id: str | None = None, retry_at: dt.datetime | None = None
    ) -> None:
        """Record a send: 'sent' (with its message id), 'failed' (retry at `retry_at`) or 'gave_up'."""
        ...

    async def open_daily_question_ids(self, platform: str, space_id: str) -> set[str]:
        """The questions open as daily rounds in a space (practice must not serve them)."""
        ...

    async def set_reveal_at(self, round_id: int, at: dt.datetime) -> None:
        """Give an open daily round without one its promised reveal instant (rounds from before promises)."""
        ...

    async def due_reveals(self, now: dt.datetime, limit: int, spaces: SpaceFilter | None = None) -> list[Round]:
        """Open daily rounds whose promised reveal instant has passed."""
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

    async def finish_reveal(self, round_id: int, state: str, *, retry_at: dt.datetime | None = None) -> None:
        """Record a reveal send: 'sent', 'failed' (retry at `retry_at`), 'gave_up' or 'none' (not posted)."""
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

    # the weekly recap (the same durable work: a due instant on the channel, claimed by one tick)
    async def set_next_recap(self, ref: ChannelRef, at: dt.datetime | None) -> None:
        """The channel's next due recap (None: off or paused); releases any claim on it."""
        ...

    async def get_next_recap(self, ref: ChannelRef) -> dt.datetime | None: ...
    async def unscheduled_recaps(self, spaces: SpaceFilter | None = None) -> list[ChannelConfig]:
        """Running channels with the recap on but no next due recap stored, of these spaces (None: all)."""
        ...

    async def claim_due_recaps(
        self, now: dt.datetime, lease_until: dt.datetime, limit: int, spaces: SpaceFilter | None = None
    ) -> list[DueChannel]:
        """Atomically claim unpaused channels whose recap is due and not claimed by a live lease."""
        ...

    async def finish_due_recap(self, ref: ChannelRef, due_at: dt.datetime, next_at: dt.datetime | None) -> None:
        """Release a claimed recap; it moves to `next_at` unless a config change moved it."""
        ...

    async def mark_recap(self, ref: ChannelRef, week_end: dt.date, now: dt.datetime) -> bool:
        """True the first time the channel's week ending `week_end` is recapped (once per week, ever)."""
        ...

    async def unmark_recap(self, ref: ChannelRef, week_end: dt.date) -> None:
        """Forget a week's mark (its recap could not be sent, so it may be tried again)."""
        ...

    # monthly seasons (a space's top three per calendar month, archived once)
    async def archive_season(self, platform: str, space_id: str, season: str, now: dt.datetime) -> SeasonArchive | None:
        """Archive the space's season (YYYY-MM) once: its month's top three (points, then who reached the
        score first), possibly none. The first call decides, across processes; later calls return what it
        stored. None (nothing stored) while a daily round dated in that month is still open."""
        ...

    async def season_archive(self, platform: str, space_id: str, season: str) -> SeasonArchive | None:
        """The archived season, or None if it was never archived."""
        ...

    async def champion_before(self, platform: str, space_id: str, season: str) -> str | None:
        """The champion of the latest archived season before `season` that had one."""
        ...

    async def mark_season_post(self, ref: ChannelRef, season: str, now: dt.datetime) -> bool:
        """True the first time the channel posts the card of `season` (once per channel and season, ever)."""
        ...

    async def unmark_season_post(self, ref: ChannelRef, season: str) -> None:
        """Forget the mark (the card could not be sent, so it may be tried again)."""
        ...

    async def recap_rounds(
        self, platform: str, space_id: str, start: dt.date, end: dt.date, channel_id: str | None = None
    ) -> list[RecapRound]:
        """Revealed daily rounds of a space (or one channel) on local dates start..end, with answer counts."""
        ...

    async def recap_scorers(
        self, platform: str, space_id: str, start: dt.date, end: dt.date, limit: int, channel_id: str | None = None
    ) -> list[RecapScorer]:
        """The best members of those rounds: most points, then who reached their total first, then user id."""
        ...

    # answers
    async def add_answers(self, answers: Sequence[NewAnswer], now: dt.datetime) -> list[AnswerWrite]:
        """Insert a batch in one transaction; each is recorded only if its round is open and the user has
        not answered it. Returns only after the commit."""
        ...

    async def get_answer(self, round_id: int, user_id: str) -> Answer | None: ...
    async def round_answers(self, round_id: int) -> list[Answer]: ...

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

    async def leaderboard(
        self, platform: str, space_id: str, period: Period, period_key: str, limit: int
    ) -> list[LeaderboardRow]: ...
    async def rank_of(
        self, platform: str, space_id: str, period: Period, period_key: str, user_id: str
    ) -> LeaderboardRow | None: ...

    # stats
    async def user_topic_stats(
        self, platform: str, space_id: str, user_id: str
    ) -> list[tuple[RoundKind, TopicStats]]: ...
    async def streak(self, platform: str, space_id: str, user_id: str) -> StreakState | None: ...
    async def latest_revealed_date(self, platform: str, space_id: str) -> dt.date | None: ...

    async def remember_once(self, scope: str, key: str, now: dt.datetime, keep: dt.timedelta) -> bool:
        """True the first time (scope, key) is seen within `keep` of `now`, False for a repeat: one
        de-duplication shared by every process on the same database."""
        ...

    # installations of the bot in a workspace ("Add to Slack"), and the OAuth states of the install page
    async def save_install(self, install: WorkspaceInstall) -> None:
        """Insert or replace the installation of (platform, workspace id)."""
        ...

    async def find_install(self, platform: str, workspace_id: str) -> WorkspaceInstall | None: ...

    async def delete_install(self, platform: str, workspace_id: str) -> bool:
        """Forget the workspace's installation; False when there was none."""
        ...

    async def claim_token_refresh(
        self, platform: str, workspace_id: str, token_secret: str, now: dt.datetime, until: dt.datetime
    ) -> bool:
        """Claim the renewal of the workspace's token (the one sealed as `token_secret`) until `until`: True
        for one caller only, while that token is still the stored one and no other claim is live at `now`."""
        ...

    async def save_refreshed_token(
        self,
        platform: str,
        workspace_id: str,
        old_secret: str,
        token_secret: str,
        refresh_secret: str,
        expires_at: dt.datetime | None,
    ) -> bool:
        """Replace the token sealed as `old_secret` by a renewed one (compare-and-set) and end the claim;
        False, changing nothing, when the stored token is no longer `old_secret`."""
        ...

    async def save_oauth_state(self, state: str, expires_at: dt.datetime) -> None: ...

    async def consume_oauth_state(self, state: str, now: dt.datetime) -> bool:
        """True once for a state issued and not expired at `now`; it is gone afterwards."""
        ...

    async def reveal_practice(
        self, answers: Sequence[PracticeAnswer], revealed_at: dt.datetime, *, learn: bool = True
    ) -> list[bool]:
        """Reveal these practice rounds in one transaction, each once, and with `learn` mark each for its
        card update (learn_practice writes it); per answer, whether its round was revealed now (never a
        daily round)."""
        ...

    async def learn_practice(self, limit: int, learner: tuple[str, str, str] | None = None) -> int:
        """Write the card updates of up to `limit` marked practice answers (oldest first; `learner`:
        (platform, space, user) only) in one transaction, and unmark them; how many were written."""
        ...

    # learner memory (bot.learning): cards are written by reveal_round and learn_practice, read here (a
    # learner's marked practice answers are written first, so a read always sees every acknowledged answer)
    async def learner_cards(self, platform: str, space_id: str, user_id: str) -> list[LearnerCard]:
        """Every memory card of one learner in a space, by question id."""
        ...

    async def review_events(self, platform: str, space_id: str, user_id: str) -> list[ReviewEvent]:
        """One learner's review log in a space, oldest first."""
        ...

    # one learner's data in a space: `/quiz export` reads it, `/quiz forget-me` deletes it
    async def learner_misses(self, platform: str, space_id: str, user_id: str) -> list[Miss]:
        """The questions this learner answered wrong at least once in revealed rounds of the space (daily
        or practice), each with their latest attempt; latest first."""
        ...

    async def forget_learner(self, platform: str, space_id: str, user_id: str) -> Forgotten:
        """Delete, in one transaction, the learner's answers, practice rounds, memory cards, review log,
        streak and score rows in the space (their score buckets too, so ranks recount without them)."""
        ...

    async def mark_unsure(self, round_id: int, user_id: str) -> None:
        """Remember that this user's daily answer was given "not sure" (read when the round is revealed)."""
        ...

    # question packs (bot.packs): a space's own, all or nothing
    async def save_pack(
        self,
        platform: str,
        space_id: str,
        name: str,
        questions: Sequence[tuple[str, str]],
        *,
        replace: bool,
        max_packs: int,
        now: dt.datetime,
    ) -> int:
        """Create or (replace) replace a pack with (question id, body) rows; its new version. PackExists,
        PackBusy (another import into the space is running) or PackError (too many packs): nothing changed."""
        ...

    async def list_packs(self, platform: str, space_id: str) -> list[tuple[str, int, int]]:
        """(name, questions, version) of the space's own packs, by name."""
        ...

    async def pack_questions(self, platform: str, space_id: str, name: str) -> list[tuple[str, str]]: ...
    async def save_round_question(self, round_id: int, body: str) -> None: ...
    async def question_answer_counts(self, platform: str, space_id: str) -> list[tuple[str, int, tuple[int, ...], int]]:
        """Per question asked in the space, of its revealed rounds only (an open round's question, answers and
        share right show nowhere before its reveal): (question id, rounds, answers per choice A-D, correct)."""
        ...

    async def round_question(self, round_id: int) -> str | None: ...

    # members' question suggestions (bot.suggestions)
    async def add_suggestion(
        self, ref: ChannelRef, author_id: str, body: str, now: dt.datetime, day: dt.date, limit: int
    ) -> Suggestion | None:
        """Store a pending suggestion, unless the author already made `limit` in the space on `day` (then
        None, nothing stored): the count is raised atomically with the insert."""
        ...

    async def get_suggestion(self, platform: str, space_id: str, suggestion_id: int) -> Suggestion | None: ...
    async def list_suggestions(self, platform: str, space_id: str, status: str, limit: int) -> list[Suggestion]:
        """The space's suggestions with this status, oldest first, at most `limit`."""
        ...

    async def approve_suggestion(
        self,
        platform: str,
        space_id: str,
        suggestion_id: int,
        pack: str,
        decided_by: str,
        now: dt.datetime,
        *,
        max_packs: int,
        max_questions: int,
    ) -> Suggestion | None:
        """In one transaction: a pending suggestion of the space joins `pack` (created if missing; a new
        version) under an id unique in the pack, and is marked approved. None: unknown here or decided
        already. PackError (too many packs or questions): nothing changed."""
        ...

    async def reject_suggestion(
        self, platform: str, space_id: str, suggestion_id: int, reason: str, decided_by: str, now: dt.datetime
    ) -> Suggestion | None:
        """Mark a pending suggestion of the space rejected with `reason`; None: unknown here or decided."""

    # reminders (bot.reminders): one row per (platform, space, user); the day's send is claimed once
    async def save_reminder(self, reminder: Reminder) -> None:
        """Insert or replace the learner's reminder (every field, its next due instant too)."""
        ...

    async def get_reminder(self, platform: str, space_id: str, user_id: str) -> Reminder | None: ...

    async def due_reminders(self, now: dt.datetime, limit: int, spaces: SpaceFilter | None = None) -> list[Reminder]:
        """Enabled reminders whose next due instant is not after `now`, the earliest first."""
        ...

    async def advance_reminder(
        self, platform: str, space_id: str, user_id: str, due_at: dt.datetime, next_at: dt.datetime
    ) -> None:
        """Move the reminder's next due instant from `due_at` to `next_at` (unless it was changed meanwhile)."""
        ...

    async def claim_reminder_day(
        self, platform: str, space_id: str, user_id: str, local_date: dt.date, now: dt.datetime
    ) -> bool:
        """True the first time the learner's reminder of `local_date` is claimed (once per day, ever)."""
        ...

    async def disable_reminder(self, platform: str, space_id: str, user_id: str) -> bool:
        """Switch the learner's reminder off; True when it was on (so the caller logs it once)."""
        ...

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

    async def latest_practice_round(self, platform: str, space_id: str, user_id: str) -> Round | None: ...


# ---- the transactions bot.store.settle runs: each store implements them with its own statements ----------


class RevealTransaction(Protocol):
    """The steps of one reveal, inside one open transaction of a store (bot.store.settle.reveal calls them
    in order). Each step is a statement or two; the rules between them live in bot.store.settle."""

    async def claim_reveal(self, round_id: int, revealed_at: dt.datetime) -> Round | None:
        """Mark the round revealed unless it already is: the revealed round, or None (revealed or unknown)."""
        ...

    async def lock_space(self, ref: ChannelRef) -> None:
        """Hold off every other scoring in this space until commit (streaks, the previous date and the score
        buckets are read, then written). A store whose transactions are serial already does nothing."""
        ...

    async def answers(self, round_id: int) -> tuple[Answer, ...]:
        """The round's answers."""
        ...

    async def previous_date(self, ref: ChannelRef, before: dt.date) -> dt.date | None:
        """The space's latest revealed daily date before `before`."""
        ...

    async def streaks(self, ref: ChannelRef, users: Sequence[str]) -> dict[str, StreakState]:
        """The stored streaks of these users in the space (users without one are left out)."""
        ...

    async def speed_bonus(self, ref: ChannelRef) -> bool:
        """Whether the round's channel has the speed bonus on."""
        ...

    async def write_points(self, round_id: int, points: dict[str, int]) -> None:
        """Set the points of these users' answers to the round."""
        ...

    async def write_streaks(self, ref: ChannelRef, streaks: dict[str, StreakState]) -> None:
        """Store these users' new streaks in the space."""
        ...

    async def add_scores(self, board: Board, rows: Sequence[ScoreRow]) -> dict[str, tuple[int, int]]:
        """Add (user, points, correct as 0 or 1, reached) to the users' totals on a board, one more answered
        each; each user's (points, answered) after. `reached`: when the user reached the new total (the
        answer that scored), or None when it scored nothing and the total's time stays; a tie on points is
        listed by who got there first."""
        ...

    async def move_buckets(self, board: Board, moves: Sequence[tuple[int, int]]) -> None:
        """Add (points total, change in users) to a board's score buckets; drop the buckets left empty."""
        ...

    async def doubts(self, round_id: int) -> set[str]:
        """The users who marked their answer to this round "not sure"."""
        ...

    async def cards(
        self, platform: str, space_id: str, question_id: str, users: Sequence[str]
    ) -> dict[str, LearnerCard]:
        """These users' memory cards for one question (users without one are left out)."""
        ...

    async def write_cards(self, updates: Sequence[tuple[LearnerCard, ReviewEvent]]) -> None:
        """Store these cards (insert or replace; of a card given twice, the later stands) and append their
        review events to the log."""
        ...

    async def claim_practice(
        self, round_ids: Sequence[int], revealed_at: dt.datetime, *, learn: bool, unsure: Collection[int] = ()
    ) -> set[int]:
        """claim_reveal for many practice rounds at once (other rounds are left alone): the ids revealed now.
        With `learn`, each of them is marked for its card update (`unsure`: rounds answered "not sure")."""
        ...

    async def lock_learning(self) -> None:
        """Wait until no other process is writing practice card updates (learn_practice)."""
        ...

    async def pending_practice(self, limit: int, learner: tuple[str, str, str] | None) -> list[PendingAnswer]:
        """Up to `limit` marked practice answers, oldest round first; `learner`: (platform, space, user) only."""
        ...

    async def clear_pending(self, round_ids: Sequence[int]) -> None:
        """Unmark these practice rounds: their card updates are written."""
        ...

    async def cards_of(self, keys: Sequence[CardKey]) -> dict[CardKey, LearnerCard]:
        """The memory cards with these keys (keys without one are left out)."""
        ...


class AnswerTransaction(Protocol):
    """The steps of one answer batch, inside one open transaction (bot.store.settle.add_answers)."""

    async def round_windows(self, round_ids: Sequence[int]) -> dict[int, tuple[dt.datetime | None, dt.datetime | None]]:
        """(revealed_at, closes_at) of each of these rounds that exists. A store whose reveals can run
        alongside also keeps them from being revealed until this transaction commits."""
        ...

    async def insert_answers(self, answers: Sequence[NewAnswer]) -> set[tuple[int, str]] | None:
        """Insert answers (one per round and user), skipping those already stored: the (round, user) keys
        inserted, or None when every one was. An invalid answer fails the whole batch."""
        ...

    async def stored_choices(self, keys: Sequence[tuple[int, str]]) -> dict[tuple[int, str], int]:
        """The stored choice of each (round, user) that has an answer (this batch's included)."""
        ...


class SettleTransaction(RevealTransaction, AnswerTransaction, Protocol):
    """Both sets of steps on one open transaction (what a store's `_settling()` yields)."""
