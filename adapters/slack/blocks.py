"""Core cards rendered as Block Kit: the daily question (with A-D buttons), the revealed question, the
reveal message, practice verdicts, leaderboards, stats, settings, help and the App Home view."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from typing import Any

from adapters.slack.ids import REACTION_NAMES, REVIEW_ACTION, action_id, mention, unsure_action_id
from adapters.slack.mrkdwn import clip as clip_mrkdwn
from adapters.slack.mrkdwn import code_block, escape
from bot.daily.cards import StatsCard, learning_lines
from bot.kernel import cards
from bot.kernel.cards import AnswerOutcome, LeaderboardCard, QuestionCard, RevealCard, TimeMarks
from bot.kernel.topics import TOPICS
from bot.kernel.values import LETTERS, RoundKind
from bot.settings import ConfigCard
from bot.text.commands import HELP

Block = dict[str, Any]

TEXT_LIMIT = 3000  # a section's text
HEADER_LIMIT = 150  # a header's plain text
MAX_NAMED = 20  # people named in a reveal

REACTION_HELP = "React with " + " ".join(f":{n}:" for n in REACTION_NAMES) + " for A-D"
SLACK_HELP = HELP + "\ndaily question: click A-D, or react with :one: :two: :three: :four: (A-D) when reactions are on"


def clip(text: str, limit: int = TEXT_LIMIT) -> str:
    return clip_mrkdwn(text, limit)


def section(text: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": clip(text)}}


def plain(text: str) -> dict[str, str]:
    return {"type": "plain_text", "text": text}


def input_block(block_id: str, label: str, element: dict[str, Any], *, optional: bool = False) -> Block:
    """One field of a modal."""
    block: Block = {"type": "input", "block_id": block_id, "label": plain(label), "element": element}
    return block | ({"optional": True} if optional else {})


def modal(
    callback_id: str, title: str, blocks: list[Block], *, submit: str | None = None, close: str = "Cancel", **extra: Any
) -> dict[str, Any]:
    """A modal view (views.open or a response_action update); `extra`: private_metadata and the like."""
    view: dict[str, Any] = {"type": "modal", "callback_id": callback_id, "title": plain(title)}
    if submit is not None:
        view["submit"] = plain(submit)
    return view | {"close": plain(close), **extra, "blocks": blocks}


def submitted(view: Any, block_id: str, action_id: str) -> dict[str, Any]:
    """One field of a submitted modal (`view.state.values[block][action]`); {} when any part of the path is
    missing or not an object, so a forged or malformed view_submission reads as an empty form."""
    found: Any = view
    for key in ("state", "values", block_id, action_id):
        found = found.get(key) if isinstance(found, dict) else None
    return found if isinstance(found, dict) else {}


def metadata(view: Any) -> dict[str, Any]:
    """A view's private_metadata as the JSON object we put there; {} for anything else."""
    raw = view.get("private_metadata") if isinstance(view, dict) else None
    try:
        meta = json.loads(raw) if isinstance(raw, str) and raw else {}
    except ValueError:
        return {}
    return meta if isinstance(meta, dict) else {}


def header(text: str) -> Block:
    return {"type": "header", "text": {"type": "plain_text", "text": clip(text, HEADER_LIMIT), "emoji": True}}


def context(*texts: str) -> Block:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": clip(t)} for t in texts if t][:10]}


def divider() -> Block:
    return {"type": "divider"}


# ---- questions -------------------------------------------------------------------------------------


def choice_lines(card: QuestionCard) -> str:
    lines = []
    for i, (letter, text) in enumerate(card.lettered_choices):
        emoji = f":{REACTION_NAMES[i]}: " if card.reactions else ""
        lines.append(f"{emoji}*{letter}.* {escape(text)}")
    return "\n".join(lines)


def answer_buttons(round_id: int) -> Block:
    return {
        "type": "actions",
        "block_id": f"studybot.round.{round_id}",
        "elements": [
            {
                "type": "button",
                "action_id": action_id(round_id, i),
                "text": {"type": "plain_text", "text": letter},
                "value": f"{round_id}:{i}",
            }
            for i, letter in enumerate(LETTERS)
        ],
    }


def unsure_buttons(round_id: int) -> Block:
    """The second row of a practice or review question: the same choices, marked "not sure"."""
    return {
        "type": "actions",
        "block_id": f"studybot.unsure.{round_id}",
        "elements": [
            {
                "type": "button",
                "action_id": unsure_action_id(round_id, i),
                "text": {"type": "plain_text", "text": f"{letter} (not sure)"},
                "value": f"{round_id}:{i}:unsure",
            }
            for i, letter in enumerate(LETTERS)
        ],
    }


