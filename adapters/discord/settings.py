"""What the Discord adapter reads of the bot's settings (bot/app/config.py reads the environment once and hands
its Settings in; any object with these attributes will do)."""

from __future__ import annotations

from typing import Protocol


class DiscordSettings(Protocol):
    """DISCORD_TOKEN, DISCORD_GUILD_ID, DISCORD_CLIENT_ID and the shard settings."""

    @property
    def discord_token(self) -> str | None: ...

    @property
    def discord_guild_id(self) -> int | None: ...

    @property
    def discord_client_id(self) -> str | None: ...

    @property
    def shard_count(self) -> int | None: ...

    @property
    def shard_ids(self) -> tuple[int, ...]: ...
