"""A live game's cards: the question (the kernel's QuestionCard, kind live), its close (the one edit of the
question's message), the final podium and table, and the space's live board; with their plain texts."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from bot.kernel.cards import QuestionCard
from bot.kernel.topics import TOPICS
from bot.kernel.values import LETTERS, ChannelRef, Question, Round
from bot.live.values import RIGHT_POINTS, SPEED_POINTS, Placed

EXPLANATION_MAX = 300  # the close shows a short explanation
FASTEST = 3  # the close names the three fastest right answers
TOP = 5  # and the running top five
PODIUM = 3
MEDALS = ("🥇", "🥈", "🥉")


@dataclass(frozen=True)
class Fastest:
    user_id: str
    seconds: float  # after the question opened


@dataclass(frozen=True)
class LiveCloseCard:
    """A question closed: what its message shows instead of the question (one edit)."""

    round_id: int
    question_message_id: str | None
    title: str
    prompt: str
    choices: tuple[str, ...]
    correct_letter: str
    explanation: str
    answered: int
    right: int
    fastest: tuple[Fastest, ...]
    top: tuple[Placed, ...]  # the running top five
    code: str | None = None
    next_note: str = ""  # "Next question in a few seconds." or "Final results next."


@dataclass(frozen=True)
class LiveFinalCard:
    """The end of a game: the podium (the top three who scored) and the full table, with team totals when teams
    exist."""

    game_id: int
    title: str
    podium: tuple[Placed, ...]
    table: tuple[Placed, ...]
    questions: int  # how many were asked
    stopped: bool = False  # ended early by /quiz live stop
    teams: tuple[str, ...] = ()


@dataclass(frozen=True)
class LiveBoardCard:
    """The space's live board: points and games won (live games never touch the daily boards)."""

    title: str
    rows: tuple[Placed, ...]
    me: Placed | None = None
    public: bool = False  # to be posted in the channel for everyone (no asker's place then)


@runtime_checkable
class LivePlatform(Protocol):
    """The pushes a live game needs beside posting its questions (ChatPlatform.post_question): the close of
    a question, as one edit of its message, and the final podium and table."""

    async def close_live_question(self, ref: ChannelRef, card: LiveCloseCard) -> None:
        """Edit the question's message into its close (card.question_message_id; a failure is the caller's)."""
        ...

    async def post_live_final(self, ref: ChannelRef, card: LiveFinalCard) -> str | None:
        """Post the podium and the full table in the channel; the message id if there is one."""
        ...


def question_card(round_: Round, question: Question, position: int, total: int, seconds: int) -> QuestionCard:
    """Question `position` (from 0) of `total`, open for `seconds`."""
    return QuestionCard(
        round_id=round_.id,
        kind=round_.kind,
        title=f"Live question {position + 1} of {total}",
        prompt=question.prompt,
        choices=question.choices,
        topic=question.topic,
        difficulty=question.difficulty,
        code=question.code,
        reveal_note=(
            f"{seconds} seconds. One answer each; the first locks. A right answer scores {RIGHT_POINTS}, "
            f"plus up to {SPEED_POINTS} the sooner it comes."
        ),
    )


_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)[.!?](?=\s)")


def short(text: str, limit: int = EXPLANATION_MAX) -> str:
    """The explanation as the close shows it: whole, or its first sentences that fit in `limit` (when they
    make at least half of it), else cut at a word with an ellipsis; never in the middle of a word."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    ends = [m.end() for m in _SENTENCE_END.finditer(text, 0, limit)]
    if ends and ends[-1] >= limit // 2:
        return text[: ends[-1]]
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > 0 else limit - 1].rstrip(" ,;:.") + "…"


def points_text(points: int) -> str:
    return f"{points:,} pt{'s' if points != 1 else ''}"


def close_text(card: LiveCloseCard, name: NameOf | None = None) -> str:
    """The close as plain text (the console; the notification text elsewhere)."""
    name = name or _plain
    lines = [
        f"== {card.title}: closed ==",
        f"Answer: {card.correct_letter}. {card.choices[LETTERS.index(card.correct_letter)]}",
        card.explanation,
        f"{card.answered} answered, {card.right} right.",
    ]
    if card.fastest:
        lines.append("Fastest: " + ", ".join(f"{name(f.user_id)} ({f.seconds:.1f} s)" for f in card.fastest))
    if card.top:
        lines.append(
            "Top 5: " + "; ".join(f"{p.rank}. {name(p.standing.user_id)} {p.standing.points:,}" for p in card.top)
        )
    if card.next_note:
        lines.append(card.next_note)
    return "\n".join(lines)


class NameOf(Protocol):
    def __call__(self, user_id: str, /) -> str: ...


def _plain(user_id: str) -> str:
    return user_id


def table_lines(rows: tuple[Placed, ...], name: NameOf | None = None) -> tuple[str, ...]:
    name = name or _plain
    return tuple(
        f"{p.rank}. {name(p.standing.user_id)}: {points_text(p.standing.points)} "
        f"({p.standing.right} of {p.standing.answered} right)"
        for p in rows
    )


def podium_lines(card: LiveFinalCard, name: NameOf | None = None) -> tuple[str, ...]:
    """The medals of the podium (only players who scored), or a line saying nobody did."""
    name = name or _plain
    return tuple(
        f"{MEDALS[min(p.rank, PODIUM) - 1]} {name(p.standing.user_id)}: {points_text(p.standing.points)}"
        for p in card.podium
    ) or ("Nobody scored; no podium this time.",)


def final_text(card: LiveFinalCard, name: NameOf | None = None) -> str:
    """The podium and the full table as plain text."""
    lines = [f"== {card.title} =="]
    if not card.table:
        lines.append("Nobody answered; no podium this time.")
    else:
        lines += ["Podium:", *podium_lines(card, name), "Full table:", *table_lines(card.table, name)]
    if card.teams:
        lines += ["Teams:", *card.teams]
    return "\n".join(lines)


def board_lines(card: LiveBoardCard, name: NameOf | None = None) -> tuple[str, ...]:
    name = name or _plain
    return tuple(
        f"{p.rank}. {name(p.standing.user_id)}: {points_text(p.standing.points)}, "
        f"{p.standing.wins} won of {p.standing.games} game{'s' if p.standing.games != 1 else ''}"
        for p in card.rows
    )


def board_text(card: LiveBoardCard, name: NameOf | None = None) -> str:
    lines = [f"== {card.title} ==", *(board_lines(card, name) or ("No live games played here yet.",))]
    if card.me is not None and all(p.standing.user_id != card.me.standing.user_id for p in card.rows):
        me = card.me
        lines.append(f"You: {me.rank}. {points_text(me.standing.points)}, {me.standing.wins} won")
    return "\n".join(lines)


def topic_name(topic: str) -> str:
    return TOPICS.get(topic, topic)
