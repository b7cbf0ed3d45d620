"""Review on the dashboard: the learner's due reviews one question at a time, served, answered and judged by the
same practice service as `/quiz review` (today's share of the due cards within their daily limit, the most at
risk first; "not sure" rates a right answer Hard). Nothing is kept between requests but the store's rounds, so
any process serves the next page and a reload sends nothing again."""

from __future__ import annotations

from aiohttp import web

from bot.kernel.errors import BadSetting, QuizError, UnknownRound
from bot.kernel.parsing import parse_choice, parse_number
from bot.kernel.topics import TOPICS
from bot.kernel.values import LETTERS
from bot.practice.cards import ReviewEmpty
from bot.web.notices import done_and_back, notice_of
from bot.web.render import render
from bot.web.spaces import Space, space_of


async def review_page(request: web.Request) -> web.Response:
    space = space_of(request)
    answered = parse_number(request.query.get("answered", ""))
    sure = request.query.get("sure") != "0"
    return await _page(request, space, answered=answered, sure=sure, done=notice_of(request))


async def _page(
    request: web.Request,
    space: Space,
    *,
    answered: int | None = None,
    sure: bool = True,
    done: str | None = None,
    problem: str | None = None,
    status: int = 200,
) -> web.Response:
    """The verdict of the answer just given (`answered`), the question waiting for an answer, or today's reviews
    and the button that serves the next one."""
    practice = space.features.practice
    user = space.actor.user_id
    judged = await practice.verdict_of(space.platform, space.id, user, answered, sure=sure) if answered else None
    waiting = await practice.waiting_question(space.platform, space.id, user)
    pool = space.pool_ref(await space.channels())
    day = await practice.reviews_today(pool, user)
    topics = [(t, TOPICS.get(t, t)) for t in await practice.practice_topics(pool)]
    return render(
        request,
        "review.html",
        status=status,
        space=space,
        judged=judged,
        waiting=waiting,
        day=day,
        done=done,
        problem=problem,
        letters=LETTERS,
        topics=topics,
        review_command=space.features.context.commands_of(space.platform).review,
    )


async def start(request: web.Request) -> web.Response:
    """Serve the next review question (one at a time), or say why there is none (paused, today's done)."""
    space = space_of(request)
    try:
        served = await space.features.practice.start_review(
            space.pool_ref(await space.channels()), space.actor.user_id, 1
        )
    except QuizError as exc:
        return await _page(request, space, problem=exc.message, status=400)
    if isinstance(served, ReviewEmpty):
        raise done_and_back(request, f"{space.base}/review", served.text)
    raise web.HTTPSeeOther(f"{space.base}/review#question")


async def practise(request: web.Request) -> web.Response:
    """A practice question now (any topic, or the one picked), as `/quiz practice`: never counted on the boards."""
    space = space_of(request)
    form = await request.post()
    topic = str(form.get("topic", "")) or None
    try:
        await space.features.practice.start_practice(space.pool_ref(await space.channels()), space.actor.user_id, topic)
    except QuizError as exc:
        return await _page(request, space, problem=exc.message, status=400)
    raise web.HTTPSeeOther(f"{space.base}/review#question")


async def answer(request: web.Request) -> web.Response:
    """The learner's answer to the question shown: recorded once (the first answer locks), then its verdict."""
    space = space_of(request)
    form = await request.post()
    round_id = parse_number(str(form.get("round", "")))
    sure = form.get("unsure") is None
    try:
        if round_id is None:
            raise UnknownRound("That question is not known here.")
        if not form.get("choice"):
            raise BadSetting("Pick an answer: A, B, C or D.")
        choice = parse_choice(str(form.get("choice")))
        outcome = await space.features.answers.submit_answer(
            round_id, space.actor.user_id, choice, space=(space.platform, space.id), sure=sure
        )
    except QuizError as exc:
        return await _page(request, space, problem=exc.message, status=400)
    if outcome.verdict is None:  # a daily question's answer: only its private acknowledgement
        raise done_and_back(request, f"{space.base}/review", outcome.text)
    raise web.HTTPSeeOther(f"{space.base}/review?answered={round_id}{'' if sure else '&sure=0'}#verdict")


def add_routes(app: web.Application, base: str) -> None:
    app.router.add_get(base + "/review", review_page)
    app.router.add_post(base + "/review/start", start)
    app.router.add_post(base + "/review/practice", practise)
    app.router.add_post(base + "/review/answer", answer)
