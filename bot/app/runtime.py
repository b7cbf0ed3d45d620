"""Process-level tuning applied by the composition root (and by the benchmarks, to measure the same bot)."""

from __future__ import annotations

import gc

GEN0_THRESHOLD = 20_000


def tune_gc() -> None:
    """Fewer, cheaper garbage collections: a burst of answers allocates many short-lived objects, and the
    default gen-0 threshold (700) makes the collector run thousands of times a second under load. Objects
    alive after start-up (bank, modules) are frozen out of every later collection."""
    gc.collect()
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GEN0_THRESHOLD, gen1, gen2)
