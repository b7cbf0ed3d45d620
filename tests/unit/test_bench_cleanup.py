"""The benchmarks remove the temporary databases they create (this runs their set-up, not a benchmark)."""

from __future__ import annotations

import tempfile

from bench.answers import raw_ceiling
from bench.common import REF, sqlite_factory


async def test_a_measurement_on_sqlite_leaves_no_folder_behind(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    async with sqlite_factory()() as (service, store):
        round_ = await service.post_scheduled(REF)
        assert round_ is not None
        await service.submit_answer(round_.id, "u1", 0)
        assert any(tmp_path.iterdir())  # the database lives under the temporary folder while measured
    assert list(tmp_path.iterdir()) == []


def test_the_raw_ceiling_leaves_no_folder_behind(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert raw_ceiling(200, 50) > 0
    assert list(tmp_path.iterdir()) == []
