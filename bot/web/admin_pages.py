"""Admins' pages of a space: packs (upload with every problem beside its question and field, preview as
players see the questions, use per channel, download), the reports and suggestions queues, question
statistics and a page for each question. The same services as the chat commands decide and notify."""

from __future__ import annotations

import json
import re
from typing import Any

from aiohttp import web
from aiohttp.web_request import FileField

from bot.kernel.errors import PackError, QuizError
from bot.kernel.topics import TOPICS
from bot.kernel.values import LETTERS
from bot.packs.catalog import BANK_PACK
from bot.packs.files import MAX_UPLOAD_BYTES, format_of, pack_name_of
from bot.reports.service import ACTIONS, REASON_LABELS
from bot.settings import ConfigChange
from bot.suggestions.service import decided_text
from bot.web.notices import done_and_back, notice_of
from bot.web.render import render
from bot.web.spaces import Space, number, page_number, space_of

PREVIEW_PAGE = 20
# "LABEL: WHERE: field FIELD: PROBLEM" as bot/packs/files.py words an upload's problems
_PROBLEM = re.compile(
    r"^(?:[^:]*: )?(?P<where>row \d+(?: \(question [^)]*\))?|question [^:]+): "
    r"(?:field (?P<field>[^:]+): )?(?P<text>.*)$"
)


def problem_rows(exc: PackError) -> list[dict[str, str]]:
    """Each problem of an upload as (where: the question or row, field, what is wrong)."""
    rows = []
    for line in exc.problems or [exc.message]:
        m = _PROBLEM.match(line)
        if m is None:
            rows.append({"where": "the file", "field": "", "text": line})
        else:
            rows.append({"where": m["where"], "field": m["field"] or "", "text": m["text"]})
    return rows


# ---- packs ---------------------------------------------------------------------------------------


async def _packs_context(space: Space) -> dict[str, Any]:
    packs = await space.features.catalog.list(space.platform, space.id)
    channels = await space.channels()
    users = {p.name: [c.ref.channel_id for c in channels if p.name in c.packs] for p in packs}
    return {"packs": packs, "channels": channels, "users": users}


async def packs(request: web.Request) -> web.Response:
    space = space_of(request, admin=True)
    message = notice_of(request)
    return render(request, "packs.html", space=space, problems=None, message=message, **await _packs_context(space))


async def upload(request: web.Request) -> web.Response:
    """All or nothing, as `/quiz admin import`: every problem is listed by question and field."""
    space = space_of(request, admin=True)
    form = await request.post()
    file = form.get("file")
    replace = form.get("replace") == "on"
    try:
        if not isinstance(file, FileField) or not file.filename:
            raise PackError("Choose a .yaml, .yml or .csv file to upload.")
        name = str(form.get("pack") or "").strip().lower() or pack_name_of(file.filename)
        data = file.file.read(MAX_UPLOAD_BYTES + 1)
        result = await space.features.packs.import_pack(
            space.actor,
            space.ref(),
            name,
            data,
            format_of(file.filename),
            replace=replace,
            label=file.filename,
            size=len(data),
        )
    except PackError as exc:
        return render(
            request,
            "packs.html",
            status=400,
            space=space,
            problems=problem_rows(exc),
            message=exc.message,
            **await _packs_context(space),
        )
    raise done_and_back(request, f"{space.base}/packs", f"{result.text} Use it in a channel below.")


async def _pack(space: Space, name: str) -> Any:
    found = next((p for p in await space.features.catalog.list(space.platform, space.id) if p.name == name), None)
    if found is None:
        raise web.HTTPNotFound()
    return found


