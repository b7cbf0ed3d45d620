"""`studybot recap --space PLATFORM:SPACE_ID [--channel ID] [--end DATE] -o week.png`: the weekly recap chart
drawn by hand from the database, for a whole space or one of its channels."""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import sys
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from bot.app.config import Settings
from bot.bank.load import DEFAULT_BANK_DIR, load_bank
from bot.kernel.values import ChannelRef
from bot.recap.cards import NOTHING, recap_alt_text
from bot.recap.service import build_recap
from bot.recap.values import RecapCard
from bot.store.urls import store_for_url


def add_recap_cli(sub: Any) -> None:
    """Add the `recap` subcommand to the `studybot` parser."""
    p = sub.add_parser("recap", help="draw the weekly recap chart of a space (or one channel) as a PNG")
    p.add_argument("--space", required=True, metavar="PLATFORM:SPACE_ID", help="e.g. discord:1234 or slack:T0123")
    p.add_argument("--channel", metavar="ID", help="only this channel's daily questions")
    p.add_argument(
        "--end",
        metavar="YYYY-MM-DD",
        type=dt.date.fromisoformat,
        help="the last local date of the week (default: yesterday in the space's timezone)",
    )
    p.add_argument("-o", "--output", type=Path, default=Path("week.png"), help="where to write the PNG")


def recap_main(args: argparse.Namespace, settings: Settings) -> int:
    platform, sep, space_id = str(args.space).partition(":")
    if not sep or not platform or not space_id:
        print("--space takes PLATFORM:SPACE_ID, e.g. discord:1234 or slack:T0123", file=sys.stderr)
        return 2
    card = asyncio.run(_recap(settings, platform, space_id, args.channel, args.end))
    if card is None:
        return 1
    if card.empty:
        print(
            f"{card.title}: {NOTHING} (no answers to revealed daily questions that week); no file written.",
            file=sys.stderr,
        )
        return 1
    from bot.recap.chart import draw_recap

    png = draw_recap(card)
    output: Path = args.output
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(png)
    print(f"wrote {output} ({len(png):,} bytes)")
    print(recap_alt_text(card))
    return 0


async def _recap(
    settings: Settings, platform: str, space_id: str, channel_id: str | None, end: dt.date | None
) -> RecapCard | None:
    bank = load_bank(settings.bank_dir or DEFAULT_BANK_DIR, strict=False)
    store = store_for_url(settings.database_url)
    await store.open()  # a database from before the recap gains its columns
    try:
        tz = None
        if channel_id is not None:
            cfg = await store.get_channel(ChannelRef(platform, space_id, channel_id))
            if cfg is None or cfg.ref.space_id != space_id:
                print(f"No quiz channel {channel_id} in {platform}:{space_id}.", file=sys.stderr)
                return None
            tz = cfg.timezone
        tz = tz or await store.space_timezone(platform, space_id) or "UTC"
        end = end or dt.datetime.now(ZoneInfo(tz)).date() - dt.timedelta(days=1)
        card = await build_recap(store, bank, platform, space_id, end, channel_id=channel_id, timezone=tz)
    finally:
        await store.close()
    return card
