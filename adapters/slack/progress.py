"""The learning report on Slack: `/quiz progress` answers with the labelled numbers (an ephemeral reply, one
section per part of the report) and uploads the chart into the person's direct messages with the app
(conversations.open, then the external-upload methods), with its alt text."""

from __future__ import annotations

import logging

from slack_sdk.errors import SlackApiError

from adapters.slack.blocks import Block, context, section
from adapters.slack.mrkdwn import escape
from adapters.slack.platform import SlackPlatform
from bot.kernel.values import ChannelRef
from bot.practice.progress_cards import CHART_NAME, ProgressCard, progress_alt_text

log = logging.getLogger(__name__)

CHART_SENT = "I sent you the chart in our direct messages."
CHART_FAILED = "I could not send you the chart in our direct messages ({error}); the numbers above are all of it."


def progress_blocks(card: ProgressCard) -> tuple[str, list[Block]]:
    """(the plain text, the blocks) of the report: a title and one section per part, each well within Block
    Kit's limits (a section's text is clipped at 3,000 characters; the report has at most six blocks)."""
    blocks: list[Block] = [section(f"*{escape(card.title)}*")]
    for part in card.sections:
        blocks.append(section(f"*{escape(part.heading)}*\n" + escape("\n".join(part.lines))))
    return escape(card.text()), blocks


async def deliver_progress(
    platform: SlackPlatform, ref: ChannelRef, user: str, card: ProgressCard
) -> tuple[str, list[Block]]:
    """The report's reply; its chart (if any) goes to the person's direct messages with the app."""
    text, blocks = progress_blocks(card)
    if card.png is None:
        return text, blocks
    upload = {"content": card.png, "filename": CHART_NAME, "title": card.title, "alt_txt": progress_alt_text(card)}
    try:
        await platform.send_files(ref, user, [upload], f"{card.title}: the chart of your learning report.")
    except SlackApiError as exc:
        error = str(exc.response.get("error") or "error")
        log.info("could not send a progress chart: %s", error)
        return text, [*blocks, context(escape(CHART_FAILED.format(error=error)))]
    return text, [*blocks, context(CHART_SENT)]
