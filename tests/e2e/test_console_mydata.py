"""A learner's own data in the console channel: `/quiz export` writes the CSV and the Anki TSV and prints their
paths; `/quiz forget-me` explains and changes nothing, `/quiz forget-me confirm` deletes."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from adapters.console.channel import CONSOLE_REF, ConsoleChannel
from bot.features import Features
from bot.kernel.values import LETTERS, Period
from tests.e2e import test_console_review
from tests.support.fakes import store_of

service = test_console_review.service  # the same fixture: a SQLite store, its clock at Monday 2026-12-07 09:00


async def test_export_writes_both_files_and_forget_me_needs_confirm(service: Features, tmp_path: Path) -> None:
    out = io.StringIO()
    console = ConsoleChannel(service, stdout=out)
    console.platform.recap_dir = tmp_path / "files"
    await console.start()
    round_ = await store_of(service).latest_daily_round(CONSOLE_REF)
    assert round_ is not None
    question = service.context.bank.get(round_.question_id)
    assert question is not None
    await console.handle("/quiz as ../ann")
    await console.handle(f"/quiz answer {LETTERS[(question.answer + 1) % 4]}")
    await console.handle("/quiz export")
    assert "Nothing to export yet" in out.getvalue()  # not revealed yet: no verdict, no export
    assert await service.reveals.reveal_round(round_.id) is not None

    await console.handle("/quiz export")
    paths = sorted((tmp_path / "files").iterdir())
    assert [p.name for p in paths] == [
        "___ann-studybot-misses-2026-12-07-anki.tsv",
        "___ann-studybot-misses-2026-12-07.csv",
    ]
    assert all(str(p) in out.getvalue() for p in paths)
    rows = list(csv.DictReader(io.StringIO(paths[1].read_text("utf-8-sig"), newline="")))
    assert [r["question_id"] for r in rows] == [question.id]
    lines = [line for line in paths[0].read_text().splitlines() if not line.startswith("#")]
    assert len(lines) == 1 and len(lines[0].split("\t")) == 2

    await console.handle("/quiz forget-me")
    assert "type /quiz forget-me confirm" in out.getvalue()
    assert await store_of(service).rank_of(CONSOLE_REF.platform, CONSOLE_REF.space_id, Period.ALL, "all", "../ann")
    await console.handle("/quiz forget-me confirm")
    assert "Done: deleted 1 answer" in out.getvalue()
    assert not await store_of(service).rank_of(CONSOLE_REF.platform, CONSOLE_REF.space_id, Period.ALL, "all", "../ann")
