"""The recap's optional platform capability."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from bot.kernel.values import ChannelRef
from bot.recap.values import RecapCard


@runtime_checkable
class RecapPlatform(Protocol):
    """Posts the weekly recap with its chart (a PNG, or None when there is nothing to chart)."""

    async def post_recap(self, ref: ChannelRef, card: RecapCard, png: bytes | None) -> str | None:
        """Post the recap: the PNG chart with `recap_alt_text(card)` as its alt text, or (png None: no
        answers in the week) the plain note `recap_text(card)`; returns the message id if any."""
        ...
