"""What dashboard access needs of the store: every decision two processes could both make is made there."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Protocol

from bot.access.values import LinkGrant
from bot.kernel.store import SpaceChannels


class AccessStore(SpaceChannels, Protocol):
    """One-time sign-in links, sign-in attempts, and the spaces (and their channels) the bot serves."""

    async def save_login_link(
        self, token_hash: str, grant: LinkGrant, now: dt.datetime, expires_at: dt.datetime
    ) -> None:
        """Keep a new link (its token only as a hash); links that ended a day ago are dropped."""
        ...

    async def redeem_login_link(self, token_hash: str, now: dt.datetime) -> LinkGrant | None:
        """The link's grant the first time it is used before it expires; None afterwards, once expired, or
        for an unknown token. Two processes redeeming one link at once: exactly one gets the grant."""
        ...

    async def count_login_attempt(self, bucket: str, window_start: dt.datetime) -> int:
        """Count one more attempt of `bucket` in the window starting at `window_start`; the count so far
        (this one included). Windows older than a day are dropped."""
        ...

    async def served_spaces(self, platform: str, space_ids: Sequence[str]) -> set[str]:
        """Which of these spaces have a quiz channel (the bot serves them)."""
        ...
