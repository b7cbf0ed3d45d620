"""Stores behind the Store port; `store_for_url` picks one from STUDYBOT_DATABASE_URL."""

from __future__ import annotations

from bot.kernel.errors import StartupError
from bot.store.ports import Store


def store_for_url(url: str, *, application_name: str | None = None) -> Store:
    """sqlite:///path (the embedded default) or postgresql://... (the scale-out store), whose connections carry
    `application_name` when given (a process's role: bot.app.roles.connection_name)."""
    if url.startswith("sqlite:"):
        from bot.store.sqlite import SqliteStore

        return SqliteStore(sqlite_path(url))
    if url.startswith(("postgresql://", "postgres://")):
        try:
            from bot.store.postgres import APPLICATION_NAME, PostgresStore
        except ImportError as exc:
            raise StartupError(
                f"STUDYBOT_DATABASE_URL is a PostgreSQL URL but asyncpg is not installed ({exc}): "
                "pip install 'studybot[postgres]'"
            ) from None
        return PostgresStore(url, application_name=application_name or APPLICATION_NAME)
    scheme = url.split(":", 1)[0]
    raise StartupError(f"STUDYBOT_DATABASE_URL={scheme}://... is not accepted: use sqlite:///file.db or postgresql://")


def sqlite_path(url: str) -> str:
    """sqlite:///relative.db, sqlite:////abs/path.db or sqlite:///:memory: -> a path for sqlite3."""
    prefix = "sqlite:///"
    if not url.startswith(prefix):
        raise ValueError(f"not a sqlite URL: {url.split('://')[0]}://...")
    return url[len(prefix) :] or "studybot.db"
