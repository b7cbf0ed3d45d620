"""Suggest a question: a member's form for a question of their own, checked and stored by the same suggestions
service as the chat's /quiz suggest (and its platforms' forms); an admin reviews it in Reports and suggestions."""

from __future__ import annotations

from aiohttp import web

from bot.kernel.errors import BadSuggestion, QuizError
from bot.kernel.topics import TOPICS
from bot.kernel.values import LETTERS, Difficulty
from bot.suggestions.service import DAILY_LIMIT, SuggestionForm, suggested_text
from bot.web.notices import done_and_back, notice_of
from bot.web.render import render
from bot.web.spaces import Space, space_of

SHOWN = {"topic", "difficulty", "prompt", "code", "choices", "answer", "explanation", "reference"}  # marked fields
FIELDS = ("topic", "difficulty", "prompt", "code", "a", "b", "c", "d", "answer", "explanation", "reference")


def _page(
    request: web.Request,
    space: Space,
    typed: dict[str, str],
    *,
    done: str | None = None,
    problem: str | None = None,
    beside: str = "",
    field: str | None = None,
    status: int = 200,
) -> web.Response:
    """The form, as typed (empty after a suggestion is saved), with what was saved or the field in the wrong."""
    return render(
        request,
        "suggest.html",
        status=status,
        space=space,
        typed=typed,
        done=done,
        problem=problem,
        beside=beside,
        field=field,
        topics=sorted(TOPICS),
        levels=[d.value for d in Difficulty],
        letters=LETTERS,
        daily_limit=DAILY_LIMIT,
    )


async def suggest_page(request: web.Request) -> web.Response:
    return _page(request, space_of(request), {"difficulty": Difficulty.MEDIUM.value}, done=notice_of(request))


async def suggest(request: web.Request) -> web.Response:
    """Store the suggestion pending (within the daily limit), or say which field breaks which rule; nothing is
    stored then, and the form keeps what was typed."""
    space = space_of(request)
    posted = await request.post()
    typed = {name: str(posted.get(name, "")).replace("\r\n", "\n") for name in FIELDS}  # a textarea's CR LF
    form = SuggestionForm(
        topic=typed["topic"],
        prompt=typed["prompt"],
        choices=(typed["a"], typed["b"], typed["c"], typed["d"]),
        answer=typed["answer"],
        explanation=typed["explanation"],
        difficulty=typed["difficulty"],
        code=typed["code"] or None,
        reference=typed["reference"] or None,
    )
    try:
        saved = await space.features.suggestions.suggest(space.ref(), space.actor.user_id, form)
    except BadSuggestion as exc:
        beside = exc.message.split(f" {exc.field}: ", 1)[-1]  # the rule, beside its field
        summary = "Your suggestion was not saved: correct the field marked below."
        if exc.field not in SHOWN:  # a rule of the whole form: said at the top only
            summary, beside = exc.message, ""
        return _page(request, space, typed, problem=summary, beside=beside, field=exc.field, status=400)
    except QuizError as exc:  # the daily limit
        return _page(request, space, typed, problem=exc.message, status=400)
    raise done_and_back(request, f"{space.base}/suggest", suggested_text(saved))


def add_routes(app: web.Application, base: str) -> None:
    app.router.add_get(base + "/suggest", suggest_page)
    app.router.add_post(base + "/suggest", suggest)
