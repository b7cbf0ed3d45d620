"""Live games as Block Kit: a question's close (what chat.update makes of its message), the final podium and
table, and the space's live board. Members are named by display name (nobody notified) where the card goes
to the channel, and mentioned in a private reply."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from adapters.slack.blocks import Block, context, header, section
from adapters.slack.ids import mention
from adapters.slack.mrkdwn import code_block, escape
from bot.kernel.values import LETTERS
from bot.live.cards import LiveBoardCard, LiveCloseCard, LiveFinalCard, board_lines, podium_lines, table_lines

Names = Mapping[str, str] | None  # display names (a card in the channel); None: mention (a private reply)


def _who(names: Names) -> Callable[[str], str]:
    def who(uid: str) -> str:
        if names is None:
            return mention(uid)
        name = names.get(uid)
        return escape(name) if name else f"`{escape(uid)}`"

    return who


def close_users(card: LiveCloseCard) -> list[str]:
    return list(dict.fromkeys([*(f.user_id for f in card.fastest), *(p.standing.user_id for p in card.top)]))


def final_users(card: LiveFinalCard) -> list[str]:
    return [p.standing.user_id for p in card.table]


def close_text(card: LiveCloseCard) -> str:
    return escape(f"{card.title}: closed. The answer was {card.correct_letter}.")


def close_blocks(card: LiveCloseCard, names: Names = None) -> list[Block]:
    """The question's message once closed: the right choice marked, the short explanation, how many
    answered and were right, the three fastest right answers and the running top five (no buttons)."""
    who = _who(names)
    choices = []
    for letter, text in zip(LETTERS, card.choices, strict=False):
        mark = ":white_check_mark:" if letter == card.correct_letter else ":white_small_square:"
        choices.append(f"{mark} *{letter}.* {escape(text)}")
    blocks = [header(f"{card.title}: closed"), section(escape(card.prompt))]
    if card.code:
        blocks.append(section(code_block(card.code)))
    blocks += [section("\n".join(choices)), section(f"*Answer: {card.correct_letter}.* {escape(card.explanation)}")]
    tally = f"{card.answered} answered, {card.right} right."
    if card.fastest:
        tally += "\n*Fastest:* " + ", ".join(f"{who(f.user_id)} ({f.seconds:.1f} s)" for f in card.fastest)
    blocks.append(section(tally))
    if card.top:
        top = [f"{p.rank}. {who(p.standing.user_id)}  *{p.standing.points:,}*" for p in card.top]
        blocks.append(section("*Top 5*\n" + "\n".join(top)))
    if card.next_note:
        blocks.append(context(escape(card.next_note)))
    return blocks


def final_text(card: LiveFinalCard) -> str:
    return escape(card.title)


def final_blocks(card: LiveFinalCard, names: Names = None) -> list[Block]:
    """The podium, the full table and, when teams exist, their totals."""
    who = _who(names)
    blocks = [header(card.title)]
    if not card.table:
        return [*blocks, section("Nobody answered; no podium this time.")]
    blocks.append(section("*Podium*\n" + "\n".join(podium_lines(card, who))))
    lines = table_lines(card.table, who)
    for start in range(0, len(lines), 30):  # a section holds 3000 characters
        blocks.append(section(("*Full table*\n" if start == 0 else "") + "\n".join(lines[start : start + 30])))
    if card.teams:
        blocks.append(section("*Teams*\n" + "\n".join(escape(line) for line in card.teams)))
    return blocks


def board_blocks(card: LiveBoardCard, names: Names = None) -> list[Block]:
    who = _who(names)
    lines = list(board_lines(card, who)) or ["No live games played here yet."]
    me = card.me
    if me is not None and all(p.standing.user_id != me.standing.user_id for p in card.rows):
        lines.append(f"… you: #{me.rank} with *{me.standing.points:,}* pts, {me.standing.wins} won")
    return [header(card.title), section("\n".join(lines))]
