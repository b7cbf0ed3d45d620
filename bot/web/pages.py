"""Every member's pages: the spaces they may see, a space's overview, leaderboards, teams and seasons; admins'
channel settings, post now and reveal now. My progress is in progress_pages.py, Suggest a question in
suggest_pages.py; the admins' packs, queues and question statistics in admin_pages.py."""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

from aiohttp import web

from bot.kernel.cards import question_card
from bot.kernel.errors import BadSetting, NoSeason, QuizError, UnknownRound
from bot.kernel.parsing import parse_choice, parse_number
from bot.kernel.platform import NamePlatform
from bot.kernel.values import ChannelConfig, Period
from bot.settings import BY_KEY, SETTINGS, ConfigChange
from bot.web import admin_pages, past_pages, progress_pages, review_pages, suggest_pages
from bot.web.charts import Bars, bars, draw
from bot.web.notices import done_and_back, notice_of
from bot.web.render import render, session_of
from bot.web.spaces import Space, space_of

WEEKS = 8
PNG = "image/png"


async def home(request: web.Request) -> web.StreamResponse:
    session = session_of(request)
    if not session.signed_in:
        raise web.HTTPSeeOther("/login")
    return render(request, "home.html", spaces=session.spaces)


# ---- overview -------------------------------------------------------------------------------------


async def participation(space: Space) -> Bars:
    """Answers to revealed daily questions in each of the last 8 weeks (the weekly recap's figures)."""
    today, _tz = await space.features.context.space_today(space.platform, space.id)
    rows = []
    for back in range(WEEKS - 1, -1, -1):
        end = today - dt.timedelta(days=7 * back)
        card = await space.features.recaps.card(space.platform, space.id, end, names=False)
        rows.append((f"{card.start:%d %b}", float(card.answered)))
    return bars("Participation: daily answers per week", "answers", rows)


async def overview(request: web.Request) -> web.Response:
    return await _overview_page(request, space_of(request), done=notice_of(request))


async def _overview_page(
    request: web.Request, space: Space, *, done: str | None = None, problem: str | None = None, status: int = 200
) -> web.Response:
    """The overview; `done` or `problem`: what an answer given on it just did, or why it did nothing."""
    features = space.features
    channels = []
    configs = await space.channels()
    for cfg in configs:
        shown = await features.channels.show_config(cfg.ref)
        latest = await features.channels.latest_daily_round(cfg.ref)
        last = None
        if latest is not None and latest.revealed_at is not None:
            last = latest.revealed_at.astimezone(ZoneInfo(cfg.timezone))
        days = BY_KEY["weekdays"].render(cfg.weekdays)
        channels.append({"config": cfg, "card": shown, "days": days, "last_reveal": last})
    queues: dict[str, Any] = {}
    if space.actor.is_admin:
        reports = await features.reports.queue(space.actor, space.platform, space.id)
        pending = await features.suggestions.pending(space.actor, space.platform, space.id)
        queues = {
            "reports": len(reports.reports) + reports.more,
            "suggestions": len(pending.items),
            "more": pending.more,
        }
    chart = await participation(space)
    labels = await space.channel_labels(cfg.ref.channel_id for cfg in configs)
    day = await _your_day(space, configs)
    return render(
        request,
        "overview.html",
        status=status,
        space=space,
        channels=channels,
        queues=queues,
        chart=chart,
        labels=labels,
        day=day,
        done=done,
        problem=problem,
    )


async def _your_day(space: Space, configs: list[ChannelConfig]) -> dict[str, Any]:
    """The member's day here: each channel's open daily question with their answer (locked in, or still to
    give, and when it is revealed), and their reviews today."""
    features, user = space.features, space.actor.user_id
    questions = []
    for cfg in configs:
        found = await features.answers.todays_answer(cfg.ref, user)
        if found is not None:
            round_, letter = found
            reveal = round_.closes_at.astimezone(ZoneInfo(cfg.timezone)) if round_.closes_at else None
            card = None
            if letter is None:  # not answered yet: the question, to answer here as in the channel
                question = await features.catalog.asked(round_)  # None: its pack was removed meanwhile
                card = question_card(round_, question, cfg) if question is not None else None
            questions.append(
                {"channel": cfg.ref.channel_id, "letter": letter, "reveal": reveal, "tz": cfg.timezone, "card": card}
            )
    reviews = await features.practice.reviews_today(space.pool_ref(configs), user)
    return {"questions": questions, "reviews": reviews}


async def participation_png(request: web.Request) -> web.Response:
    space = space_of(request)
    return web.Response(body=await draw(await participation(space)), content_type=PNG)


# ---- channel settings -----------------------------------------------------------------------------


