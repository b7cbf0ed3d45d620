"""The recap's optional platform capability."""

from __future__ import annotations

from typing import Protocol

from bot.kernel.values import (
    ChannelRef,
)
from bot.recap.values import RecapCard


class RecapPlatform(Protocol):
    """The optional part of a ChatPlatform that posts the weekly recap."""

    async def post_recap(self, ref: ChannelRef, card: RecapCard, png: bytes | None) -> str | None:
        """Post the recap: the PNG chart with `recap_alt_text(card)` as its alt text, or (png None: no
        answers in the week) the plain note `recap_text(card)`; returns the message id if any."""
        ...
