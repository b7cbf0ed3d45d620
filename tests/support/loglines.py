"""The log as `studybot` prints it: every record that reaches the root logger at INFO, formatted with the CLI's
format (a traceback included), kept with the lines it prints. For tests that count lines per retry."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager

CLI_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"  # bot.app.cli._setup_logging


class PrintedLog(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.setFormatter(logging.Formatter(CLI_FORMAT))
        self.printed: list[tuple[logging.LogRecord, list[str]]] = []
        self._more = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.printed.append((record, self.format(record).splitlines()))
        self._more.set()

    def retries(self, is_retry: Callable[[logging.LogRecord], bool]) -> list[int]:
        """Indexes of the printed records that are retries."""
        return [i for i, (record, _) in enumerate(self.printed) if is_retry(record)]

    async def wait_for_retries(self, is_retry: Callable[[logging.LogRecord], bool], n: int, within: float = 10) -> None:
        async def enough() -> None:
            while len(self.retries(is_retry)) < n:
                self._more.clear()
                await self._more.wait()

        await asyncio.wait_for(enough(), within)

    def lines_per_retry(self, is_retry: Callable[[logging.LogRecord], bool]) -> list[list[str]]:
        """For each retry but the last: the lines printed from it up to the next retry (one line is the goal)."""
        marks = self.retries(is_retry)
        return [[line for _, lines in self.printed[a:b] for line in lines] for a, b in itertools.pairwise(marks)]


@contextmanager
def printed_log() -> Iterator[PrintedLog]:
    """Capture what the CLI would print at its default level with a platform (INFO), from every logger."""
    root = logging.getLogger()
    handler = PrintedLog()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
