"""What one process of the bot runs (STUDYBOT_ROLE).

- `all` (default): everything, as one process always did: platform events and the tick.
- `interactive`: platform events, commands and answers, the dashboard and the Slack events listener; no tick.
- `delivery`: the tick only (posts, reveals, reminders, recaps, seasons, live-game steps, card updates),
  posting through the platforms' REST APIs: no Discord gateway, no Slack listener, no dashboard (the
  /healthz and /metrics address stays when STUDYBOT_METRICS_PORT is set).

A delivery process reveals and posts in larger batches than a process that answers (batching_of), paces
them (STUDYBOT_DELIVERY_RATE posts and reveals a second at most) and lowers its own CPU priority
(STUDYBOT_DELIVERY_NICE, default 10: see yield_cpu), so on a host it shares with interactive processes the
answers are run first.

Any number of each may share one PostgreSQL store: the store decides who posts and reveals what (claims and
send leases), so a process may die anywhere and another takes its work up. SQLite keeps one `all` process
(bot.app.config refuses the other roles there).
"""

from __future__ import annotations

import logging
import os
from dataclasses import replace

from bot.app.config import Settings
from bot.daily.delivery import ANSWERING_BATCHES, DELIVERY_BATCHES, Batching
from bot.kernel.errors import StartupError
from bot.kernel.rounds import ROUND_CACHE_SIZE

log = logging.getLogger(__name__)

# platform -> (the variable that turns it on, module, start function, extra), per kind of process
LISTENING = {
    "discord": ("DISCORD_TOKEN", "adapters.discord.app", "start_discord", "discord"),
    "slack": ("SLACK_BOT_TOKEN", "adapters.slack.app", "start_slack", "slack"),
}
DELIVERING = {
    "discord": ("DISCORD_TOKEN", "adapters.discord.delivery", "start_discord_delivery", "discord"),
    "slack": ("SLACK_BOT_TOKEN", "adapters.slack.delivery", "start_slack_delivery", "slack"),
}
NO_CONSOLE = (
    "STUDYBOT_ROLE={role} needs a platform (DISCORD_TOKEN, or SLACK_BOT_TOKEN or SLACK_CLIENT_ID): the local "
    "console runs as one process, STUDYBOT_ROLE=all."
)


def batching_of(settings: Settings) -> Batching:
    """How this process's tick cuts its work: a delivery process answers no one, so nothing of its own waits
    behind its larger batches (bot.daily.delivery.DELIVERY_BATCHES), and it paces them to
    STUDYBOT_DELIVERY_RATE posts and reveals a second (bot.daily.pace); a process that answers keeps them small."""
    if settings.role == "delivery":
        return replace(DELIVERY_BATCHES, rate=settings.delivery_rate)
    return ANSWERING_BATCHES


def round_cache_of(settings: Settings) -> int:
    """How many open rounds this process keeps in memory so an answer needs no read (bot.kernel.rounds): a
    delivery process answers no one, so it keeps none of the rounds it posts (at 10,000 channels about 6 MB
    less at the end of the fan-out); the others keep ROUND_CACHE_SIZE."""
    return 0 if settings.role == "delivery" else ROUND_CACHE_SIZE


def connection_name(settings: Settings) -> str:
    """The application_name of this process's PostgreSQL connections, so pg_stat_activity tells the roles
    apart: studybot (all), studybot-interactive, studybot-delivery."""
    return "studybot" if settings.role == "all" else f"studybot-{settings.role}"


def runs_tick(settings: Settings) -> bool:
    """Whether this process posts and reveals (all, delivery)."""
    return settings.role != "interactive"


def adapters_of(settings: Settings) -> dict[str, tuple[str, str, str, str]]:
    """How each platform is started in this process: with its listeners, or REST only (delivery)."""
    return DELIVERING if settings.role == "delivery" else LISTENING


def check_start(settings: Settings) -> None:
    """A split role runs a chat platform (the console is one `all` process)."""
    if settings.role != "all" and not settings.platforms:
        raise StartupError(NO_CONSOLE.format(role=settings.role))


def web_settings(settings: Settings) -> Settings:
    """The web server's settings for this process: a delivery process serves no dashboard (it answers no one),
    only /healthz and /metrics when STUDYBOT_METRICS_PORT is set."""
    if settings.role != "delivery":
        return settings
    if settings.web_port:
        log.info("STUDYBOT_ROLE=delivery: no dashboard here (STUDYBOT_WEB_PORT is for interactive processes)")
    return settings.model_copy(update={"web_port": 0})


def yield_cpu(settings: Settings) -> None:
    """A delivery process lowers its CPU priority by STUDYBOT_DELIVERY_NICE (a Unix nice increment), before
    it starts any thread. On a host whose cores it shares with interactive processes, the kernel then runs
    their answers first and the fan-out takes the CPU they leave (bench.daily_minute on two cores: the
    answers' p99 during the fan-out 18-25 ms with it, 29 ms to 1.9 s without, the fan-out no later); on
    cores of its own it changes nothing. Other roles, and 0, keep the priority they were started with."""
    if settings.role != "delivery" or not settings.delivery_nice:
        return
    try:
        level = os.nice(settings.delivery_nice)
    except (OSError, AttributeError) as exc:  # no nice() on this system: the process runs as it was started
        log.warning("STUDYBOT_DELIVERY_NICE=%d could not be applied: %s", settings.delivery_nice, exc)
        return
    log.info("STUDYBOT_ROLE=delivery: CPU priority lowered to nice %d (STUDYBOT_DELIVERY_NICE)", level)
