"""Reports of a question's problems: members report, admins resolve; a question with 3 open reports in a
space is held from selection there (daily, practice and review) until an admin resolves it.

A report names a round (the reveal's or a practice verdict's "Report a problem" button), or, typed as
`/quiz report [reason] [text]`, the most recent of the channel's latest daily question and the member's own
latest practice question in the space. Every rule that decides (the daily limit, one open report per member
and question) is decided in the store, so two processes never both let a report through.

Resolving a report resolves every open report of its question:
- keep: the question is fine; the reports close and it is asked again (this also lifts an earlier hold);
- hold: the reports close and the question stays held until an admin keeps it;
- edit (a space's own pack only): like hold, with the steps to fix the question (export, correct it,
  import again with replace, then keep). The shipped pack `pytorch` can be kept or held only.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Protocol
from zoneinfo import ZoneInfo

from bot.kernel.context import Context
from bot.kernel.echo import echo
from bot.kernel.errors import BadSetting, NotAllowed, ReportRefused, UnknownRound
from bot.kernel.parsing import ROUND_ID_MAX
from bot.kernel.values import Actor, ChannelRef, Question, Round, RoundKind
from bot.packs.catalog import BANK_PACK
from bot.reports.store import ReportDeskStore
from bot.reports.values import NewReport, Report, ReportReason, ReportWrite

REPORT_DAILY_LIMIT = 5  # reports per member per space per (the space's local) day


HOLD_AT = 3  # open reports that hold a question from selection in the space


MAX_REPORT_TEXT = 500


QUEUE_SHOWN = 10  # open reports listed at once (oldest first)


QUEUE_TEXT = 160  # characters of a report's text the queue shows


QUEUE_PROMPT = 100  # characters of a reported question's prompt the queue shows


ACTIONS = ("keep", "hold", "edit")


REASON_LABELS = {
    ReportReason.WRONG: "wrong answer",
    ReportReason.UNCLEAR: "unclear",
    ReportReason.TYPO: "typo",
    ReportReason.OTHER: "other",
}


_REASON_WORDS = {
    "wrong": ReportReason.WRONG,
    "wrong-answer": ReportReason.WRONG,
    "answer": ReportReason.WRONG,
    "unclear": ReportReason.UNCLEAR,
    "typo": ReportReason.TYPO,
    "other": ReportReason.OTHER,
}


_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f\u2028\u2029\ud800-\udfff]")  # line breaks (\n) stay


ADMINS_ONLY = "Only members who can manage this server or workspace can {what}."


def parse_reason(word: str | None) -> ReportReason | None:
    """A reason word (wrong, unclear, typo, other; a form's value too); None when it is not one."""
    return _REASON_WORDS.get((word or "").strip().lower())


def clean_text(text: str | None) -> str:
    """The member's words as stored: control characters dropped, trimmed, at most 500 characters."""
    cleaned = _CONTROL.sub(" ", text or "").strip()
    if len(cleaned) > MAX_REPORT_TEXT:
        raise BadSetting(
            f"A report's text takes at most {MAX_REPORT_TEXT} characters; yours has {len(cleaned):,}. Shorten it."
        )
    return cleaned


def parse_report_words(words: list[str]) -> tuple[ReportReason, str]:
    """`[reason] [text]` as typed: a first word that is a reason gives it (default: other), the rest is text."""
    reason = parse_reason(words[0]) if words else None
    rest = words[1:] if reason is not None else words
    return reason or ReportReason.OTHER, clean_text(" ".join(rest))


def pack_of(question_id: str) -> str:
    """The pack a question id belongs to (`PACK/ID` for a space's own packs, the shipped bank otherwise)."""
    return question_id.split("/", 1)[0] if "/" in question_id else BANK_PACK


def check_action(action: str) -> str:
    word = action.strip().lower()
    if word not in ACTIONS:
        raise BadSetting(f"'{echo(action)}' is not a way to resolve a report: use keep, hold or edit.")
    return word


@dataclass(frozen=True)
class ReportsCard:
    """The admins' queue of a space: open reports, oldest first, and the questions held there."""

    reports: tuple[Report, ...]  # open, oldest first (at most QUEUE_SHOWN)
    more: int  # open reports not listed
    open_counts: tuple[tuple[str, int], ...]  # question id -> open reports
    held: tuple[str, ...]  # question ids held from selection
    resolve_hint: str = "/quiz admin resolve ID keep|hold|edit"
    prompts: tuple[tuple[str, str], ...] = ()  # question id -> its prompt, for the reports listed

    def render(
        self, escape: Callable[[str], str] = str, who: Callable[[str], str] = str, limit: int | None = None
    ) -> str:
        """The queue as one text: `escape` makes member text plain on the platform, `who` names a reporter;
        within `limit` characters, the reports that do not fit are counted instead of cut off."""
        counts, prompts = dict(self.open_counts), dict(self.prompts)
        total = len(self.reports) + self.more
        entries = []
        for r in self.reports:
            held = " (held)" if r.question_id in self.held else ""
            words = echo(r.text, QUEUE_TEXT) if r.text else "(no text)"
            entry = (
                escape(
                    f"#{r.id} {r.question_id}{held} [{REASON_LABELS[r.reason]}], "
                    f"{counts.get(r.question_id, 1)} open on it, {r.created_at:%Y-%m-%d}, by "
                )
                + who(r.reporter)
                + escape(f": {words}")
            )
            if r.question_id in prompts:
                entry += "\n" + escape(f"    Q: {echo(prompts[r.question_id], QUEUE_PROMPT)}")
            entries.append(entry)
        tail = []
        quiet = [q for q in self.held if q not in counts]
        if quiet:
            tail.append(escape("Held without open reports: " + ", ".join(quiet[:20])))
        if total or quiet:
            tail.append(escape(f"Resolve with {self.resolve_hint}"))
        shown = len(entries)
        while True:
            more = self.more + len(entries) - shown
            lines = [f"Reports: {total} open" if total else "Reports: none open", *entries[:shown]]
            lines += [f"... and {more} more (resolve these first)"] if more else []
            text = "\n".join([*lines, *tail])
            if limit is None or len(text) <= limit or shown == 0:
                return text if limit is None else text[:limit]
            shown -= 1

    @property
    def text(self) -> str:
        return self.render()


class QuestionLookup(Protocol):
    """The questions of a space's packs as they read now (the packs' catalog provides them)."""

    async def questions(
        self, platform: str, space_id: str, names: Iterable[str], *, strict: bool = True
    ) -> tuple[Question, ...]: ...


class ReportDesk:
    """Members report a question's problems, admins see the queue and resolve it."""

    def __init__(self, ctx: Context, store: ReportDeskStore, questions: QuestionLookup | None = None) -> None:
        self.ctx = ctx
        self.store = store
        self.questions = questions

    async def report_counts(self, platform: str, space_id: str) -> dict[str, int]:
        """Open reports per question id in the space."""
        counts = await self.store.report_counts(platform, space_id)
        return {question: still for question, (_, still) in counts.items() if still}

    async def held(self, platform: str, space_id: str) -> set[str]:
        """Questions not to select in the space (3 open reports or more, or held by an admin)."""
        return await self.store.held_question_ids(platform, space_id, HOLD_AT)

    async def _day_start(self, platform: str, space_id: str) -> dt.datetime:
        today, tz = await self.ctx.space_today(platform, space_id)
        return dt.datetime.combine(today, dt.time(), ZoneInfo(tz))

    async def report_round(
        self,
        user_id: str,
        round_id: int,
        reason: ReportReason,
        text: str = "",
        *,
        space: tuple[str, str] | None = None,
    ) -> str:
        """Report the question a round asked; the reply for the reporter. `space` is where the click came from."""
        round_ = await self.store.get_round(round_id)
        if round_ is None or (space is not None and (round_.ref.platform, round_.ref.space_id) != space):
            raise UnknownRound("That question is not known here (it may be from another bot).")
        if round_.kind is RoundKind.PRACTICE and round_.user_id != user_id:
            raise NotAllowed("That practice question was someone else's; report the questions you were asked.")
        return await self._add(round_, user_id, reason, text)

    async def report_latest(self, ref: ChannelRef, user_id: str, reason: ReportReason, text: str = "") -> str:
        """`/quiz report`: the more recent of the channel's latest daily question and the member's latest
        practice question in the space."""
        store = self.store
        daily = await store.latest_daily_round(ref)
        practice = await store.latest_practice_round(ref.platform, ref.space_id, user_id)
        found = [r for r in (daily, practice) if r is not None and (r.kind is RoundKind.PRACTICE or r.is_posted)]
        if not found:
            raise BadSetting("There is no question to report yet: no daily question here and no practice of yours.")
        return await self._add(max(found, key=lambda r: r.id), user_id, reason, text)

    async def _add(self, round_: Round, user_id: str, reason: ReportReason, text: str) -> str:
        platform, space_id = round_.ref.platform, round_.ref.space_id
        report = NewReport(
            platform,
            space_id,
            round_.question_id,
            pack_of(round_.question_id),
            user_id,
            reason,
            clean_text(text),
            self.ctx.clock.now(),
        )
        since = await self._day_start(platform, space_id)
        status, report_id = await self.store.add_report(report, since=since, daily_limit=REPORT_DAILY_LIMIT)
        if status is ReportWrite.DUPLICATE:
            raise ReportRefused("You have already reported this question; an admin will look at it.")
        if status is ReportWrite.LIMIT:
            raise ReportRefused(
                f"You have made {REPORT_DAILY_LIMIT} reports today, the most a member may make in a day; "
                "please try again tomorrow."
            )
        return (
            f"Thanks: your report #{report_id} ({REASON_LABELS[reason]}) on question {round_.question_id} "
            "is in the admins' queue."
        )

    async def queue(self, actor: Actor, platform: str, space_id: str, resolve_hint: str | None = None) -> ReportsCard:
        """Admins only: the space's open reports, oldest first, and its held questions."""
        if not actor.is_admin:
            raise NotAllowed(ADMINS_ONLY.format(what="see the reports queue"))
        store = self.store
        counts = await store.report_counts(platform, space_id)
        open_reports = await store.reports(platform, space_id, limit=QUEUE_SHOWN)
        total_open = sum(still for _, still in counts.values())
        held = await self.held(platform, space_id)
        card = ReportsCard(
            tuple(open_reports),
            max(0, total_open - len(open_reports)),
            tuple(sorted((q, still) for q, (_, still) in counts.items() if still)),
            tuple(sorted(held)),
            prompts=await self._prompts(platform, space_id, {r.question_id for r in open_reports}),
        )
        return card if resolve_hint is None else replace(card, resolve_hint=resolve_hint)

    async def _prompts(self, platform: str, space_id: str, question_ids: set[str]) -> tuple[tuple[str, str], ...]:
        """The prompts of the reported questions still in the space (never their answers: one may be open), their
        packs read once."""
        if self.questions is None or not question_ids:
            return ()
        packs = {pack_of(question_id) for question_id in question_ids}
        found = await self.questions.questions(platform, space_id, packs, strict=False)
        return tuple(sorted((q.id, " ".join(q.prompt.split())) for q in found if q.id in question_ids))

    async def find(self, actor: Actor, platform: str, space_id: str, report_id: int) -> Report | None:
        """Admins only: the space's report with this number (None: no such report in this space)."""
        if not actor.is_admin:
            raise NotAllowed(ADMINS_ONLY.format(what="see the reports queue"))
        known = 0 < report_id <= ROUND_ID_MAX
        return await self.store.get_report(platform, space_id, report_id) if known else None

    async def resolve(self, actor: Actor, platform: str, space_id: str, report_id: int, action: str) -> str:
        """Admins only: resolve a report (and every open report of its question) with keep, hold or edit."""
        if not actor.is_admin:
            raise NotAllowed(ADMINS_ONLY.format(what="resolve reports"))
        action = check_action(action)
        store = self.store
        known = 0 < report_id <= ROUND_ID_MAX  # a store keeps ids as signed 64-bit integers
        report = await store.get_report(platform, space_id, report_id) if known else None
        if report is None:
            raise BadSetting(f"There is no report #{report_id} in this space; the reports queue lists them.")
        qid = report.question_id
        if action == "edit" and report.pack == BANK_PACK:
            raise BadSetting(
                f"Question {qid} is in the shipped pack {BANK_PACK}, which cannot be edited here: resolve it with "
                "keep (it is fine) or hold (it is not asked here again)."
            )
        closed = await store.resolve_reports(platform, space_id, qid, action, actor.user_id, self.ctx.clock.now())
        done = f"Report #{report_id}: {closed} open report(s) on question {qid} closed"
        if action == "keep":
            return f"{done}; the question is kept and asked again."
        if action == "hold":
            return f"{done}; the question is held here until an admin resolves #{report_id} with keep."
        bare = qid.split("/", 1)[1]
        return (
            f"{done}; the question is held. To fix it: export the pack {report.pack}, correct question {bare} in "
            f"the file, import it again replacing the pack, then resolve #{report_id} with keep to ask it again."
        )