REPORT_ACTION_PREFIX = "report_open"  # "report_open.<round id>": opens the report form (adapters/slack/reports.py)


def report_button(round_id: int) -> Block:
    """ "Report a problem" under a reveal or a practice verdict: opens a modal about that round's question."""
    return {
        "type": "actions",
        "block_id": f"report_row.{round_id}",
        "elements": [
            {
                "type": "button",
                "action_id": f"{REPORT_ACTION_PREFIX}.{round_id}",
                "text": {"type": "plain_text", "text": "Report a problem"},
                "value": str(round_id),
            }
        ],
    }


def slack_time(at: dt.datetime) -> str:
    """An instant as Slack's date markup: each member reads it in their own timezone ("Tomorrow at 09:00");
    clients that cannot format it show the fallback, in UTC."""
    return f"<!date^{int(at.timestamp())}^{{date_short_pretty}} at {{time}}|{at.astimezone(dt.UTC):%a %d %b %H:%M} UTC>"


def question_blocks(card: QuestionCard) -> list[Block]:
    """A daily or practice question: prompt, code, choices, A-D buttons (and, in practice, a "not sure"
    row) and when the reveal comes."""
    blocks = [header(card.title), section(escape(card.prompt))]
    if card.code:
        blocks.append(section(code_block(card.code)))
    blocks += [section(choice_lines(card)), answer_buttons(card.round_id)]
    if card.kind is RoundKind.PRACTICE:
        blocks.append(unsure_buttons(card.round_id))
    meta = " · ".join(x for x in (TOPICS.get(card.topic, card.topic), card.difficulty.value, f"#{card.round_id}") if x)
    if card.kind is RoundKind.PRACTICE:
        blocks.append(context("Practice: only you see this and it never counts toward leaderboards.", meta))
    else:
        blocks.append(context(card.reveal_text(slack_time) or "", REACTION_HELP if card.reactions else "", meta))
    return blocks


def question_text(card: QuestionCard) -> str:
    """The notification fallback of a question message."""
    return clip(escape(f"{card.title}: {card.prompt}"), 300)


def revealed_question_blocks(card: RevealCard) -> list[Block]:
    """The question message after its reveal: no buttons, the correct choice marked."""
    lines = []
    for letter, text, n in zip(LETTERS, card.choices, card.distribution, strict=True):
        mark = ":white_check_mark:" if letter == card.correct_letter else ":white_small_square:"
        lines.append(f"{mark} *{letter}.* {escape(text)}  ({n})")
    blocks = [header(card.title), section(escape(card.prompt))]
    if card.code:
        blocks.append(section(code_block(card.code)))
    blocks += [section("\n".join(lines)), context("Answers are closed; the explanation is in the reveal below.")]
    return blocks


# ---- reveal ----------------------------------------------------------------------------------------


def distribution_lines(card: RevealCard) -> str:
    lines = []
    for letter, n, share in zip(LETTERS, card.distribution, cards.shares(card), strict=True):
        bar = "█" * round(share / 10) or "·"
        mark = " :white_check_mark:" if letter == card.correct_letter else ""
        lines.append(f"`{letter}` {bar} {n} ({share}%){mark}")
    return "\n".join(lines)


def winners_text(card: RevealCard, names: Mapping[str, str] | None = None) -> str:
    """Who got it right: @-mentions (which notify) when the channel pings winners, else their names
    (`names`, from users.info) or, for anyone without one, the member id in a code span; neither notifies."""
    if not card.total:
        return "No answers this time."
    if not card.correct_users:
        return f"Nobody of {card.total} got it this time."
    names = names or {}

    def quiet(uid: str) -> str:
        name = names.get(uid)
        return escape(name) if name else f"`{uid}`"

    named = ", ".join((mention if card.ping_winners else quiet)(u) for u in card.correct_users[:MAX_NAMED])
    more = f" and {len(card.correct_users) - MAX_NAMED} more" if len(card.correct_users) > MAX_NAMED else ""
    return f"*Right ({len(card.correct_users)} of {card.total}):* {named}{more}"


def reveal_blocks(card: RevealCard, names: Mapping[str, str] | None = None) -> list[Block]:
    """The reveal message: correct choice, explanation, distribution and who got it right."""
    correct = card.choices[LETTERS.index(card.correct_letter)]
    return [
        header(card.title),
        section(f"*{card.correct_letter}.* {escape(correct)}"),
        section(escape(card.explanation)),
        *([section(escape(cards.common_wrong_text(card)))] if card.common_wrong else []),
        section(distribution_lines(card)),
        section(winners_text(card, names)),
        context(f"More: {card.reference}", *([escape(card.note)] if card.note else [])),
        report_button(card.round_id),
    ]


