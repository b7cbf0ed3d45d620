"""My progress: the learner's charts and learning report, their review limit and vacation hold, their interview
plan, their reminders, the export of their misses and forget-me, each through the same feature services as the
chat's /quiz progress, review limit|pause|resume, plan, remind, export and forget-me."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from aiohttp import web

from bot.kernel.echo import echo
from bot.kernel.errors import BadSetting, NothingToExport
from bot.kernel.parsing import parse_number, parse_timezone, suggest_timezones
from bot.kernel.timing import local_text
from bot.kernel.values import ChannelConfig, ChannelRef
from bot.mydata.forget import FORGET_WHAT
from bot.practice.plans import parse_plan_date
from bot.practice.values import PAUSE_MAX_DAYS, REVIEW_LIMIT_MAX
from bot.reminders.service import DEFAULT_TIME, parse_remind_time
from bot.reminders.values import Reminder
from bot.web.charts import draw
from bot.web.notices import done_and_back, notice_of
from bot.web.progress import progress_report
from bot.web.render import render
from bot.web.spaces import Space, space_of

PNG = "image/png"


FORMS = ("reviews", "plan", "reminders")  # the page's settings forms, each saved on its own


async def _page(
    request: web.Request,
    space: Space,
    *,
    done: str | None = None,
    status: int = 200,
    saved: str | None = None,
    saved_text: str = "",
    problem: tuple[str, str] | None = None,
    reminder_typed: dict[str, str] | None = None,
    plan_typed: dict[str, Any] | None = None,
) -> web.Response:
    """The page, with what was just done (`done`), which form was just saved (`saved`, one of FORMS), or a
    form's problem (`problem`: the form and its message; the reminders' or the plan's form as typed, to correct
    it)."""
    features, user = space.features, space.actor.user_id
    report = await progress_report(features, space.platform, space.id, user)
    reminder = await features.reminders.mine(space.platform, space.id, user)
    channels = await space.channels()
    form, message = problem or ("", "")
    return render(
        request,
        "progress.html",
        status=status,
        space=space,
        report=report,
        forget_what=FORGET_WHAT,
        done=done,
        saved=saved,
        saved_text=saved_text,
        problems={form: message} if problem else {},
        reminder_now=reminder_now(reminder),
        reminder=reminder_typed or reminder_form(reminder, channels),
        plan=replace(await plan_view(space, channels), **(plan_typed or {})),
        channels=channels,
        labels=await space.channel_labels(c.ref.channel_id for c in channels),
        zones=suggest_timezones("", limit=1000),
    )


@dataclass(frozen=True)
class PlanView:
    """The plan form: the plan's status lines (none: no plan), its date, channel and topics, and the topics to
    pick from (of every channel's packs: the channel chosen checks them)."""

    lines: tuple[str, ...]
    date: str
    channel: str
    chosen: tuple[str, ...]
    topics: tuple[str, ...]


async def _chosen_ref(space: Space, channel_id: str) -> ChannelRef:
    """Where a plan is made: the channel chosen in the form (its packs), else the channel of the plan running,
    else the space's first channel; a channel the space does not have is refused."""
    channels = await space.channels()
    if channel_id:
        found = next((cfg.ref for cfg in channels if cfg.ref.channel_id == channel_id), None)
        if found is None:
            raise BadSetting(f"'{echo(channel_id, 40)}' is not a channel of the quiz here. Nothing was changed.")
        return found
    active = await space.features.practice.plans.active(space.platform, space.id, space.actor.user_id)
    return active[0].ref if active is not None else space.pool_ref(channels)


async def _space_topics(space: Space, channels: list[ChannelConfig]) -> tuple[str, ...]:
    """Every topic a plan may take in the space: those of each distinct set of packs its channels use."""
    refs = {cfg.packs: cfg.ref for cfg in reversed(channels)} or {frozenset(): space.ref()}
    topics: set[str] = set()
    for ref in refs.values():
        topics.update(await space.features.practice.practice_topics(ref))
    return tuple(sorted(topics))


async def plan_view(space: Space, channels: list[ChannelConfig]) -> PlanView:
    plans, user = space.features.practice.plans, space.actor.user_id
    active = await plans.active(space.platform, space.id, user)
    status = await plans.status(space.platform, space.id, user) if active is not None else None
    ref = active[0].ref if active is not None else space.pool_ref(channels)
    topics = await _space_topics(space, channels)
    if active is None or status is None:
        return PlanView((), "", ref.channel_id, (), topics)
    plan = active[0]
    return PlanView(status.lines(), plan.plan_date.isoformat(), ref.channel_id, plan.topics, topics)


def reminder_now(reminder: Reminder | None) -> str:
    """One line: on (when, in which zone, the next one) or off."""
    if reminder is None or not reminder.enabled or reminder.next_at is None:
        return "Reminders are off."
    return (
        f"Reminders are on: at {reminder.at:%H:%M} ({reminder.timezone}); the next one "
        f"{local_text(reminder.next_at, reminder.timezone)}."
    )


def reminder_form(reminder: Reminder | None, channels: list[ChannelConfig]) -> dict[str, str]:
    """The form's values: the reminder's own, else 09:00 in the first channel's timezone."""
    if reminder is not None:
        return {
            "state": "on" if reminder.enabled else "off",
            "time": f"{reminder.at:%H:%M}",
            "timezone": reminder.timezone,
            "channel": reminder.channel_id,
        }
    first = channels[0] if channels else None
    return {
        "state": "off",
        "time": f"{DEFAULT_TIME:%H:%M}",
        "timezone": first.timezone if first else "UTC",
        "channel": first.ref.channel_id if first else "",
    }


async def progress(request: web.Request) -> web.Response:
    saved = request.query.get("saved")
    space, notice = space_of(request), notice_of(request)
    if saved in FORMS:  # what a settings form saved, said beside that form
        return await _page(request, space, saved=saved, saved_text=notice or "Saved.")
    return await _page(request, space, done=notice)


async def progress_png(request: web.Request) -> web.Response:
    space = space_of(request)
    report = await progress_report(space.features, space.platform, space.id, space.actor.user_id)
    chart = dict(report.charts).get(request.match_info["chart"])
    if chart is None:
        raise web.HTTPNotFound()
    return web.Response(body=await draw(chart), content_type=PNG)


async def save_reminders(request: web.Request) -> web.Response:
    """The learner's reminder set as `/quiz remind on HH:MM ZONE` (or off) sets it, from the channel picked
    (its daily question is the one a reminder mentions); a bad time or zone changes nothing."""
    space = space_of(request)
    posted = await request.post()
    form = {k: str(posted.get(k, "")).strip() for k in ("state", "time", "timezone", "channel")}
    on = form["state"] == "on"
    try:
        at = parse_remind_time(form["time"]) if on else None
        zone = parse_timezone(form["timezone"]) if on and form["timezone"] else None
    except BadSetting as exc:
        return await _page(request, space, status=400, problem=("reminders", exc.message), reminder_typed=form)
    reminders = space.features.reminders
    existing = await reminders.mine(space.platform, space.id, space.actor.user_id)
    if existing is not None and form["channel"] in ("", existing.channel_id):
        ref = existing.ref  # where it was turned on (a channel of the space's, or a direct message)
    elif form["channel"]:
        ref = (await space.channel(form["channel"])).ref  # 404 for a channel of another space
    else:
        ref = space.ref()
    await reminders.set(ref, space.actor.user_id, on, at, zone)
    now = reminder_now(await reminders.mine(space.platform, space.id, space.actor.user_id))
    raise done_and_back(request, f"{space.base}/progress?saved=reminders#reminders", f"Saved. {now}")


async def save_reviews(request: web.Request) -> web.Response:
    """The learner's daily review limit, or a vacation hold started or ended, as `/quiz review limit N`,
    `pause DAYS` and `resume` do it; a bad number changes nothing."""
    space = space_of(request)
    posted = await request.post()
    action, user = str(posted.get("action", "")), space.actor.user_id
    practice = space.features.practice
    ref = space.pool_ref(await space.channels())  # the pool a review day is counted in
    try:
        if action == "limit":
            limit = _count(posted.get("limit"), "limit")
            await practice.review_limit(ref, user, limit)
            said = f"Saved: at most {limit} review{'s' if limit != 1 else ''} a day."
        elif action == "pause":
            days = _count(posted.get("days"), "pause")
            await practice.pause_reviews(ref, user, days)
            said = f"Saved: reviews paused for {days} day{'s' if days != 1 else ''}."
        elif action == "resume":
            await practice.resume_reviews(ref, user)
            said = "Saved: reviews resumed."
        else:
            raise web.HTTPBadRequest(text="Unknown action.")
    except BadSetting as exc:
        return await _page(request, space, status=400, problem=("reviews", exc.message))
    raise done_and_back(request, f"{space.base}/progress?saved=reviews#reviews", said)


def _count(value: object, what: str) -> int:
    """A whole number typed in the form; BadSetting (its range is the service's to check) when it is none."""
    number = parse_number(str(value or "").strip(), max_digits=4)
    if number is None:
        span = f"1 to {REVIEW_LIMIT_MAX} reviews a day" if what == "limit" else f"1 to {PAUSE_MAX_DAYS} days"
        raise BadSetting(f"'{echo(value, 20)}' is not a whole number: use {span}. Nothing was changed.")
    return number


async def save_plan(request: web.Request) -> web.Response:
    """An interview-date plan made (its date and topics) or dropped, as `/quiz plan DATE [topics]` and
    `/quiz plan off` do; a bad date changes nothing."""
    space = space_of(request)
    posted = await request.post()
    action, user = str(posted.get("action", "")), space.actor.user_id
    plans = space.features.practice.plans
    try:
        if action == "save":
            day = parse_plan_date(str(posted.get("date", "")))
            topics = tuple(dict.fromkeys(str(t).strip().lower() for t in posted.getall("topics", [])))
            await plans.set(await _chosen_ref(space, str(posted.get("channel", ""))), user, day, topics)
            said = f"Saved: a plan for {day:%a %d %b %Y} ({', '.join(topics) or 'every topic'})."
        elif action == "off":
            await plans.off(space.ref(), user)
            said = "Saved: no plan."
        else:
            raise web.HTTPBadRequest(text="Unknown action.")
    except BadSetting as exc:
        typed: dict[str, Any] = {"date": str(posted.get("date", ""))[:10], "channel": str(posted.get("channel", ""))}
        typed["chosen"] = tuple(str(t) for t in posted.getall("topics", []))
        return await _page(request, space, status=400, problem=("plan", exc.message), plan_typed=typed)
    raise done_and_back(request, f"{space.base}/progress?saved=plan#plan", said)


async def export(request: web.Request) -> web.Response:
    """The learner's own misses as a CSV or an Anki file (the same export as `/quiz export`)."""
    space = space_of(request)
    kind = request.match_info["kind"]
    try:
        done = await space.features.mydata.export_misses(space.platform, space.id, space.actor.user_id)
    except NothingToExport as exc:
        return await _page(request, space, done=exc.message)
    wanted = [f for f in done.files if (f.name.endswith(".csv") if kind == "csv" else not f.name.endswith(".csv"))]
    if kind not in ("csv", "anki") or not wanted:
        raise web.HTTPNotFound()
    file = wanted[0]
    return web.Response(
        body=file.data,
        content_type=file.mime.split(";")[0],
        headers={"Content-Disposition": f'attachment; filename="{file.name}"'},
    )


async def forget(request: web.Request) -> web.Response:
    """Forget-me, confirmed by its own form: the same deletion as `/quiz forget-me confirm`."""
    space = space_of(request)
    form = await request.post()
    if form.get("confirm") != "yes":
        problem = ("forget", "Tick the box to confirm; nothing was deleted.")
        return await _page(request, space, status=400, problem=problem)
    done = await space.features.mydata.forget_me(space.platform, space.id, space.actor.user_id)
    raise done_and_back(request, f"{space.base}/progress", done.text)


def add_routes(app: web.Application, base: str) -> None:
    app.router.add_get(base + "/progress", progress)
    app.router.add_get(base + "/progress/{chart}.png", progress_png)
    app.router.add_get(base + "/progress/export/{kind}", export)
    app.router.add_post(base + "/progress/forget", forget)
    app.router.add_post(base + "/progress/reminders", save_reminders)
    app.router.add_post(base + "/progress/reviews", save_reviews)
    app.router.add_post(base + "/progress/plan", save_plan)
