"""Keep request bodies out of logs: bolt logs the whole body of a request whose signature fails, and a
body holds the legacy verification token and a response_url. This filter withholds it."""

from __future__ import annotations

import logging

BOLT_VERIFICATION_LOGGERS = ("slack_bolt.RequestVerification", "slack_bolt.AsyncRequestVerification")


class WithholdRequestBodies(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if str(record.msg).startswith("Invalid request signature detected"):
            record.msg = "Rejected a request with an invalid signature or a stale timestamp (body withheld)"
            record.args = ()
        return True


def install() -> None:
    """Attach the filter once to bolt's request-verification loggers."""
    for name in BOLT_VERIFICATION_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, WithholdRequestBodies) for f in logger.filters):
            logger.addFilter(WithholdRequestBodies())
