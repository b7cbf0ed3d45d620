"""Cards as plain terminal text."""

from __future__ import annotations

import textwrap

from bot.daily.cards import StatsCard, learning_lines
from bot.kernel import cards
from bot.kernel.cards import LeaderboardCard, QuestionCard, RevealCard
from bot.kernel.topics import TOPICS
from bot.kernel.values import LETTERS
from bot.settings import ConfigCard


def question_text(card: QuestionCard) -> str:
    meta = ", ".join(x for x in (f"#{card.round_id}", card.topic, card.difficulty.value) if x)
    lines = [f"== {card.title} ({meta}) ==", card.prompt]
    if card.code:
        lines += ["", textwrap.indent(card.code, "    "), ""]
    lines += [f"  {letter}) {text}" for letter, text in card.lettered_choices]
    if card.reveal_note:
        lines.append(card.reveal_note)
    if card.kind == "daily":
        lines.append("Answer with /quiz answer A-D (add ? if not sure).")
    elif card.kind == "live":
        lines.append("Everyone answers by typing A, B, C or D; the first answer locks.")
    else:
        lines.append("Answer by typing A, B, C or D (add ? if not sure, as in B ?).")
    return "\n".join(lines)


REPORT_HINT = "Something wrong with this question? /quiz report [wrong|unclear|typo|other] [what is wrong]"


def reveal_text(card: RevealCard) -> str:
    total = card.total
    bars = []
    for letter, text, n, share in zip(LETTERS, card.choices, card.distribution, cards.shares(card), strict=True):
        mark = "*" if letter == card.correct_letter else " "
        bars.append(f" {mark}{letter}) {text}  [{n} / {share}%]")
    winners = ", ".join(card.correct_users[:20]) or "nobody"
    if len(card.correct_users) > 20:
        winners += f" and {len(card.correct_users) - 20} more"
    return "\n".join(
        [
            f"== Reveal #{card.round_id}: {card.title} ==",
            card.prompt,
            *bars,
            card.explanation,
            *([cards.common_wrong_text(card)] if card.common_wrong else []),
            f"More: {card.reference}",
            f"Right ({len(card.correct_users)} of {total}): {winners}",
        ]
        + ([f"({card.note})"] if card.note else [])
        + [REPORT_HINT]
    )


def leaderboard_text(card: LeaderboardCard) -> str:
    lines = [f"== {card.title} =="]
    for place, row in zip(("champion", "2nd", "3rd"), card.podium, strict=False):
        lines.append(f"  {place:<9} {row.user_id:<20} {row.points:>5} pts  ({row.correct}/{row.answered} right)")
    if card.podium:
        lines.append("-- the month's board --")
    if not card.rows:
        lines.append(cards.NO_SCORES)
    for row in card.rows:
        lines.append(f"{row.rank:>3}. {row.user_id:<20} {row.points:>5} pts  ({row.correct}/{row.answered} right)")
    if card.me is not None and all(r.user_id != card.me.user_id for r in card.rows):
        lines.append(f"  ... you: #{card.me.rank} with {card.me.points} pts")
    if card.note:
        lines.append(f"({card.note})")
    return "\n".join(lines)


def stats_text(card: StatsCard) -> str:
    lines = [
        f"== Stats for {card.user_id} ==",
        f"answered {card.answered} ({card.kinds_text()}), "
        f"right {card.correct} ({100 * card.accuracy:.0f}%), {card.points} pts all time",
        f"streak {card.streak_text}",
    ]
    for t in card.by_topic:
        lines.append(f"  {TOPICS.get(t.topic, t.topic):<42} {t.correct}/{t.answered} ({100 * t.accuracy:.0f}%)")
    weak = card.weakest_topic
    if weak is not None:
        lines.append(f"Weakest topic: {weak.topic}; try /quiz practice {weak.topic}")
    if card.learning is not None:
        lines += learning_lines(card.learning)
        if card.learning.today:
            lines.append("Review them with /quiz review")
    return "\n".join(lines)


def config_text(card: ConfigCard) -> str:
    return "\n".join(["== Channel settings ==", *[line for line in card.lines if line]])
