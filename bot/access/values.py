"""The values of dashboard access."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

LINK_LIFETIME = dt.timedelta(minutes=10)  # a one-time sign-in link works once, within this time


ATTEMPT_WINDOW = dt.timedelta(minutes=10)  # sign-in attempts are counted per client in windows of this length


ATTEMPT_LIMIT = 20  # sign-in attempts a client may make in one window


def sign_in_url(base: str, token: str) -> str:
    """The address of a one-time sign-in link on the dashboard at `base` (the route bot.web.signin serves)."""
    return f"{base}/login/link/{token}"


@dataclass(frozen=True)
class DashboardLink:
    """Where the dashboard is (no trailing slash) and the platforms whose members can sign in to it."""

    url: str
    sign_in: frozenset[str]


@dataclass(frozen=True)
class LinkGrant:
    """Who a one-time sign-in link signs in: a member of one space, an admin there or not."""

    platform: str
    space_id: str
    user_id: str
    is_admin: bool
