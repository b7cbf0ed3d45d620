"""What every listener needs: the quiz service, the outbound platform and the admin policy."""

from __future__ import annotations

from dataclasses import dataclass

from adapters.slack.permissions import AdminPolicy
from adapters.slack.platform import SlackPlatform
from bot.quiz import QuizService


@dataclass(frozen=True)
class SlackDeps:
    service: QuizService
    platform: SlackPlatform
    admins: AdminPolicy
