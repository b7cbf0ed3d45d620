"""What the bot's settings (bot.app.config) and the platform adapters both hold to: the Slack listener's port
and the bot scopes "Add to Slack" asks for by default, and the rule for Discord shard ids. Here, so the core's
settings need not import an adapter."""

from __future__ import annotations

from bot.kernel.errors import StartupError

DEFAULT_HTTP_PORT = 3000
# the bot scopes "Add to Slack" asks for (as in slack/manifest.yml); SLACK_SCOPES overrides them
DEFAULT_SLACK_SCOPES = (
    "commands",
    "chat:write",
    "channels:join",
    "reactions:read",
    "users:read",
    "files:write",
    "files:read",
    "im:write",
    "channels:history",
    "groups:history",
    "channels:read",
    "groups:read",
)


def check_shards(shard_count: int, shard_ids: tuple[int, ...], typed: str | None = None) -> list[int] | None:
    """The shard ids to connect (None: all of them); Discord closes the gateway on an id outside 0..count-1.
    `typed`: STUDYBOT_SHARD_IDS as written, for the error (default: the ids)."""
    if shard_count < 1:
        raise StartupError(
            f"STUDYBOT_SHARD_COUNT={shard_count} is not accepted: use a whole number of shards, 1 or more."
        )
    bad = sorted(i for i in shard_ids if not 0 <= i < shard_count)
    if bad:
        ids = typed or ",".join(map(str, shard_ids))
        raise StartupError(
            f"STUDYBOT_SHARD_IDS={ids} is not accepted: shard {bad[0]} is outside 0..{shard_count - 1} "
            f"(STUDYBOT_SHARD_COUNT={shard_count}); use shard numbers from 0 to {shard_count - 1}."
        )
    return sorted(set(shard_ids)) or None
