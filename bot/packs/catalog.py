"""Question packs: a space's own named sets of questions, in the bank's schema.

The shipped bank is the read-only pack `pytorch`. A space's own packs live in the store (one row per
question, the question kept as canonical JSON). This module parses uploads (YAML in the bank's format, or
CSV), checks them all or nothing (every problem at once, by row or question id and field), writes them
back out (export then import gives the same bytes for YAML), and resolves a channel's packs into the
questions selection draws from. A question of an own pack is known to rounds as `PACK/ID`.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from bot.kernel.context import QuestionBank
from bot.kernel.errors import BadSetting, NotAllowed, PackBusy, PackError, PackExists, UnknownRound
from bot.kernel.parsing import check_pack_name
from bot.kernel.topics import not_a_topic
from bot.kernel.values import Actor, ChannelConfig, Question, Round
from bot.packs.files import (
    MAX_UPLOAD_BYTES,
    Format,
    canonical,
    export_csv,
    export_yaml,
    parse_pack,
    question_from_body,
)
from bot.packs.store import PackStore

BANK_PACK = "pytorch"  # the shipped bank, read-only


MAX_PACKS = 50  # per space


__all__ = ["PackBusy", "PackError", "PackExists"]  # raised here and by the stores


@dataclass(frozen=True)
class PackInfo:
    name: str
    questions: int
    read_only: bool = False


def is_pack_question(question_id: str) -> bool:
    return "/" in question_id


def require_admin(actor: Actor, what: str) -> None:
    if not actor.is_admin:
        raise NotAllowed(f"Only members who can manage this server or workspace can {what} question packs.")


def filtered(questions: Iterable[Question], cfg: ChannelConfig) -> tuple[Question, ...]:
    if not cfg.topics and not cfg.difficulties:
        return tuple(questions)  # (a tuple already: the same one, not a copy; this runs per daily post)
    return tuple(
        q
        for q in questions
        if (not cfg.topics or q.topic in cfg.topics) and (not cfg.difficulties or q.difficulty in cfg.difficulties)
    )


@dataclass(frozen=True)
class PacksCard:
    """The packs of a space, with question counts, and the ones the asking channel draws from."""

    packs: tuple[PackInfo, ...]
    in_use: frozenset[str]

    @property
    def lines(self) -> tuple[str, ...]:
        """Plain text (adapters escape it): one line per pack."""
        out = []
        for p in self.packs:
            flags = (("shipped, read-only", p.read_only), ("this channel", p.name in self.in_use))
            notes = [n for n, on in flags if on]
            out.append(
                f"{p.name}: {p.questions:,} question{'s' if p.questions != 1 else ''}"
                + (f" ({'; '.join(notes)})" if notes else "")
            )
        return tuple(out)

    @property
    def text(self) -> str:
        return "Question packs\n" + "\n".join(self.lines)


def bank_info(bank: QuestionBank) -> PackInfo:
    return PackInfo(BANK_PACK, len(bank.questions), read_only=True)


@dataclass(frozen=True)
class ImportResult:
    pack: str
    questions: int
    version: int
    replaced: bool

    @property
    def text(self) -> str:
        verb = "Replaced" if self.replaced else "Imported"
        return f"{verb} pack {self.pack}: {self.questions} question{'s' if self.questions != 1 else ''}."


@dataclass(frozen=True)
class PackFile:
    """An exported pack: its bytes and the file name to give them."""

    pack: str
    format: Format
    data: bytes

    @property
    def filename(self) -> str:
        return f"{self.pack}.{self.format}"


class PackCatalog:
    """A space's packs seen as questions (cached by pack version), imports and exports, and the question
    each round posted (kept with the round, so a pack edited while its round is open changes nothing)."""

    SNAPSHOTS = 4096

    def __init__(self, store: PackStore, bank: QuestionBank | Callable[[], QuestionBank]) -> None:
        self.store = store
        self._bank = bank
        self._packs: dict[tuple[str, str, str], tuple[int, tuple[Question, ...], dict[str, str]]] = {}
        self._posted: dict[int, Question] = {}

    @property
    def bank(self) -> QuestionBank:
        """The shipped bank (the pack `pytorch`): given, or read each time from its source (a reload)."""
        return self._bank() if callable(self._bank) else self._bank

    # ---- reading -----------------------------------------------------------------------------------

    async def list(self, platform: str, space_id: str) -> list[PackInfo]:
        """The shipped bank, then the space's own packs by name, with their question counts."""
        own = [PackInfo(name, count) for name, count, _ in await self.store.list_packs(platform, space_id)]
        return [bank_info(self.bank), *own]

    async def _load(
        self, platform: str, space_id: str, name: str, version: int
    ) -> tuple[tuple[Question, ...], dict[str, str]]:
        key = (platform, space_id, name)
        cached = self._packs.get(key)
        if cached is None or cached[0] != version:
            rows = await self.store.pack_questions(platform, space_id, name)
            questions = tuple(question_from_body(name, body) for _, body in rows)
            cached = (version, questions, {f"{name}/{qid}": body for qid, body in rows})
            self._packs[key] = cached
        return cached[1], cached[2]

    async def questions(
        self, platform: str, space_id: str, names: Iterable[str], *, strict: bool = True
    ) -> tuple[Question, ...]:
        """Every question of the named packs. strict: a pack the space does not have raises BadSetting."""
        names = sorted(names)
        if names == [BANK_PACK]:
            return self.bank.questions  # the shipped bank alone, as it is (this runs per daily post)
        own = any(name != BANK_PACK for name in names)  # the shipped bank alone needs no trip to the store
        versions = (
            {name: version for name, _, version in await self.store.list_packs(platform, space_id)} if own else {}
        )
        out: list[Question] = []
        for name in names:
            if name == BANK_PACK:
                out += self.bank.questions
            elif name in versions:
                out += (await self._load(platform, space_id, name, versions[name]))[0]
            elif strict:
                raise BadSetting(f"There is no pack {name} in this space; /quiz packs lists the packs.")
        return tuple(out)

    async def candidates(self, cfg: ChannelConfig, *, strict: bool = False) -> tuple[Question, ...]:
        """What a channel's daily question is drawn from: its packs, filtered by its topics and
        difficulties. Not strict (the daily post): an empty choice falls back to the shipped bank."""
        ref = cfg.ref
        every = await self.questions(ref.platform, ref.space_id, cfg.packs, strict=strict)
        if strict and cfg.topics:
            known = sorted({q.topic for q in every})
            for topic in sorted(cfg.topics - set(known)):
                raise BadSetting(
                    not_a_topic(topic, known, "of this channel's packs", "use any of {} (comma-separated) or all.")
                )
        found = filtered(every, cfg)
        if found or strict:
            return found
        return self.bank.filtered(cfg.topics, cfg.difficulties) or self.bank.questions

    async def question(self, platform: str, space_id: str, question_id: str) -> Question | None:
        """One question of the shipped bank or of the space's own packs, as it reads now (None: none such)."""
        if not is_pack_question(question_id):
            return self.bank.get(question_id)
        body = await self._body(platform, space_id, question_id)
        return question_from_body(question_id.split("/", 1)[0], body) if body is not None else None

    # ---- the question a round posted --------------------------------------------------------------

    async def _body(self, platform: str, space_id: str, question_id: str) -> str | None:
        name = question_id.split("/", 1)[0]
        versions = {n: v for n, _, v in await self.store.list_packs(platform, space_id)}
        if name not in versions:
            return None
        return (await self._load(platform, space_id, name, versions[name]))[1].get(question_id)

    def _keep(self, round_id: int, question: Question) -> None:
        if len(self._posted) >= self.SNAPSHOTS:
            self._posted.pop(next(iter(self._posted)))
        self._posted[round_id] = question

    async def remember(self, round_: Any, question: Question) -> None:
        """Keep a pack question with the round that posts it (the shipped bank needs nothing)."""
        if not is_pack_question(question.id):
            return
        body = await self._body(round_.ref.platform, round_.ref.space_id, question.id)
        if body is not None:
            await self.store.save_round_question(round_.id, body)
            self._keep(round_.id, question_from_body(question.id.split("/", 1)[0], body))

    async def prime(self, round_: Any) -> None:
        """Load the question a round posted, so `posted` has it (no-op for the shipped bank)."""
        if not is_pack_question(round_.question_id) or round_.id in self._posted:
            return
        pack = round_.question_id.split("/", 1)[0]
        body = await self.store.round_question(round_.id)
        if body is None:  # kept by no one (an older process): the pack's current text
            body = await self._body(round_.ref.platform, round_.ref.space_id, round_.question_id)
        if body is not None:
            self._keep(round_.id, question_from_body(pack, body))

    def posted(self, round_: Any) -> Question | None:
        return self._posted.get(round_.id)

    async def asked(self, round_: Round) -> Question | None:
        """The question a round asked, primed here; None when neither the bank nor a kept text has it (its pack
        was removed)."""
        await self.prime(round_)
        return self.bank.get(round_.question_id) or self.posted(round_)

    def question_of(self, round_: Round) -> Question:
        """The question a round asked: the shipped bank's, or the pack text kept with it (prime it first)."""
        question = self.bank.get(round_.question_id) or self.posted(round_)
        if question is None:
            raise UnknownRound(f"Question {round_.question_id} is no longer in the bank.")
        return question

    # ---- import and export (admins only) ----------------------------------------------------------

    async def import_pack(
        self,
        actor: Actor,
        platform: str,
        space_id: str,
        name: str,
        data: bytes | Callable[[], Awaitable[bytes]],
        fmt: Format,
        *,
        replace: bool = False,
        now: Any,
        label: str = "file",
        size: int | None = None,
    ) -> ImportResult:
        """All or nothing: PackError lists every problem and nothing changes. `size`: what the platform says
        an upload weighs, checked before a callable `data` fetches it."""
        require_admin(actor, "import")
        check_pack_name(name)
        if size is not None and size > MAX_UPLOAD_BYTES:
            raise PackError(f"{label}: file too large: {size:,} bytes, at most 1 MiB; split it into several packs")
        if callable(data):
            data = await data()
        if name == BANK_PACK:
            raise PackError(f"{BANK_PACK} is the shipped question bank and cannot be replaced; choose another name.")
        specs = parse_pack(data, fmt, label)
        rows = [(s.id, json.dumps(canonical(s), ensure_ascii=False, separators=(",", ":"))) for s in specs]
        existed = name in {n for n, _, _ in await self.store.list_packs(platform, space_id)}
        version = await self.store.save_pack(
            platform, space_id, name, rows, replace=replace, max_packs=MAX_PACKS, now=now
        )
        return ImportResult(name, len(rows), version, replaced=existed)

    async def own_pack(self, platform: str, space_id: str, name: str | None) -> str:
        """The named pack, or the space's only own pack when none is named (PackError otherwise)."""
        if name is not None:
            return check_pack_name(name)
        own: list[str] = [n for n, _, _ in await self.store.list_packs(platform, space_id)]
        if len(own) == 1:
            return own[0]
        if not own:
            raise PackError("This space has no packs of its own yet; import one first.")
        raise PackError(f"Name the pack: this space has {', '.join(own)}.")

    async def export_pack(self, actor: Actor, platform: str, space_id: str, name: str, fmt: Format) -> bytes:
        require_admin(actor, "export")
        check_pack_name(name)
        if name == BANK_PACK:
            raise PackError(f"{BANK_PACK} is the shipped question bank: its files are data/questions/*.yaml.")
        rows = await self.store.pack_questions(platform, space_id, name)
        if not rows:
            raise PackError(f"There is no pack {name} in this space.")
        bodies = [json.loads(body) for _, body in rows]
        return export_yaml(bodies) if fmt == "yaml" else export_csv(bodies)
