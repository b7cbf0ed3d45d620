"""One log line per retry: the libraries' records around a connection retry, lowered or made one line.

Our own retry loops (the Discord login, the Slack token check at start) log one warning per failed attempt with
the next wait. The libraries log around the same attempts: discord.py "logging in using static token" before
each login, its gateway reconnect ("Attempting a reconnect in 1.09s") as an ERROR with a traceback of some 60
lines; slack-sdk "A retry handler found: ..." before its own retry of every failed call, and Socket Mode
"... seems to be already closed. Reconnecting..." then "Failed to check the current session ... (error: ...)";
asyncpg's pool "Failed to restore the pool connection floor; retrying" with a traceback, every few seconds while
PostgreSQL is down (bot.kernel.outage already says once that the database is down, and once that it is back).

`install()` attaches one filter to each of those loggers (never silencing a whole logger): a duplicate is
lowered to DEBUG, a retry becomes one WARNING line with the error's first line and the next wait (the
traceback is kept only when the logger is enabled for DEBUG). Every other record passes unchanged. Matching is
on the records' message templates, so the core imports neither library.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

#: Seconds between Socket Mode's checks of its connection (slack-bolt's AsyncSocketModeHandler ping_interval,
#: which adapters.slack keeps): after a failed reconnect the next one comes at the next check.
SOCKET_MODE_WAIT = 10.0
#: discord.py's AutoShardedClient waits this long before it tries a shard's first connection again.
SHARD_CONNECT_WAIT = 5.0

_SLACK_ERROR = re.compile(r"\(error: (?P<kind>\w+), message: (?P<text>.*)\)$", re.S)
_SLACK_RECEIVE = re.compile(r"^Failed to receive or enqueue a message: (?P<kind>\w+), (?P<text>.*) \([^()]*\)$", re.S)
#: aiohttp and OS errors a failed (re)connection raises; any other receive failure keeps its own record
_CONNECTION_ERRORS = frozenset(
    {
        "ClientConnectorError",
        "ClientConnectorDNSError",
        "ClientConnectionError",
        "ClientOSError",
        "ServerDisconnectedError",
        "ServerTimeoutError",
        "ConnectionTimeoutError",
        "WSServerHandshakeError",
        "ConnectionRefusedError",
        "ConnectionResetError",
        "TimeoutError",
        "OSError",
        "gaierror",
    }
)


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else ""


def _reason(record: logging.LogRecord) -> str:
    """The exception's type and first line, from the record's exc_info."""
    exc = record.exc_info[1] if record.exc_info else None
    if exc is None:
        return "unknown error"
    text = _first_line(str(exc))
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


Rewrite = Callable[[logging.LogRecord], "tuple[str, tuple[object, ...]] | None"]


@dataclass(frozen=True)
class _Rule:
    """Records of `logger` whose template `matches`: lowered to DEBUG (no `rewrite`), or made one WARNING
    line by `rewrite` (None: the record is not a retry after all and passes unchanged)."""

    logger: str
    matches: Callable[[str], bool]
    rewrite: Rewrite | None = None


def _discord_reconnect(record: logging.LogRecord) -> tuple[str, tuple[object, ...]] | None:
    (retry,) = record.args if isinstance(record.args, tuple) and len(record.args) == 1 else (None,)
    if not isinstance(retry, int | float):
        return None
    return "cannot reach the Discord gateway (%s); reconnecting in %.2f s", (_reason(record), retry)


def _shard_reconnect(record: logging.LogRecord) -> tuple[str, tuple[object, ...]] | None:
    args = record.args if isinstance(record.args, tuple) and len(record.args) == 2 else None
    if args is None or not isinstance(args[1], int | float):
        return None
    return "cannot reach the Discord gateway for shard %s (%s); reconnecting in %.2f s", (
        args[0],
        _reason(record),
        args[1],
    )


def _shard_connect(record: logging.LogRecord) -> tuple[str, tuple[object, ...]] | None:
    shard = record.args[0] if isinstance(record.args, tuple) and record.args else "?"
    return "cannot connect shard %s to the Discord gateway (%s); retrying in %g s", (
        shard,
        _reason(record),
        SHARD_CONNECT_WAIT,
    )


def _socket_mode(pattern: re.Pattern[str]) -> Rewrite:
    def rewrite(record: logging.LogRecord) -> tuple[str, tuple[object, ...]] | None:
        found = pattern.search(record.getMessage())
        if found is None or found["kind"] not in _CONNECTION_ERRORS:
            return None
        reason = f"{found['kind']}: {_first_line(found['text'])}"
        return "cannot reach Slack for Socket Mode (%s); retrying in %g s", (reason, SOCKET_MODE_WAIT)

    return rewrite


def _socket_connect(record: logging.LogRecord) -> tuple[str, tuple[object, ...]] | None:
    found = re.search(r"^Failed to connect \(error: (?P<text>.*)\); Retrying\.\.\.$", record.getMessage(), re.S)
    if found is None:
        return None
    return "cannot reach Slack for Socket Mode (%s); retrying in %g s", (
        _reason(record) if record.exc_info else _first_line(found["text"]),
        SOCKET_MODE_WAIT,
    )


def _template(record: logging.LogRecord) -> str:
    return record.msg if isinstance(record.msg, str) else ""


def _is(text: str) -> Callable[[str], bool]:
    return lambda template: template == text


def _starts(text: str, *, ends: str = "", has: str = "") -> Callable[[str], bool]:
    return lambda template: template.startswith(text) and template.endswith(ends) and has in template


SLACK_APP_LOGGERS = ("slack_bolt.AsyncApp", "slack_bolt.App")  # Socket Mode logs on the bolt app's logger
RULES: tuple[_Rule, ...] = (
    _Rule("discord.client", _is("logging in using static token")),
    _Rule("discord.client", _is("Attempting a reconnect in %.2fs"), _discord_reconnect),
    _Rule("discord.shard", _is("Attempting a reconnect for shard ID %s in %.2fs"), _shard_reconnect),
    _Rule("discord.shard", _is("Failed to connect for shard_id: %s. Retrying..."), _shard_connect),
    _Rule("asyncpg.pool", _is("Failed to restore the pool connection floor; retrying")),
    _Rule("slack_sdk.web.async_base_client", _starts("A retry handler found: ")),
    _Rule("slack_sdk.web.base_client", _starts("A retry handler found: ")),
    *(
        rule
        for name in SLACK_APP_LOGGERS
        for rule in (
            _Rule(name, _starts("The session (", ends="seems to be already closed. Reconnecting...")),
            _Rule(
                name,
                _starts("Failed to check the current session (", has="reconnect to the server"),
                _socket_mode(_SLACK_ERROR),
            ),
            _Rule(name, _starts("Failed to receive or enqueue a message: "), _socket_mode(_SLACK_RECEIVE)),
            _Rule(name, _starts("Failed to connect (error: "), _socket_connect),
        )
    ),
)


class RetryLogFilter(logging.Filter):
    """Applies RULES to the records of the logger it is attached to."""

    def __init__(self, rules: tuple[_Rule, ...]) -> None:
        super().__init__()
        self.rules = rules

    def filter(self, record: logging.LogRecord) -> bool:
        template = _template(record)
        for rule in self.rules:
            if rule.logger != record.name or not rule.matches(template):
                continue
            logger = logging.getLogger(record.name)
            if rule.rewrite is None:
                record.levelno, record.levelname = logging.DEBUG, "DEBUG"
                return logger.isEnabledFor(logging.DEBUG)
            rewritten = rule.rewrite(record)
            if rewritten is None:
                return True
            record.msg, record.args = rewritten
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            if not logger.isEnabledFor(logging.DEBUG):
                record.exc_info, record.exc_text, record.stack_info = None, None, None
            return logger.isEnabledFor(logging.WARNING)
        return True


_installed: dict[str, RetryLogFilter] = {}


def install() -> None:
    """Attach the filter to each logger RULES names (once; calling again changes nothing)."""
    for name in dict.fromkeys(rule.logger for rule in RULES):
        if name not in _installed:
            _installed[name] = RetryLogFilter(tuple(r for r in RULES if r.logger == name))
            logging.getLogger(name).addFilter(_installed[name])