def setting_fields(values: dict[str, str], errors: dict[str, str], platform: str) -> list[dict[str, Any]]:
    """The settings form, generated from the one settings table (bot/settings.py): the settings of the
    channel's platform, as `/quiz config show` lists them (no Slack user group on a Discord channel)."""
    return [
        {
            "setting": s,
            "name": s.word,
            "value": values.get(s.word, ""),
            "error": errors.get(s.word),
            "choices": s.choices,
        }
        for s in SETTINGS
        if s.applies_to(platform)
    ]


def current_values(config: Any) -> dict[str, str]:
    return {s.word: s.render(getattr(config, s.key)) for s in SETTINGS}


ACTED = {  # what a channel's action button did (the page it redirects to says it)
    "post-now": "Posted today's question in this channel.",
    "reveal": "Revealed the channel's open question: its answer and explanation are in the channel.",
}


async def _channel_view(
    request: web.Request,
    space: Space,
    cfg: Any,
    *,
    fields: Any = None,
    message: str | None = None,
    problem: str | None = None,
    status: int = 200,
) -> web.Response:
    """A channel's page: its settings now, the form (as saved, or as typed with each field's problem), and what
    was just done or why nothing was."""
    card = await space.features.channels.show_config(cfg.ref)
    return render(
        request,
        "channel.html",
        status=status,
        space=space,
        channel=cfg,
        label=(await space.channel_labels([cfg.ref.channel_id]))[cfg.ref.channel_id],
        card=card,
        fields=fields if fields is not None else setting_fields(current_values(cfg), {}, cfg.ref.platform),
        message=message,
        problem=problem,
    )


async def channel_page(request: web.Request) -> web.Response:
    space = space_of(request, admin=True)
    cfg = await space.channel(request.match_info["channel"])
    return await _channel_view(request, space, cfg, message=notice_of(request))


async def channel_act(request: web.Request) -> web.Response:
    """An admin posts today's question now, or reveals the open one early: the same `post_now` and `reveal_now`
    as `/quiz config post-now` and `/quiz config reveal`; what refuses (already posted, nothing open) is said."""
    space = space_of(request, admin=True)
    cfg = await space.channel(request.match_info["channel"])
    action = request.match_info["action"]
    try:
        if action == "post-now":
            await space.features.posting.post_now(space.actor, cfg.ref)
        else:
            await space.features.reveals.reveal_now(space.actor, cfg.ref)
    except QuizError as exc:
        return await _channel_view(request, space, cfg, problem=exc.message, status=400)
    raise done_and_back(request, f"{space.base}/channels/{cfg.ref.channel_id}", ACTED[action])


async def channel_save(request: web.Request) -> web.Response:
    """Each changed field parsed as `/quiz config` parses it (its message beside the field); nothing is saved
    unless every field is valid, then the same `configure` as the chat saves it."""
    space = space_of(request, admin=True)
    cfg = await space.channel(request.match_info["channel"])
    form = await request.post()
    before = current_values(cfg)
    shown = [s for s in SETTINGS if s.applies_to(cfg.ref.platform)]  # another platform's setting is never taken
    typed = {s.word: str(form.get(s.word, before[s.word])).strip() for s in shown}
    errors: dict[str, str] = {}
    changed: dict[str, Any] = {}
    for s in shown:
        if typed[s.word] == before[s.word]:
            continue
        try:
            changed[s.key] = s.parse(typed[s.word])
        except BadSetting as exc:
            errors[s.word] = exc.message
    problem = None
    message = None
    status = 200
    if not errors and changed:
        try:
            await space.features.channels.configure(space.actor, cfg.ref, ConfigChange(tuple(changed.items())))
        except QuizError as exc:
            problem, status = exc.message, 400
        else:  # saved: back to the page (a reload then repeats nothing), which says what changed
            by_key = {s.key: s for s in shown}
            what = "; ".join(f"{by_key[key].label} {by_key[key].shown(value)}" for key, value in changed.items())
            raise done_and_back(request, f"{space.base}/channels/{cfg.ref.channel_id}", f"Saved: {what}.")
    elif errors:
        problem, status = "Nothing was saved: correct the fields marked below.", 400
    else:
        message = "Nothing changed."
    fields = setting_fields(typed, errors, cfg.ref.platform)
    return await _channel_view(request, space, cfg, fields=fields, message=message, problem=problem, status=status)


# ---- leaderboards and seasons ---------------------------------------------------------------------


async def _names(space: Space, user_ids: list[str]) -> dict[str, str]:
    platform = space.features.context.platforms.get(space.platform)
    if not isinstance(platform, NamePlatform) or not user_ids:
        return {}
    try:
        return await platform.display_names(space.ref(), user_ids)
    except Exception:  # noqa: BLE001 - names are a nicety: ids are shown instead
        return {}


async def leaderboards(request: web.Request) -> web.Response:
    return await _leaderboards_page(request, space_of(request), done=notice_of(request))


