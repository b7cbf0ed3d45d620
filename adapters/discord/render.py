"""Core cards as Discord embeds. Pure functions: no I/O, no game rules; every text is clipped to Discord's limits."""

from __future__ import annotations

import datetime as dt

import discord

from adapters.discord.markdown import code_block, escape
from bot.daily.cards import StatsCard, learning_lines
from bot.kernel import cards
from bot.kernel.cards import AnswerOutcome, LeaderboardCard, QuestionCard, RevealCard, TimeMarks
from bot.kernel.topics import TOPICS
from bot.kernel.values import LETTERS, RoundKind
from bot.packs.catalog import PacksCard
from bot.settings import ConfigCard

COLOUR = discord.Colour(0xEE4C2C)  # PyTorch orange
RIGHT = discord.Colour.green()
WRONG = discord.Colour.red()

TITLE_MAX = 256
DESCRIPTION_MAX = 4096
FIELD_MAX = 1024
FOOTER_MAX = 2048
EMBED_MAX = 6000  # all texts of one embed together
REVEAL_BODY_MAX = 2000  # leaves room for the reveal's four fields within EMBED_MAX
MAX_LISTED_USERS = 50

#: The regional-indicator emoji for A-D, the reactions a member can answer with.
LETTER_EMOJI: dict[str, str] = {letter: chr(0x1F1E6 + i) for i, letter in enumerate(LETTERS)}
_EMOJI_CHOICE: dict[str, int] = {emoji: i for i, emoji in enumerate(LETTER_EMOJI.values())}


def choice_of_emoji(emoji: discord.PartialEmoji | str | None) -> int | None:
    """The choice index for a regional indicator A-D; None for any other (or a custom) emoji."""
    if isinstance(emoji, discord.PartialEmoji):
        if emoji.id is not None:
            return None
        emoji = emoji.name
    return _EMOJI_CHOICE.get(emoji or "")


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def mention(user_id: str) -> str:
    return f"<@{user_id}>" if user_id.isdigit() else user_id


def _code_block(code: str) -> str:
    return code_block(code)


