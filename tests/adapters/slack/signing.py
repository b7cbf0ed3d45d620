"""Sign requests the way Slack does: v0= + HMAC-SHA256(secret, "v0:{timestamp}:{body}")."""

from __future__ import annotations

import hashlib
import hmac
import time


def signature(secret: str, timestamp: int, body: str) -> str:
    digest = hmac.new(secret.encode(), f"v0:{timestamp}:{body}".encode(), hashlib.sha256).hexdigest()
    return f"v0={digest}"


def signed_headers(secret: str, body: str, content_type: str, timestamp: int | None = None) -> dict[str, str]:
    ts = int(time.time()) if timestamp is None else timestamp
    return {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": str(ts),
        "X-Slack-Signature": signature(secret, ts, body),
    }
