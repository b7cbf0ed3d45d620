"""The team board as Block Kit: team names are plain text (escaped), nobody is named or notified."""

from __future__ import annotations

from adapters.slack.blocks import Block, context, header, section
from adapters.slack.mrkdwn import escape
from bot.teams.cards import TeamBoardCard


def team_board_blocks(card: TeamBoardCard) -> list[Block]:
    return [header(card.title), section(escape("\n".join(card.lines))), context(escape(card.note))]