def _question_body(
    prompt: str, code: str | None, choices: tuple[str, ...], correct: str | None = None, limit: int = DESCRIPTION_MAX
) -> str:
    """Prompt, code block and lettered choices; a long prompt or code is clipped so the choices always show."""
    lines = []
    for letter, text in zip(LETTERS, choices, strict=False):
        mark = " ✅" if letter == correct else ""
        lines.append(f"{LETTER_EMOJI[letter]} {escape(text)}{mark}")
    choice_text = "\n".join(lines)
    prompt = escape(prompt)
    room = limit - len(choice_text) - 4
    if code:
        prompt = clip(prompt, max(room // 2, room - len(code) - 20))
        code_room = room - len(prompt) - 2 - len(_code_block(""))
        parts = [prompt, _code_block(clip(code, code_room))] if code_room > 20 else [prompt]
    else:
        parts = [clip(prompt, room)]
    return clip("\n\n".join([*parts, choice_text]), limit)


def discord_time(at: dt.datetime) -> str:
    """An instant as Discord's timestamp markup: each member reads it in their own timezone, with how long
    until it ("Tuesday 8 December 2026 09:00 (in 23 hours)")."""
    stamp = int(at.timestamp())
    return f"<t:{stamp}:F> (<t:{stamp}:R>)"


def question_embed(card: QuestionCard) -> discord.Embed:
    embed = discord.Embed(
        title=clip(card.title, TITLE_MAX),
        description=_question_body(card.prompt, card.code, card.choices),
        colour=COLOUR,
    )
    if card.kind is RoundKind.PRACTICE:
        how = "Click A-D. Only you see this question and your result; practice never counts toward the leaderboard."
    else:
        how = "Click A-D below" + (", or react with 🇦-🇩" if card.reactions else "") + ". Only you see your choice."
        note = card.reveal_text(discord_time)
        if note:
            how += "\n" + note
    embed.add_field(name="How to answer", value=clip(how, FIELD_MAX), inline=False)
    topic = TOPICS.get(card.topic, card.topic)
    meta = (topic, card.difficulty.value, f"question #{card.round_id}")
    embed.set_footer(text=" · ".join(x for x in meta if x))
    return embed


def verdict_embed(outcome: AnswerOutcome) -> discord.Embed:
    """The private result of a practice answer (the core only gives a verdict for practice)."""
    verdict = outcome.verdict
    if verdict is None:
        return discord.Embed(description=clip(outcome.text, DESCRIPTION_MAX), colour=COLOUR)
    embed = discord.Embed(
        title=cards.verdict_headline(verdict),
        description=clip(escape(verdict.explanation), DESCRIPTION_MAX),
        colour=RIGHT if verdict.correct else WRONG,
    )
    embed.add_field(name="Your answer", value=verdict.chosen_letter + ("" if verdict.sure else " (not sure)"))
    if verdict.why_wrong:
        embed.add_field(
            name=f"Why not {verdict.chosen_letter}", value=clip(escape(verdict.why_wrong), FIELD_MAX), inline=False
        )
    if verdict.reference:
        embed.add_field(name="Learn more", value=clip(verdict.reference, FIELD_MAX))
    if verdict.confident_miss:
        embed.add_field(name="Confident miss", value=cards.CONFIDENT_MISS, inline=False)
    if outcome.review_score:
        embed.add_field(name="Review", value=outcome.review_score, inline=False)
    return embed


def _distribution(card: RevealCard) -> str:
    lines = []
    for letter, count, share in zip(LETTERS, card.distribution, cards.shares(card), strict=False):
        bar = "█" * round(share / 10) + "░" * (10 - round(share / 10))
        mark = " ✅" if letter == card.correct_letter else ""
        lines.append(f"{LETTER_EMOJI[letter]} `{bar}` {count} ({share}%){mark}")
    return "\n".join(lines)


def _user_list(user_ids: tuple[str, ...]) -> str:
    if not user_ids:
        return "Nobody this time."
    shown: list[str] = []
    for uid in user_ids[:MAX_LISTED_USERS]:
        candidate = ", ".join([*shown, mention(uid)])
        if len(candidate) > FIELD_MAX - 40:
            break
        shown.append(mention(uid))
    rest = len(user_ids) - len(shown)
    return ", ".join(shown) + (f" and {rest} more" if rest else "")


CONTENT_MAX = 2000  # a message's content


def winner_pings(card: RevealCard) -> tuple[str, tuple[str, ...]] | None:
    """The reveal's content when the channel pings its winners: the text and the users it may notify.
    None when pings are off (the embed names them, and embeds never notify) or nobody got it right."""
    if not card.ping_winners or not card.correct_users:
        return None
    named: list[str] = []
    for uid in card.correct_users[:MAX_LISTED_USERS]:
        if not uid.isdigit() or len(", ".join(mention(u) for u in [*named, uid])) > CONTENT_MAX - 60:
            break
        named.append(uid)
    if not named:
        return None
    rest = len(card.correct_users) - len(named)
    text = "Got it right: " + ", ".join(mention(u) for u in named) + (f" and {rest} more" if rest else "")
    return text, tuple(named)


def reveal_embed(card: RevealCard) -> discord.Embed:
    correct_text = card.choices[LETTERS.index(card.correct_letter)]
    embed = discord.Embed(
        title=clip(card.title, TITLE_MAX),
        description=_question_body(card.prompt, card.code, card.choices, card.correct_letter, REVEAL_BODY_MAX),
        colour=RIGHT,
    )
    correct = clip(f"{LETTER_EMOJI[card.correct_letter]} {escape(correct_text)}", FIELD_MAX)
    embed.add_field(name="Correct answer", value=correct, inline=False)
    why = escape(card.explanation) + (f"\nMore: {card.reference}" if card.reference else "")
    embed.add_field(name="Why", value=clip(why, FIELD_MAX), inline=False)
    if card.common_wrong is not None:
        letter, sentence = card.common_wrong
        name = f"Most chosen wrong answer: {letter}"
        embed.add_field(name=name, value=clip(escape(sentence), FIELD_MAX), inline=False)
    answered = f"How the channel answered ({card.total})"
    embed.add_field(name=answered, value=_distribution(card) if card.total else "Nobody answered.", inline=False)
    right = f"Got it right ({len(card.correct_users)})"
    embed.add_field(name=right, value=_user_list(card.correct_users), inline=False)
    embed.set_footer(text=f"question #{card.round_id}" + (f" · {card.note}" if card.note else ""))
    return embed


_MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}


def leaderboard_embed(card: LeaderboardCard, asker: str | None = None) -> discord.Embed:
    lines = [
        f"{_MEDALS.get(r.rank, f'**{r.rank}.**')} {mention(r.user_id)}: {r.points} pts ({r.correct}/{r.answered} right)"
        for r in card.rows
    ]
    embed = discord.Embed(
        title=clip(card.title, TITLE_MAX),
        description=clip("\n".join(lines), DESCRIPTION_MAX) if lines else cards.NO_SCORES,
        colour=COLOUR,
    )
    if card.podium:
        podium = [
            f"{medal} {mention(r.user_id)}: {r.points} pts ({r.correct}/{r.answered} right)"
            for medal, r in zip(("🥇", "🥈", "🥉"), card.podium, strict=False)
        ]
        embed.insert_field_at(0, name="The season's top three", value=clip("\n".join(podium), FIELD_MAX), inline=False)
    if card.me is not None:
        embed.add_field(name="You", value=f"#{card.me.rank} with {card.me.points} pts ({card.me.correct} right)")
    elif asker is not None:
        embed.add_field(name="You", value="No points in this period yet.")
    if card.note:
        embed.set_footer(text=clip(card.note, FOOTER_MAX))
    return embed


def stats_embed(card: StatsCard) -> discord.Embed:
    embed = discord.Embed(title="Quiz stats", description=mention(card.user_id), colour=COLOUR)
    embed.add_field(name="Answered", value=f"{card.answered} ({card.kinds_text()})")
    embed.add_field(name="Accuracy", value=f"{100 * card.accuracy:.0f}% ({card.correct} right)")
    embed.add_field(name="Streak", value=card.streak_text)
    embed.add_field(name="Points (all time)", value=str(card.points))
    if card.by_topic:
        rows = [
            f"{TOPICS.get(t.topic, t.topic)}: {t.correct}/{t.answered} ({100 * t.accuracy:.0f}%)" for t in card.by_topic
        ]
        embed.add_field(name="By topic", value=clip("\n".join(rows), FIELD_MAX), inline=False)
    if card.learning is not None:
        times = TimeMarks(discord_time)  # each member reads the next review's time in their own timezone
        memory = "\n".join(learning_lines(card.learning, times.mark))
        if card.learning.today:
            memory += "\nReview them with /review"
        embed.add_field(name="Memory", value=clip(times.fill(escape(memory)), FIELD_MAX), inline=False)
    weak = card.weakest_topic
    if weak is not None:
        embed.set_footer(text=f"Weakest topic: {TOPICS.get(weak.topic, weak.topic)}. Try /quiz topic:{weak.topic}")
    return embed


def config_embed(card: ConfigCard) -> discord.Embed:
    ref = card.config.ref
    lines = [line for line in card.lines if line]
    return discord.Embed(
        title="Daily question settings",
        description=clip(f"<#{ref.channel_id}>\n" + "\n".join(lines), DESCRIPTION_MAX),
        colour=COLOUR,
    )


def packs_embed(card: PacksCard) -> discord.Embed:
    """The space's question packs with their question counts (names are plain text, escaped)."""
    return discord.Embed(
        title="Question packs", description=clip(escape("\n".join(card.lines)), DESCRIPTION_MAX), colour=COLOUR
    )
