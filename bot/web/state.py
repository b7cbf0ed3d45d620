"""What every request handler reads: the features (once the bot has built them), the dashboard's
configuration, the cookie sealer and the templates."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import jinja2
from aiohttp import web

from bot.features import Features
from bot.kernel.metrics import Metrics
from bot.web.config import WebConfig
from bot.web.sessions import Sealer

HealthCheck = Callable[[], Awaitable[bool]]


@dataclass(eq=False)
class WebState:
    """The dashboard's shared parts. `features` is set once the bot has loaded its bank (until then pages
    answer 503, and /healthz is unhealthy)."""

    config: WebConfig
    metrics: Metrics
    health: HealthCheck
    templates: jinja2.Environment
    sealer: Sealer
    features: Features | None = None
    ready: bool = field(default=False)

    def need_features(self) -> Features:
        if self.features is None:
            raise web.HTTPServiceUnavailable(text="The bot is still starting; try again in a moment.")
        return self.features


STATE = web.AppKey("state", WebState)
