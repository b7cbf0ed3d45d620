"""Past questions: every member's page of the space's revealed daily questions, newest first, each with its
answer, explanation, how its channel answered and the member's own answer (the same service as `/quiz past`),
and a form to report a problem with one (the same report desk as `/quiz report`)."""

from __future__ import annotations

from urllib.parse import urlencode

from aiohttp import web

from bot.daily.past import PastQuestion
from bot.kernel.errors import BadSetting, QuizError, UnknownRound
from bot.kernel.parsing import parse_number
from bot.kernel.topics import TOPICS
from bot.kernel.values import LETTERS
from bot.reports.service import MAX_REPORT_TEXT, REASON_LABELS
from bot.reports.values import ReportReason
from bot.web.notices import done_and_back, notice_of
from bot.web.render import render
from bot.web.spaces import PAGE_DIGITS, Space, page_number, space_of


async def past_page(request: web.Request) -> web.Response:
    space = space_of(request)
    return await _page(request, space, page_number(request), request.query.get("channel", ""), done=notice_of(request))


async def _page(
    request: web.Request,
    space: Space,
    page: int,
    channel: str,
    *,
    done: str | None = None,
    problem: str | None = None,
    status: int = 200,
) -> web.Response:
    """One page of the space's (or `channel`'s) past questions; `done` or `problem`: what a report just did or
    why it did nothing."""
    configs = await space.channels()
    labels = await space.channel_labels(c.ref.channel_id for c in configs)
    chosen = channel if channel in labels else None  # a channel of another space, or none: the whole space
    shown = await space.features.past.page(space.platform, space.id, space.actor.user_id, page, chosen)
    return render(
        request,
        "past.html",
        status=status,
        space=space,
        items=[_view(item, labels) for item in shown.items],
        shown=shown,
        labels=labels,
        chosen=chosen,
        done=done,
        problem=problem,
        reasons=[(reason.value, label) for reason, label in REASON_LABELS.items()],
        text_max=MAX_REPORT_TEXT,
    )


def _view(item: PastQuestion, labels: dict[str, str]) -> dict[str, object]:
    """What the page shows of one question: each choice marked right, the member's own, and how many chose it."""
    q = item.question
    return {
        "item": item,
        "q": q,
        "topic": TOPICS.get(q.topic, q.topic),
        "channel": labels.get(item.round.ref.channel_id, item.round.ref.channel_id),
        "choices": [
            {
                "letter": LETTERS[i],
                "text": text,
                "right": i == q.answer,
                "mine": i == item.mine,
                "chosen": item.chosen.get(i, 0),
                "why": q.why_wrong[i] if i < len(q.why_wrong) and i != q.answer else "",
            }
            for i, text in enumerate(q.choices)
        ],
    }


async def past_report(request: web.Request) -> web.Response:
    """A member reports a problem with one past question: into the admins' queue (one report per member and
    question, a few a day), then back to where they were; a refused report says why and changes nothing."""
    space = space_of(request)
    form = await request.post()
    page = max(1, parse_number(str(form.get("page", "")), PAGE_DIGITS) or 1)
    channel = str(form.get("channel", ""))
    round_id = parse_number(str(form.get("round", "")))
    try:
        if round_id is None:
            raise UnknownRound("That question is not known here.")
        try:
            reason = ReportReason(str(form.get("reason", "")))
        except ValueError:
            raise BadSetting("Pick what is wrong: " + ", ".join(REASON_LABELS.values()) + ".") from None
        message = await space.features.reports.report_round(
            space.actor.user_id, round_id, reason, str(form.get("text", "")), space=(space.platform, space.id)
        )
    except QuizError as exc:
        return await _page(request, space, page, channel, problem=exc.message, status=400)
    query = {"page": str(page)} if page > 1 else {}
    query |= {"channel": channel} if channel else {}
    back = f"{space.base}/past" + (f"?{urlencode(query)}" if query else "")
    raise done_and_back(request, f"{back}#q-{round_id}", message)


def add_routes(app: web.Application, base: str) -> None:
    app.router.add_get(base + "/past", past_page)
    app.router.add_post(base + "/past/report", past_report)
