"""Opt-in nudges: at most one private message a day per learner and space, at the learner's chosen time.

`/quiz remind on [HH:MM] [timezone]` (Discord `/remind`) stores a reminder for (platform, space, user): the
channel it was turned on in, the local time (default: the reminder's own, else 09:00) and the timezone it is read
in (the one given, else the learner's own when the platform knows it, else the one the reminder had, else the
channel's quiz timezone, else the space's, else UTC). `/quiz remind` alone shows it. Its row carries the next
due instant, like a channel's next post, so a restart or another process picks it up.

Every process's tick reads the due reminders; the store's claim of (user, local date) decides which one
sends, so a learner hears from the bot once a day at most, however many processes run. The message says how
many reviews are to do today (the share within the learner's daily limit, never the whole debt) and whether
today's question in that channel is still unanswered before its reveal; with nothing to say nothing is sent
(the day still counts as done), and during a vacation hold (`/quiz review pause`) nothing at all. A platform
that says the learner cannot be messaged (DMs closed, a deactivated account) switches that learner's
reminders off, logged once.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from typing import Protocol
from zoneinfo import ZoneInfo

from bot.kernel.context import Context
from bot.kernel.echo import echo
from bot.kernel.errors import BadSetting, DirectMessageBlocked
from bot.kernel.parsing import parse_time
from bot.kernel.platform import DirectPlatform, TimezonePlatform
from bot.kernel.timing import local_text, resolve_local
from bot.kernel.values import ChannelRef, SpaceFilter
from bot.practice.reviews import ReviewDay
from bot.reminders.store import ReminderServiceStore
from bot.reminders.values import RemindCard, Reminder

log = logging.getLogger(__name__)


DEFAULT_TIME = dt.time(9, 0)  # when `/quiz remind on` gives no time


REMIND_GRACE = dt.timedelta(hours=3)  # a reminder later than this (bot offline) is skipped for that day


BATCH = 200


def parse_remind_time(text: str | None) -> dt.time:
    """The time of `/quiz remind on HH:MM` (None: the default, 09:00). BadSetting says what is accepted."""
    if text is None or not text.strip():
        return DEFAULT_TIME
    try:
        return parse_time(text)
    except BadSetting:
        raise BadSetting(
            f"'{echo(text.strip(), 20)}' is not a reminder time: use 24-hour HH:MM, for example 08:30. "
            "Nothing was changed."
        ) from None


def next_reminder_at(at: dt.time, tz: str, after: dt.datetime) -> dt.datetime:
    """The first instant strictly after `after` (aware) when the wall clock in `tz` reads `at`, in UTC.
    A time that does not exist on a day (spring forward) moves to the end of the gap; a time that happens
    twice (fall back) takes its first occurrence. Bounded: at most three local dates are looked at."""
    zone = ZoneInfo(tz)
    start = after.astimezone(zone).date() - dt.timedelta(days=1)
    for i in range(3):
        moment = resolve_local(start + dt.timedelta(days=i), at, zone)
        if moment > after:
            return moment
    raise AssertionError("a wall time happens at least once every day")  # pragma: no cover


def local_date_in(moment: dt.datetime, tz: str) -> dt.date:
    return moment.astimezone(ZoneInfo(tz)).date()


def reminder_text(
    due: int,
    review_command: str,
    waiting: bool,
    reveal_at: dt.datetime | None,
    tz: str,
    stop: str = "",
    review_page: str | None = None,
) -> str | None:
    """The day's nudge: today's share of reviews (`due`: within the learner's daily limit, never the whole
    debt; `review_page`: the dashboard's Review page too, where there is one) and/or today's unanswered question
    (revealed at `reveal_at`, read in `tz`), then `stop` (how to change or stop them); None when there is nothing
    to say."""
    lines = []
    if due:
        web = f", or on the dashboard: {review_page}" if review_page else ""
        lines.append(f"You have {due} review{'s' if due != 1 else ''} today: start with {review_command}{web}.")
    if waiting:
        when = f"; it is revealed {local_text(reveal_at, tz)} ({tz})" if reveal_at is not None else ""
        lines.append(f"Today's question is still waiting for your answer{when}.")
    if not lines:
        return None
    return "\n".join(["Reminder from studybot", *lines, *([stop] if stop else [])])


def _other_zone(remind_at: str, at: dt.time, platform: object) -> str:
    """How to have the time read in another timezone, where the platform does not tell the bot a member's own
    (Discord, the console); nothing where it does (Slack's profile timezone)."""
    if isinstance(platform, TimezonePlatform):
        return ""
    example = remind_at.format(time=f"{at:%H:%M}", zone="America/New_York")
    return f"Another timezone: {example} (any IANA name). "


class ReviewsToday(Protocol):
    """What a reminder tells of reviews: the learner's share today (the practice feature provides it)."""

    async def reviews_today(self, ref: ChannelRef, user_id: str) -> ReviewDay: ...


class Reminders:
    """Turning reminders on and off, and sending the due ones ."""

    def __init__(
        self,
        ctx: Context,
        store: ReminderServiceStore,
        reviews: ReviewsToday,
        review_page: Callable[[str, str], str | None] = lambda platform, space_id: None,
    ) -> None:
        self.ctx = ctx
        self.store = store
        self.reviews = reviews
        self.review_page = review_page  # (platform, space id) -> the dashboard's Review page, where it has one

    async def set(
        self, ref: ChannelRef, user_id: str, on: bool, at: dt.time | None = None, timezone: str | None = None
    ) -> RemindCard:
        """Turn the learner's reminder on (at `at` in `timezone`; either left out: the reminder's own, else 09:00
        and the learner's zone as `_timezone` finds it) or off."""
        store, now = self.store, self.ctx.clock.now()
        names = self.ctx.commands_of(ref.platform)
        existing = await store.get_reminder(ref.platform, ref.space_id, user_id)
        if not on:
            if existing is not None and existing.enabled:
                await store.disable_reminder(ref.platform, ref.space_id, user_id)
            return RemindCard(f"Reminders are off. Turn them on again with {names.remind} on.", False)
        tz = timezone or await self._timezone(ref, user_id, existing)
        when = at or (existing.at if existing is not None else DEFAULT_TIME)
        reminder = Reminder(
            ref.platform, ref.space_id, user_id, ref.channel_id, when, tz, True, next_reminder_at(when, tz, now)
        )
        await store.save_reminder(reminder)
        log.info("reminders on for %s/%s user %s at %s %s", ref.platform, ref.space_id, user_id, when, tz)
        first = timezone is None and existing is None  # a zone the member did not choose: say how to
        hint = _other_zone(names.remind_at, when, self.ctx.platforms.get(ref.platform)) if first else ""
        return RemindCard(
            f"Reminders are on: at {when:%H:%M} ({tz}) I will send you a private message on days when reviews "
            f"are due or today's question is waiting for your answer, at most once a day. "
            f"{hint}Turn them off with {names.remind} off.",
            True,
        )

    async def mine(self, platform: str, space_id: str, user_id: str) -> Reminder | None:
        """The learner's reminder in this space, on or off (None: never turned on)."""
        return await self.store.get_reminder(platform, space_id, user_id)

    async def show(self, ref: ChannelRef, user_id: str) -> RemindCard:
        """The learner's reminder in this space: on (when, in which zone, the next one) or off, and how to change it."""
        names = self.ctx.commands_of(ref.platform)
        reminder = await self.store.get_reminder(ref.platform, ref.space_id, user_id)
        if reminder is None or not reminder.enabled or reminder.next_at is None:
            at = f"{reminder.at:%H:%M} ({reminder.timezone})" if reminder is not None else f"{DEFAULT_TIME:%H:%M}"
            return RemindCard(
                f"Reminders are off. {names.remind} on sends you a private message at {at} on days when reviews "
                f"are due or today's question is waiting for your answer; "
                f"{names.remind_at.format(time='07:30', zone='Europe/Berlin')} sets the time and the timezone.",
                False,
            )
        hint = _other_zone(names.remind_at, reminder.at, self.ctx.platforms.get(ref.platform))
        return RemindCard(
            f"Reminders are on: at {reminder.at:%H:%M} ({reminder.timezone}), the next one "
            f"{local_text(reminder.next_at, reminder.timezone)} if there is something to say. "
            f"{hint}Turn them off with {names.remind} off.",
            True,
        )

    async def _timezone(self, ref: ChannelRef, user_id: str, existing: Reminder | None = None) -> str:
        """The learner's own timezone when the platform knows it, else the one the reminder has (given before),
        else the channel's, the space's or UTC."""
        platform = self.ctx.platforms.get(ref.platform)
        if isinstance(platform, TimezonePlatform):
            try:
                own = await platform.user_timezone(ref, user_id)
            except Exception as exc:  # a nicety: the channel's timezone is used instead
                log.info("could not read the timezone of %s: %s", user_id, type(exc).__name__)
                own = None
            if own and _known_zone(own):
                return str(own)
        if existing is not None:
            return existing.timezone
        cfg = await self.store.get_channel(ref)
        if cfg is not None and cfg.ref.space_id == ref.space_id:
            return cfg.timezone
        return await self.store.space_timezone(ref.platform, ref.space_id) or "UTC"

    async def run_due(self, spaces: SpaceFilter | None = None) -> None:
        """Send every due reminder once per (learner, local date); a failure of one never stops the others.
        Reminders of a platform this process does not run are left to the process that runs it."""
        now = self.ctx.clock.now()
        for _ in range(10):  # bounded; another pass only for a full batch or a day skipped as too late
            due = await self.store.due_reminders(now, BATCH, spaces)
            again = False
            for reminder in due:
                try:
                    again = await self._run(reminder, now) or again
                except Exception:
                    log.exception(
                        "reminder of %s/%s user %s failed", reminder.platform, reminder.space_id, reminder.user_id
                    )
                    await self._advance(reminder, now)
            if not again and len(due) < BATCH:
                return

    async def _advance(self, reminder: Reminder, after: dt.datetime) -> None:
        """Move the reminder on to its first time after `after` (and after its current due instant)."""
        assert reminder.next_at is not None
        after = max(after, reminder.next_at)
        await self.store.advance_reminder(
            reminder.platform,
            reminder.space_id,
            reminder.user_id,
            reminder.next_at,
            next_reminder_at(reminder.at, reminder.timezone, after),
        )

    async def _run(self, reminder: Reminder, now: dt.datetime) -> bool:
        """One due reminder; True when it was skipped as too late and a later day may be due now."""
        store = self.store
        assert reminder.next_at is not None
        if reminder.platform not in self.ctx.platforms:
            return False  # not running here: the process that runs the platform sends it
        platform = self.ctx.platforms[reminder.platform]
        send = platform.send_direct if isinstance(platform, DirectPlatform) else None
        day = local_date_in(reminder.next_at, reminder.timezone)
        late = now - reminder.next_at
        if late > REMIND_GRACE or send is None:
            if send is None:
                log.debug("platform %s sends no direct messages; reminder not sent", reminder.platform)
            else:
                log.info("skipped the reminder of user %s for %s: %s late", reminder.user_id, day, late)
            await self._advance(reminder, now - REMIND_GRACE)  # a later day still within the grace comes next
            return send is not None
        claimed = await store.claim_reminder_day(reminder.platform, reminder.space_id, reminder.user_id, day, now)
        await self._advance(reminder, now)
        if not claimed:  # another process (or an earlier tick) had this day
            return False
        text = await self.text_for(reminder, now)
        if text is None:
            return False
        try:
            await send(reminder.ref, reminder.user_id, text)
        except DirectMessageBlocked as exc:
            if await store.disable_reminder(reminder.platform, reminder.space_id, reminder.user_id):
                log.warning(
                    "reminders of %s/%s user %s switched off: %s",
                    reminder.platform,
                    reminder.space_id,
                    reminder.user_id,
                    exc,
                )
        except Exception as exc:  # the day stays used: a reminder is sent at most once, never twice
            log.warning("the reminder DM to %s/%s user %s failed: %s", *_who(reminder), describe(exc))
        return False

    async def text_for(self, reminder: Reminder, now: dt.datetime) -> str | None:
        """What the learner would be told now (None: nothing)."""
        store = self.store
        day = await self.reviews.reviews_today(reminder.ref, reminder.user_id)
        if day.paused_until is not None:
            return None  # a vacation hold: no reminders at all until it ends
        due = day.today
        waiting, reveal_at = False, None
        for round_ in await store.open_daily_rounds(reminder.ref):
            if not round_.is_posted or round_.ref.space_id != reminder.space_id:
                continue
            if round_.closes_at is not None and round_.closes_at <= now:
                continue  # past its promise: revealed on this tick, too late to answer
            if await store.get_answer(round_.id, reminder.user_id) is None:
                waiting, reveal_at = True, round_.closes_at
                break
        names = self.ctx.commands_of(reminder.platform)
        stop = (
            f"(You get this at {reminder.at:%H:%M} ({reminder.timezone}) because reminders are on: "
            f"{names.remind} off stops them, {names.remind} shows them.)"
        )
        page = self.review_page(reminder.platform, reminder.space_id) if due else None
        return reminder_text(due, names.review, waiting, reveal_at, reminder.timezone, stop, page)


def _who(reminder: Reminder) -> tuple[str, str, str]:
    return reminder.platform, reminder.space_id, reminder.user_id


def describe(exc: BaseException) -> str:
    """An exception for a log line: its type and its first 200 characters (no traceback)."""
    return f"{type(exc).__name__}: {str(exc)[:200]}"


def _known_zone(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ValueError, KeyError, OSError):
        return False
    return True
