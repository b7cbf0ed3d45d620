"""The benchmarks remove the temporary databases they create (this runs their set-up, not a benchmark)."""

from __future__ import annotations

import contextlib
import tempfile

from bench.answers import latency, raw_ceiling
from bench.common import REF, sqlite_factory


async def test_a_measurement_on_sqlite_leaves_no_folder_behind(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    async with sqlite_factory()() as (service, store):
        round_ = await service.posting.post_scheduled(REF)
        assert round_ is not None
        await service.answers.submit_answer(round_.id, "u1", 0)
        assert any(tmp_path.iterdir())  # the database lives under the temporary folder while measured
    assert list(tmp_path.iterdir()) == []


def test_the_raw_ceiling_leaves_no_folder_behind(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert raw_ceiling(200, 50) > 0
    assert list(tmp_path.iterdir()) == []


async def test_the_latency_run_spreads_its_answers_over_the_rounds_asked_and_leaves_no_folder_behind(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    made = sqlite_factory()
    counts: dict[int, int] = {}

    @contextlib.asynccontextmanager
    async def counting():  # type: ignore[no-untyped-def]
        async with made() as (service, store):
            yield service, store
            for round_ in await store.open_daily_rounds():
                counts[round_.id] = len(await store.round_answers(round_.id))

    _p50, _p99, _achieved, count = await latency(counting, 300, 0.2, rounds=3)
    assert len(counts) == 3 and sum(counts.values()) == count > 30
    assert max(counts.values()) - min(counts.values()) <= 1  # in turn
    assert list(tmp_path.iterdir()) == []
