"""The weekly recap: a chart of a channel's past week, posted on the day it chooses at its posting time.

The data is gathered here, from store queries only (`build_recap` -> RecapCard); bot.recap_chart draws it
(matplotlib, imported only when a chart is drawn). The recap is durable work like the daily post: each
channel row carries its next due recap, every process's tick claims due recaps in the store, and a mark per
(channel, week) in the store makes sure a week is recapped at most once, whichever process claims it.

A recap posted on local date D covers the seven local dates D-7 .. D-1 (on a Monday: last Monday to Sunday).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging

from bot.kernel.context import Context, QuestionBank
from bot.kernel.drawing import DRAW_LOCK
from bot.kernel.platform import NamePlatform
from bot.kernel.timing import local_date_of, post_instant
from bot.kernel.values import LETTERS, ChannelConfig, ChannelRef, DueChannel, SpaceFilter, TopicStats
from bot.recap.cards import _span
from bot.recap.ports import RecapPlatform
from bot.recap.store import RecapServiceStore, RecapStore
from bot.recap.values import HardestQuestion, RecapCard, RecapDay, RecapRound
from bot.seasons.service import Seasons

log = logging.getLogger(__name__)


WEEK = 7


TOP = 5


RECAP_LEASE = dt.timedelta(minutes=5)  # drawing and uploading a chart takes a few seconds at most


RECAP_GRACE = dt.timedelta(hours=6)  # a recap later than this (bot offline, failing sends) is skipped


RETRY = dt.timedelta(minutes=2)


BATCH = 20


RECAP_KEYS = ("recap_day", "post_time", "timezone", "paused")  # the settings that move a channel's recap


_DRAW_LOCK = DRAW_LOCK  # matplotlib is drawn from one thread at a time (every chart shares it)


def week_before(day: dt.date) -> tuple[dt.date, dt.date]:
    """The first and last local dates a recap posted on `day` covers."""
    return day - dt.timedelta(days=WEEK), day - dt.timedelta(days=1)


def next_recap_after(cfg: ChannelConfig, after: dt.datetime) -> dt.datetime | None:
    """The channel's first recap instant strictly after `after`: its recap weekday at its posting time
    (local, DST-correct); None when the recap is off or the channel is paused."""
    if cfg.recap_day is None or cfg.paused:
        return None
    start = local_date_of(cfg, after) - dt.timedelta(days=1)
    for i in range(WEEK + 2):
        day = start + dt.timedelta(days=i)
        if day.weekday() == cfg.recap_day:
            at = post_instant(cfg, day)
            if at > after:
                return at
    return None  # pragma: no cover - a weekday always comes within nine days


async def build_recap(
    store: RecapStore,
    bank: QuestionBank,
    platform: str,
    space_id: str,
    end: dt.date,
    *,
    channel_id: str | None = None,
    timezone: str = "UTC",
) -> RecapCard:
    """The recap of the seven local dates ending `end` (inclusive), for a space or one of its channels:
    answers per day, accuracy by topic (weakest first), the top five, the hardest question, and the space's
    once-missed questions recalled a week or more later (local dates in `timezone`, up to `end`). Only
    revealed daily rounds count, so no hidden answer is ever shown."""
    start = end - dt.timedelta(days=WEEK - 1)
    rounds = await store.recap_rounds(platform, space_id, start, end, channel_id)
    scorers = await store.recap_scorers(platform, space_id, start, end, TOP, channel_id)
    recalled = await store.space_miss_recall(platform, space_id, timezone, end)
    days = []
    for i in range(WEEK):
        day = start + dt.timedelta(days=i)
        mine = [r for r in rounds if r.local_date == day]
        days.append(RecapDay(day, sum(r.answered for r in mine), sum(r.correct for r in mine)))
    by_topic: dict[str, tuple[int, int]] = {}
    for r in rounds:
        if r.answered:
            n, c = by_topic.get(r.topic, (0, 0))
            by_topic[r.topic] = (n + r.answered, c + r.correct)
    topics = sorted(
        (TopicStats(t, n, c) for t, (n, c) in by_topic.items()), key=lambda s: (s.accuracy, -s.answered, s.topic)
    )
    return RecapCard(
        title=f"Weekly recap · {_span(start, end)}",
        start=start,
        end=end,
        days=tuple(days),
        topics=tuple(topics),
        top=tuple(s for s in scorers if s.points > 0),
        hardest=_hardest(bank, rounds),
        recalled=recalled,
    )


def _hardest(bank: QuestionBank, rounds: list[RecapRound]) -> HardestQuestion | None:
    answered = [r for r in rounds if r.answered]
    if not answered:
        return None
    worst = min(answered, key=lambda r: (r.correct / r.answered, -r.answered, r.local_date, r.round_id))
    question = bank.get(worst.question_id)
    prompt = question.prompt if question else "(a question no longer in the bank)"
    letter = LETTERS[question.answer] if question else "?"
    return HardestQuestion(
        worst.question_id,
        prompt,
        letter,
        worst.local_date,
        worst.answered,
        worst.correct,
        worst.topic,
        question.code if question else None,
    )


async def draw(card: RecapCard) -> bytes:
    """The chart as PNG bytes, drawn in a worker thread (matplotlib's Agg backend, no display); matplotlib is
    imported there too, as its first import (font cache) takes seconds the event loop must not wait."""
    return await asyncio.to_thread(_draw_now, card)


def _draw_now(card: RecapCard) -> bytes:
    with _DRAW_LOCK:
        from bot.recap.chart import draw_recap

        return draw_recap(card)


class Recaps:
    """Posts each channel's weekly recap from the scheduler's tick."""

    def __init__(self, ctx: Context, store: RecapServiceStore, seasons: Seasons) -> None:
        self.ctx = ctx
        self.store = store
        self.seasons = seasons

    async def card(
        self,
        platform: str,
        space_id: str,
        end: dt.date,
        *,
        channel_id: str | None = None,
        names: bool = True,
    ) -> RecapCard:
        """The recap card of the week ending `end`, with the platform's display names when it has them."""
        _today, tz = await self.ctx.space_today(platform, space_id)
        card = await build_recap(self.store, self.ctx.bank, platform, space_id, end, channel_id=channel_id, timezone=tz)
        chat = self.ctx.platforms.get(platform)
        if names and isinstance(chat, NamePlatform) and card.top:
            ref = ChannelRef(platform, space_id, channel_id or "")
            try:
                found = await chat.display_names(ref, [s.user_id for s in card.top])
            except Exception as exc:  # names are a nicety: ids are shown instead
                log.info("display names for the recap failed: %s", type(exc).__name__)
                found = {}
            card = _with_names(card, found)
        return card

    async def schedule_unscheduled(self, spaces: SpaceFilter | None = None) -> None:
        """Give running channels with the recap on (e.g. saved before recaps existed) their next recap."""
        now = self.ctx.clock.now()
        for cfg in await self.store.unscheduled_recaps(spaces):
            if spaces is None or spaces(cfg.ref):
                await self.store.set_next_recap(cfg.ref, next_recap_after(cfg, now))

    async def run_due(self, spaces: SpaceFilter | None = None) -> None:
        """Claim and post every due recap; a failure of one never stops the others."""
        now = self.ctx.clock.now()
        for _ in range(3):  # a recap skipped as too late may leave this week's due now: take it too
            claimed = await self.store.claim_due_recaps(now, now + RECAP_LEASE, BATCH, spaces)
            for due in claimed:
                try:
                    await self._run(due)
                except Exception:
                    log.exception("weekly recap of %s/%s failed", due.ref.platform, due.ref.channel_id)
                    await self.store.finish_due_recap(due.ref, due.due_at, now + RETRY)
            if not claimed:
                break

    async def _run(self, due: DueChannel) -> None:
        store, now = self.store, self.ctx.clock.now()
        cfg = await store.get_channel(due.ref)
        if cfg is None:
            await store.finish_due_recap(due.ref, due.due_at, None)
            return
        next_at = next_recap_after(cfg, max(now, due.due_at))
        poster = self.ctx.platforms.get(due.ref.platform)
        if cfg.paused or cfg.recap_day is None or not isinstance(poster, RecapPlatform):
            await store.finish_due_recap(due.ref, due.due_at, next_at)
            return
        day = local_date_of(cfg, due.due_at)
        promised = min(post_instant(cfg, day), due.due_at)  # a retry keeps its day's promised instant
        if now - promised > RECAP_GRACE:
            log.info(
                "skipped the weekly recap of %s/%s due %s: more than %s late",
                due.ref.platform,
                due.ref.channel_id,
                f"{due.due_at:%Y-%m-%d %H:%M}",
                RECAP_GRACE,
            )
            # the next recap still within the grace comes next (it may be due now)
            after = max(due.due_at, now - RECAP_GRACE - dt.timedelta(microseconds=1))
            await store.finish_due_recap(due.ref, due.due_at, next_recap_after(cfg, after))
            return
        _, end = week_before(day)
        if not await store.mark_recap(due.ref, end, now):  # this week was recapped (e.g. before a day change)
            await store.finish_due_recap(due.ref, due.due_at, next_at)
            return
        try:
            card = await self.card(due.ref.platform, due.ref.space_id, end, channel_id=due.ref.channel_id)
            png = None if card.empty else await draw(card)
            await poster.post_recap(due.ref, card, png)
        except Exception as exc:
            await store.unmark_recap(due.ref, end)
            retry = now + RETRY
            if retry - promised > RECAP_GRACE:
                log.error(
                    "gave up the weekly recap of %s/%s: %s", due.ref.platform, due.ref.channel_id, type(exc).__name__
                )
                await store.finish_due_recap(due.ref, due.due_at, next_at)
            else:
                log.warning(
                    "posting the weekly recap of %s/%s failed (%s); retrying",
                    due.ref.platform,
                    due.ref.channel_id,
                    type(exc).__name__,
                )
                await store.finish_due_recap(due.ref, due.due_at, retry)
            return
        log.info("posted the weekly recap of %s/%s for the week ending %s", due.ref.platform, due.ref.channel_id, end)
        await store.finish_due_recap(due.ref, due.due_at, next_at)
        await self.seasons.after_due(cfg, due.due_at)  # on the 1st: last month's season card (once)


def _with_names(card: RecapCard, names: dict[str, str]) -> RecapCard:
    from dataclasses import replace

    return replace(card, names=tuple((uid, str(n)) for uid, n in names.items() if n))
