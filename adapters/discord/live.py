"""Live games on Discord: the `/live` command (start, or `stop:true`), and the embeds of a question's close
(one edit of its message), the final podium and table, and the server's live board. Members are shown as
mentions inside embeds, which notify nobody."""

from __future__ import annotations

import discord
from discord import app_commands

from adapters.discord.markdown import code_block, escape
from adapters.discord.render import COLOUR, LETTER_EMOJI, RIGHT, clip, mention
from adapters.discord.replies import Reply, actor_of, bot_of, ref_of, respond
from bot.kernel.topics import TOPICS
from bot.kernel.values import LETTERS
from bot.live.cards import (
    LiveBoardCard,
    LiveCloseCard,
    LiveFinalCard,
    board_lines,
    podium_lines,
    points_text,
    table_lines,
)
from bot.live.values import QUESTIONS_DEFAULT, QUESTIONS_MAX, QUESTIONS_MIN, SECONDS_DEFAULT, SECONDS_MAX, SECONDS_MIN

DESCRIPTION_MAX = 4096
FIELD_MAX = 1024


def close_embed(card: LiveCloseCard) -> discord.Embed:
    """The question's message once closed: the right choice marked, the short explanation, how many
    answered and were right, the three fastest right answers and the running top five."""
    choices = "\n".join(
        f"{LETTER_EMOJI[letter]} {escape(text)}{' ✅' if letter == card.correct_letter else ''}"
        for letter, text in zip(LETTERS, card.choices, strict=False)
    )
    body = [clip(escape(card.prompt), 1500)]
    if card.code:
        body.append(code_block(clip(card.code, 1200)))
    body.append(choices)
    embed = discord.Embed(
        title=clip(f"{card.title}: closed", 256), description=clip("\n\n".join(body), DESCRIPTION_MAX), colour=RIGHT
    )
    embed.add_field(
        name=f"Answer: {card.correct_letter}", value=clip(escape(card.explanation) or "—", FIELD_MAX), inline=False
    )
    tally = f"{card.answered} answered, {card.right} right"
    if card.fastest:
        tally += "\nFastest: " + ", ".join(f"{mention(f.user_id)} ({f.seconds:.1f} s)" for f in card.fastest)
    embed.add_field(name="Answers", value=clip(tally, FIELD_MAX), inline=False)
    if card.top:
        top = [f"{p.rank}. {mention(p.standing.user_id)}: {points_text(p.standing.points)}" for p in card.top]
        embed.add_field(name="Top 5", value=clip("\n".join(top), FIELD_MAX), inline=False)
    if card.next_note:
        embed.set_footer(text=card.next_note)
    return embed


def final_embeds(card: LiveFinalCard) -> tuple[discord.Embed, ...]:
    """The podium card and the full table (with team totals when teams exist)."""
    if not card.table:
        return (discord.Embed(title=clip(card.title, 256), description="Nobody answered; no podium this time."),)
    podium = discord.Embed(
        title=clip(card.title, 256), description="\n".join(podium_lines(card, mention)), colour=COLOUR
    )
    table = discord.Embed(
        title="Full table",
        description=clip("\n".join(table_lines(card.table, mention)), DESCRIPTION_MAX),
        colour=COLOUR,
    )
    if card.teams:
        table.add_field(name="Teams", value=clip(escape("\n".join(card.teams)), FIELD_MAX), inline=False)
    return podium, table


def board_embed(card: LiveBoardCard) -> discord.Embed:
    lines = board_lines(card, mention) or ("No live games played here yet.",)
    embed = discord.Embed(
        title=clip(card.title, 256), description=clip("\n".join(lines), DESCRIPTION_MAX), colour=COLOUR
    )
    me = card.me
    if me is not None:
        embed.add_field(name="You", value=f"#{me.rank} with {points_text(me.standing.points)}, {me.standing.wins} won")
    return embed


def live_command() -> app_commands.Command:
    """`/live questions: topic: seconds:` starts a game in this channel; `/live stop:true` ends it."""

    @app_commands.command(name="live", description="A live quiz game in this channel: the fastest right answers win")
    @app_commands.describe(
        questions=f"How many questions ({QUESTIONS_MIN}-{QUESTIONS_MAX}, default {QUESTIONS_DEFAULT})",
        topic="One topic of this channel's packs (default: all)",
        seconds=f"How long each question is open ({SECONDS_MIN}-{SECONDS_MAX} s, default {SECONDS_DEFAULT})",
        stop="End this channel's game now with the table so far (its starter or an admin)",
    )
    @app_commands.guild_only()
    async def live(
        interaction: discord.Interaction,
        questions: app_commands.Range[int, QUESTIONS_MIN, QUESTIONS_MAX] | None = None,
        topic: app_commands.Range[str, 1, 40] | None = None,
        seconds: app_commands.Range[int, SECONDS_MIN, SECONDS_MAX] | None = None,
        stop: bool = False,
    ) -> None:
        async def work() -> Reply:
            ref, service = ref_of(interaction), bot_of(interaction).service
            if stop:
                return Reply(await service.live.stop(await actor_of(interaction), ref))
            chosen = topic.strip().lower() if topic else None
            return Reply(await service.live.start(ref, str(interaction.user.id), questions, chosen, seconds))

        await respond(interaction, work(), defer_after=bot_of(interaction).defer_after)

    @live.autocomplete("topic")
    async def live_topics(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        typed = current.strip().lower()[:40]
        topics = await bot_of(interaction).service.practice.practice_topics(ref_of(interaction))
        return [
            app_commands.Choice(name=TOPICS.get(t, t)[:100], value=t)
            for t in topics
            if typed in t or typed in TOPICS.get(t, t).lower()
        ][:25]

    return live
