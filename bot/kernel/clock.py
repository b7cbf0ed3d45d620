from __future__ import annotations

import datetime as dt


class SystemClock:
    """Wall-clock time, as an aware UTC datetime."""

    def now(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC)
