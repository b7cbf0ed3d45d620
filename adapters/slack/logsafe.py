"""Keep credentials and private replies out of logs, at every level.

slack_sdk logs, at DEBUG, every request it sends (a response_url is a 30-minute credential, and an ephemeral
body holds a learner's hidden "Your answer C is locked in") and every response; Socket Mode logs whole
payloads; bolt logs the body of a request whose signature fails. A log-record factory rewrites those records
as they are made, before any handler (ours, a test's or a library's) sees them: Slack's own loggers keep the
first words of such a message and lose the details, and in every logger's records Slack tokens, the signing
secret and response URLs are replaced.
"""

from __future__ import annotations

import logging
import re
from typing import Any

SLACK_LOGGERS = ("slack_sdk", "slack_bolt")
BOLT_VERIFICATION_LOGGERS = ("slack_bolt.RequestVerification", "slack_bolt.AsyncRequestVerification")
WITHHELD = " (details withheld)"

_DETAILED = re.compile(
    r"^(Sending a request|Received the following response|Received messages|on_message invoked|"
    r"A new message enqueued|Message processing started|Message processing completed|Sending a message|"
    r"Invalid request signature detected|Responding with|Failed to fetch oauth.v2.access result|"
    r"Handling an OAuth callback)",
)
_TOKEN = re.compile(r"\bx(?:ox[abposer]|app)-[A-Za-z0-9-]+")
_RESPONSE_URL = re.compile(r"https?://[^\s\"'<>]*/(?:commands|actions|respond|services)/[^\s\"'<>]+")
_OAUTH_QUERY = re.compile(r"(/slack/oauth_redirect\?)[^\s\"'<>]+")  # its code and state are credentials

_secrets: set[str] = set()
_installed = False


def redact(text: str) -> str:
    """Tokens, known secrets and response URLs replaced in one string."""
    text = _TOKEN.sub("[token]", text)
    text = _RESPONSE_URL.sub("[response_url]", text)
    text = _OAUTH_QUERY.sub(r"\1[withheld]", text)
    for secret in _secrets:
        text = text.replace(secret, "[secret]")
    return text


def _clean(record: logging.LogRecord) -> None:
    try:
        original = record.getMessage()
    except Exception:  # noqa: BLE001 - a record whose arguments do not format keeps its template only
        original = str(record.msg)
    message = original
    if record.name.startswith(SLACK_LOGGERS):
        detailed = _DETAILED.match(message)
        if detailed:
            message = detailed.group(1) + WITHHELD
    message = redact(message)
    if message != original:
        record.msg, record.args = message, ()


def install(*secrets: str) -> None:
    """Install the redacting record factory once; remember secrets (signing secret, tokens) to hide."""
    global _installed
    _secrets.update(s for s in secrets if s and len(s) >= 8)
    if _installed:
        return
    _installed = True
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        _clean(record)
        return record

    logging.setLogRecordFactory(factory)
