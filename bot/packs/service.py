"""Packs as admins handle them: the space's packs, imports and exports, and the question statistics."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Protocol

from bot.kernel.context import Context
from bot.kernel.parsing import check_pack_name
from bot.kernel.values import Actor, ChannelRef
from bot.packs.catalog import ImportResult, PackCatalog, PackFile, require_admin
from bot.packs.files import Format
from bot.packs.question_stats import (
    QuestionStat,
    QuestionStatsCard,
    QuestionView,
    question_stats,
    question_table,
    question_view,
)


class ReportCounts(Protocol):
    """Open reports per question id in a space, and the questions held there (the reports feature provides
    them)."""

    async def report_counts(self, platform: str, space_id: str) -> dict[str, int]: ...

    async def held(self, platform: str, space_id: str) -> set[str]: ...


class OpenQuestions(Protocol):
    """The questions open in a space's channels, daily and live (the store reads them)."""

    async def open_channel_question_ids(self, platform: str, space_id: str) -> set[str]: ...


class PackDesk:
    """Admins' pack work over the space's catalog."""

    def __init__(
        self, ctx: Context, catalog: PackCatalog, reports: ReportCounts, open_rounds: OpenQuestions | None = None
    ) -> None:
        self.ctx = ctx
        self.catalog = catalog
        self.reports = reports
        self.open_rounds = open_rounds

    async def question_table(self, actor: Actor, platform: str, space_id: str) -> tuple[QuestionStat, ...]:
        """Admins only: every question asked in the space with its statistics, never one open in a channel
        now, as a daily round or a live question (its answers show only after its reveal)."""
        counts = await self.reports.report_counts(platform, space_id)
        hidden = await self.open_rounds.open_channel_question_ids(platform, space_id) if self.open_rounds else set()
        return await question_table(self.catalog, actor, platform, space_id, counts, hidden)

    async def question(self, actor: Actor, platform: str, space_id: str, question_id: str) -> QuestionView | None:
        """Admins only: one question of the space (the shipped bank or its own packs) with its statistics and open
        reports; its answer and figures wait while it is open in a channel. None: no such question here."""
        counts = await self.reports.report_counts(platform, space_id)
        hidden = await self.open_rounds.open_channel_question_ids(platform, space_id) if self.open_rounds else set()
        view = await question_view(self.catalog, actor, platform, space_id, question_id, counts, hidden)
        return replace(view, held=question_id in await self.reports.held(platform, space_id)) if view else None

    async def question_stats(
        self, actor: Actor, platform: str, space_id: str, pack: str | None = None
    ) -> QuestionStatsCard:
        """Admins only: times asked, % correct, the most chosen wrong option and its share, reports; the ten
        hardest, the ten most reported and the ones flagged "check this question"."""
        counts = await self.reports.report_counts(platform, space_id)
        return await question_stats(self.catalog, actor, platform, space_id, pack, counts)

    def check_import(self, actor: Actor, pack: str | None) -> None:
        """Admins only, and a valid pack name if one is given: checked before a platform asks for the file."""
        require_admin(actor, "import")
        if pack is not None:
            check_pack_name(pack)

    async def import_pack(
        self,
        actor: Actor,
        ref: ChannelRef,
        pack: str,
        data: bytes | Callable[[], Awaitable[bytes]],
        fmt: Format,
        *,
        replace: bool = False,
        label: str = "file",
        size: int | None = None,
    ) -> ImportResult:
        """Admins only: a YAML or CSV pack into the space, all or nothing (PackError lists every problem).
        `data` may be a fetcher, called only once `size` (what the platform says the file weighs) is checked."""
        return await self.catalog.import_pack(
            actor,
            ref.platform,
            ref.space_id,
            pack,
            data,
            fmt,
            replace=replace,
            now=self.ctx.now(),
            label=label,
            size=size,
        )

    async def export_pack(self, actor: Actor, ref: ChannelRef, pack: str | None, fmt: Format) -> PackFile:
        """Admins only: one of the space's own packs as a file (no name: the space's only pack)."""
        require_admin(actor, "export")
        name = await self.catalog.own_pack(ref.platform, ref.space_id, pack)
        return PackFile(name, fmt, await self.catalog.export_pack(actor, ref.platform, ref.space_id, name, fmt))
