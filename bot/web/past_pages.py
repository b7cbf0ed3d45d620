"""Past questions: every member's page of the space's revealed daily questions, newest first, each with its
answer, explanation, how its channel answered and the member's own answer (the same service as `/quiz past`)."""

from __future__ import annotations

from aiohttp import web

from bot.daily.past import PastQuestion
from bot.kernel.topics import TOPICS
from bot.kernel.values import LETTERS
from bot.web.render import render
from bot.web.spaces import page_number, space_of


async def past_page(request: web.Request) -> web.Response:
    space = space_of(request)
    configs = await space.channels()
    labels = await space.channel_labels(c.ref.channel_id for c in configs)
    chosen = request.query.get("channel") or None
    if chosen is not None and chosen not in labels:
        chosen = None  # a channel of another space, or none: the whole space
    shown = await space.features.past.page(space.platform, space.id, space.actor.user_id, page_number(request), chosen)
    items = [_view(item, labels) for item in shown.items]
    return render(
        request, "past.html", space=space, items=items, shown=shown, labels=labels, chosen=chosen, letters=LETTERS
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


def add_routes(app: web.Application, base: str) -> None:
    app.router.add_get(base + "/past", past_page)