async def pack_page(request: web.Request) -> web.Response:
    """The pack's questions as players see them (no answer), a page at a time; which channels use it."""
    space = space_of(request, admin=True)
    info = await _pack(space, request.match_info["pack"])
    questions = await space.features.catalog.questions(space.platform, space.id, [info.name])
    page = page_number(request)
    shown = questions[(page - 1) * PREVIEW_PAGE : page * PREVIEW_PAGE]
    channels = await space.channels()
    return render(
        request,
        "pack.html",
        space=space,
        pack=info,
        questions=shown,
        letters=LETTERS,
        page=page,
        pages=max(1, -(-len(questions) // PREVIEW_PAGE)),
        channels=channels,
        labels=await space.channel_labels(c.ref.channel_id for c in channels),
        message=notice_of(request),
        problem=None,
    )


async def pack_channels(request: web.Request) -> web.Response:
    """Use the pack in the ticked channels (and not in the others), through the channel settings."""
    space = space_of(request, admin=True)
    info = await _pack(space, request.match_info["pack"])
    form = await request.post()
    ticked = set(form.getall("channel", []))
    message, problem = [], None
    before = await space.channels()
    labels = await space.channel_labels(c.ref.channel_id for c in before)
    for cfg in before:
        wanted = cfg.packs | {info.name} if cfg.ref.channel_id in ticked else cfg.packs - {info.name}
        if wanted == cfg.packs:
            continue
        try:
            await space.features.channels.configure(space.actor, cfg.ref, ConfigChange.of(packs=frozenset(wanted)))
        except QuizError as exc:
            problem = f"{labels[cfg.ref.channel_id]}: {exc.message}"
            break
        message.append(f"{labels[cfg.ref.channel_id]} now draws from {', '.join(sorted(wanted))}.")
    if problem is None:
        raise done_and_back(request, f"{space.base}/packs/{info.name}", " ".join(message) or "Nothing changed.")
    questions = await space.features.catalog.questions(space.platform, space.id, [info.name])
    return render(
        request,
        "pack.html",
        status=400,
        space=space,
        pack=info,
        questions=questions[:PREVIEW_PAGE],
        letters=LETTERS,
        page=1,
        pages=max(1, -(-len(questions) // PREVIEW_PAGE)),
        channels=await space.channels(),  # as they are now: those before the refused one changed
        labels=labels,
        message=" ".join(message) or None,
        problem=problem,
    )


async def download(request: web.Request) -> web.Response:
    space = space_of(request, admin=True)
    info = await _pack(space, request.match_info["pack"])
    fmt = request.match_info["format"]
    if fmt not in ("yaml", "csv") or info.name == BANK_PACK:
        raise web.HTTPNotFound()
    file = await space.features.packs.export_pack(
        space.actor, space.ref(), info.name, "csv" if fmt == "csv" else "yaml"
    )
    kind = "text/csv" if fmt == "csv" else "application/yaml"
    return web.Response(
        body=file.data, content_type=kind, headers={"Content-Disposition": f'attachment; filename="{file.filename}"'}
    )


# ---- reports and suggestions ----------------------------------------------------------------------


async def _queues(space: Space) -> dict[str, Any]:
    reports = await space.features.reports.queue(space.actor, space.platform, space.id)
    pending = await space.features.suggestions.pending(space.actor, space.platform, space.id)
    suggestions = [(s, json.loads(s.body)) for s in pending.items]
    return {
        "reports": reports,
        "counts": dict(reports.open_counts),
        "labels": REASON_LABELS,
        "actions": ACTIONS,
        "suggestions": suggestions,
        "more": pending.more,
    }


async def queues(request: web.Request) -> web.Response:
    space = space_of(request, admin=True)
    message = notice_of(request)
    return render(request, "queues.html", space=space, message=message, problem=None, **await _queues(space))


async def resolve(request: web.Request) -> web.Response:
    space = space_of(request, admin=True)
    report_id = number(request, "id")
    if await space.features.reports.find(space.actor, space.platform, space.id, report_id) is None:
        raise web.HTTPNotFound()
    form = await request.post()
    try:
        message = await space.features.reports.resolve(
            space.actor, space.platform, space.id, report_id, str(form.get("action", ""))
        )
    except QuizError as exc:
        return await _queues_problem(request, space, exc.message)
    raise done_and_back(request, f"{space.base}/queues", message)


async def _queues_problem(request: web.Request, space: Space, problem: str) -> web.Response:
    """The queues again, with why the form just sent did nothing (400)."""
    queued = await _queues(space)
    return render(request, "queues.html", status=400, space=space, message=None, problem=problem, **queued)


async def decide(request: web.Request) -> web.Response:
    space = space_of(request, admin=True)
    suggestion_id = number(request, "id")
    if await space.features.suggestions.find(space.actor, space.platform, space.id, suggestion_id) is None:
        raise web.HTTPNotFound()
    form = await request.post()
    try:
        if request.match_info["verb"] == "approve":
            done = await space.features.suggestions.approve(space.actor, space.platform, space.id, suggestion_id)
        else:
            reason = str(form.get("reason", ""))
            done = await space.features.suggestions.reject(space.actor, space.platform, space.id, suggestion_id, reason)
    except QuizError as exc:  # BadSuggestion too
        return await _queues_problem(request, space, exc.message)
    raise done_and_back(request, f"{space.base}/queues", decided_text(done))


# ---- question statistics --------------------------------------------------------------------------

SORTS = {
    "question": lambda s: s.question_id,
    "asked": lambda s: s.asked,
    "answers": lambda s: s.answered,
    "correct": lambda s: s.correct_share,
    "reports": lambda s: s.reports,
    "flag": lambda s: s.check,
}


async def question_stats(request: web.Request) -> web.Response:
    """Every question asked here (revealed rounds only; never one open as a daily round now), sortable."""
    space = space_of(request, admin=True)
    table = await space.features.packs.question_table(space.actor, space.platform, space.id)
    sort = request.query.get("sort", "correct")
    sort = sort if sort in SORTS else "correct"
    descending = request.query.get("dir", "asc") == "desc"
    rows = sorted(table, key=lambda s: (SORTS[sort](s), s.question_id), reverse=descending)
    return render(
        request,
        "questions.html",
        space=space,
        rows=rows,
        sort=sort,
        descending=descending,
        sorts=list(SORTS),
        letters=LETTERS,
    )


async def question_page(request: web.Request) -> web.Response:
    """One question as an admin checks it (linked from the statistics and the reports): its text, choices, answer
    and explanation, its figures and open reports; while it is open in a channel, only what players see."""
    space = space_of(request, admin=True)
    view = await space.features.packs.question(space.actor, space.platform, space.id, request.match_info["qid"])
    if view is None:
        raise web.HTTPNotFound()
    q, stat = view.question, view.stat
    choices = [
        {
            "letter": LETTERS[i],
            "text": text,
            "right": i == q.answer,
            "why": q.why_wrong[i] if i < len(q.why_wrong) and i != q.answer else "",
            "chosen": stat.answers[i] if stat is not None and i < len(stat.answers) else None,
        }
        for i, text in enumerate(q.choices)
    ]
    return render(request, "question.html", space=space, view=view, choices=choices, topic=TOPICS.get(q.topic, q.topic))


def add_routes(app: web.Application, base: str) -> None:
    app.router.add_get(base + "/packs", packs)
    app.router.add_post(base + "/packs", upload)
    app.router.add_get(base + "/packs/{pack}", pack_page)
    app.router.add_post(base + "/packs/{pack}/channels", pack_channels)
    app.router.add_get(base + "/packs/{pack}/download/{format}", download)
    app.router.add_get(base + "/queues", queues)
    app.router.add_post(base + "/reports/{id}", resolve)
    app.router.add_post(base + "/suggestions/{id}/{verb:approve|reject}", decide)
    app.router.add_get(base + "/questions", question_stats)
    app.router.add_get(base + "/questions/{qid:.+}", question_page)