def reveal_text(card: RevealCard) -> str:
    return clip(escape(f"{card.title}: {card.explanation}"), 300)


def verdict_blocks(outcome: AnswerOutcome) -> list[Block]:
    """A practice answer judged at once (replaces the practice question)."""
    blocks = [section(f"*Your answer: {outcome.chosen_letter}.* {escape(outcome.text)}")]
    if outcome.verdict is not None and outcome.verdict.reference:
        blocks.append(context(f"More: {outcome.verdict.reference} · `/quiz` for another one"))
    if outcome.verdict is not None:
        blocks.append(report_button(outcome.round_id))
    return blocks


# ---- leaderboards, stats, settings, help -----------------------------------------------------------


def leaderboard_blocks(card: LeaderboardCard, names: Mapping[str, str] | None = None) -> list[Block]:
    """The board; with `names` (a board posted in the channel) members are named without notifying them."""

    def who(uid: str) -> str:
        if names is None:
            return mention(uid)
        name = names.get(uid)
        return escape(name) if name else f"`{uid}`"

    if card.rows:
        lines = [
            f"{row.rank}. {who(row.user_id)}  *{row.points}* pts ({row.correct}/{row.answered} right)"
            for row in card.rows
        ]
    else:
        lines = [cards.NO_SCORES]
    if card.me is not None and all(r.user_id != card.me.user_id for r in card.rows):
        lines.append(f"… you: #{card.me.rank} with {card.me.points} pts")
    blocks = [header(card.title)]
    if card.podium:
        podium = [
            f"{medal} {who(row.user_id)}  *{row.points}* pts ({row.correct}/{row.answered} right)"
            for medal, row in zip(("🥇", "🥈", "🥉"), card.podium, strict=False)
        ]
        blocks.append(section("*The season's top three*\n" + "\n".join(podium)))
    blocks.append(section("\n".join(lines)))
    if card.note:
        blocks.append(context(escape(card.note)))
    return blocks


def stats_blocks(card: StatsCard) -> list[Block]:
    lines = [
        f"{mention(card.user_id)}: answered {card.answered} ({card.kinds_text()}), "
        f"right {card.correct} ({100 * card.accuracy:.0f}%), "
        f"*{card.points}* pts all time",
        f"Streak {card.streak_text}",
    ]
    for t in card.by_topic:
        lines.append(f"• {TOPICS.get(t.topic, t.topic)}: {t.correct}/{t.answered} ({100 * t.accuracy:.0f}%)")
    blocks = [header("Quiz stats"), section("\n".join(lines))]
    weak = card.weakest_topic
    if weak is not None:
        blocks.append(context(f"Weakest topic: {weak.topic}; try `/quiz practice {weak.topic}`"))
    if card.learning is not None:
        times = TimeMarks(slack_time)  # each member reads the next review's time in their own timezone
        blocks.append(section(times.fill(escape("\n".join(learning_lines(card.learning, times.mark))))))
        if card.learning.today:
            blocks.append(context("`/quiz review` to review them now"))
    return blocks


def config_blocks(card: ConfigCard) -> list[Block]:
    lines = [line for line in card.lines if line]
    return [section(f"*Quiz settings for <#{card.config.ref.channel_id}>*\n" + "\n".join(lines))]


def help_blocks(reason: str | None = None) -> list[Block]:
    blocks = [section(f"{escape(reason)}.")] if reason else []
    return blocks + [section(code_block(SLACK_HELP))]


def home_view(stats: StatsCard, board: LeaderboardCard, dashboard: str | None = None) -> dict[str, Any]:
    """The App Home tab: the person's stats (with a Review button when reviews are to do today), the
    workspace leaderboard, and a link to the web dashboard (`dashboard`: its sign-in address) when it has one."""
    due = stats.learning.today if stats.learning is not None else 0
    review: list[Block] = []
    if due:
        review = [
            {
                "type": "actions",
                "block_id": "studybot.home.review",
                "elements": [
                    {
                        "type": "button",
                        "action_id": REVIEW_ACTION,
                        "style": "primary",
                        "text": {"type": "plain_text", "text": f"Review ({due} today)"},
                        "value": "review",
                    }
                ],
            }
        ]
    blocks = [
        *stats_blocks(stats),
        *review,
        divider(),
        *leaderboard_blocks(board),
        context("`/quiz` for a practice question · `/quiz past` for the last answers · `/quiz help` for the rest"),
    ]
    if dashboard:  # the host's address (a checked setting): no markup of anyone's in it
        web = f"<{dashboard}|the dashboard>"
        blocks.append(context(f"Charts, settings and teams on the web: {web} (Sign in with Slack)"))
    return {"type": "home", "blocks": blocks}
