"""What every listener needs: the quiz service, the outbound platform and the admin policy."""

from __future__ import annotations

from dataclasses import dataclass

from adapters.slack.permissions import AdminPolicy
from adapters.slack.platform import SlackPlatform
from bot.features import Features


@dataclass(frozen=True)
class SlackDeps:
    service: Features
    platform: SlackPlatform
    admins: AdminPolicy