async def _leaderboards_page(
    request: web.Request,
    space: Space,
    *,
    done: str | None = None,
    problem: str | None = None,
    status: int = 200,
    period_text: str | None = None,
) -> web.Response:
    """The boards of the period asked for, the space's teams (with the member's own and their forms), the live
    board and a past season; `done` or `problem`: what a team form just did or why it did nothing."""
    features = space.features
    period_text = period_text or request.query.get("period", "week")
    period = Period(period_text) if period_text in {p.value for p in Period} else Period.WEEK
    board = await features.boards.leaderboard(space.platform, space.id, period, space.actor.user_id)
    teams = await features.teams.board(space.platform, space.id, period, space.actor.user_id)
    every_team, my_team = await features.teams.roster(space.platform, space.id, space.actor.user_id)
    live = await features.live.board(space.platform, space.id, space.actor.user_id)
    today, _tz = await features.context.space_today(space.platform, space.id)
    seasons = []
    first = today.replace(day=1)
    for back in range(1, 13):
        month = (first.year * 12 + first.month - 1) - back
        seasons.append(f"{month // 12}-{month % 12 + 1:02d}")
    season_text = request.query.get("season")
    season, season_note = None, None
    if season_text:
        try:
            season = await features.seasons.board(space.platform, space.id, season_text, space.actor.user_id)
        except (NoSeason, BadSetting) as exc:
            season_note = exc.message
    ids = [r.user_id for r in board.rows] + [p.standing.user_id for p in live.rows]
    ids += [r.user_id for r in season.rows] if season else []
    return render(
        request,
        "leaderboards.html",
        status=status,
        space=space,
        board=board,
        teams=teams,
        every_team=every_team,
        my_team=my_team,
        team_done=done,
        team_problem=problem,
        live=live,
        period=period,
        periods=list(Period),
        seasons=seasons,
        season=season,
        season_note=season_note,
        chosen=season_text,
        names=await _names(space, ids),
    )


async def team_action(request: web.Request) -> web.Response:
    """A team created, joined or left (any member), renamed or removed (admins: the service checks), as
    `/quiz team ...` does it; then back to the page, which says what happened (or, at once, why nothing did)."""
    space = space_of(request)
    form = await request.post()
    action = str(form.get("action", ""))
    name, new_name = str(form.get("name", "")), str(form.get("new_name", ""))
    period = str(form.get("period", ""))  # the board the form was sent from, shown again
    teams, ref, user = space.features.teams, space.ref(), space.actor.user_id
    try:
        if action == "create":
            done = await teams.create(ref, user, name)
        elif action == "join":
            done = await teams.join(ref, user, name)
        elif action == "leave":
            done = await teams.leave(ref, user)
        elif action == "rename":
            done = await teams.rename(space.actor, ref, name, new_name)
        elif action == "remove":
            done = await teams.remove(space.actor, ref, name)
        else:
            raise web.HTTPBadRequest(text="Unknown action.")
    except QuizError as exc:
        return await _leaderboards_page(request, space, problem=exc.message, status=400, period_text=period)
    query = f"?period={period}" if period in {p.value for p in Period} else ""
    fragment = "manage-teams" if action in ("rename", "remove") else "your-team"
    raise done_and_back(request, f"{space.base}/leaderboards{query}#{fragment}", done)


async def answer_today(request: web.Request) -> web.Response:
    """A member answers a channel's open daily question here, as with its buttons: one answer, the first locks,
    and the acknowledgement never says whether it is right until the reveal."""
    space = space_of(request)
    form = await request.post()
    round_id = parse_number(str(form.get("round", "")))
    try:
        if round_id is None:
            raise UnknownRound("That question is not known here.")
        if not form.get("choice"):
            raise BadSetting("Pick an answer: A, B, C or D.")
        outcome = await space.features.answers.submit_answer(
            round_id,
            space.actor.user_id,
            parse_choice(str(form.get("choice"))),
            space=(space.platform, space.id),
            sure=form.get("unsure") is None,
        )
    except QuizError as exc:
        return await _overview_page(request, space, problem=exc.message, status=400)
    raise done_and_back(request, f"{space.base}#your-day", outcome.text)


def add_routes(app: web.Application) -> None:
    app.router.add_get("/", home)
    base = "/s/{platform}/{space}"
    app.router.add_get(base, overview)
    app.router.add_post(base + "/today", answer_today)
    app.router.add_get(base + "/charts/participation.png", participation_png)
    app.router.add_get(base + "/channels/{channel}", channel_page)
    app.router.add_post(base + "/channels/{channel}", channel_save)
    app.router.add_post(base + "/channels/{channel}/{action:post-now|reveal}", channel_act)
    app.router.add_get(base + "/leaderboards", leaderboards)
    app.router.add_post(base + "/teams", team_action)
    progress_pages.add_routes(app, base)
    past_pages.add_routes(app, base)
    review_pages.add_routes(app, base)
    suggest_pages.add_routes(app, base)
    admin_pages.add_routes(app, base)
