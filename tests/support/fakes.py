"""Hand-written fakes of the core's ports (in the style of cosmicpython's FakeRepository)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import yaml

from bot.bank.load import Bank
from bot.features import Features
from bot.kernel.cards import QuestionCard, RevealCard
from bot.kernel.platform import CannotLook, SendKind
from bot.kernel.topics import TOPICS
from bot.kernel.values import ChannelRef, Difficulty, Question
from bot.store.ports import Store


class FixedClock:
    """A clock that only moves when a test moves it."""

    def __init__(self, start: dt.datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("aware datetimes only")
        self.current = start.astimezone(dt.UTC)

    def now(self) -> dt.datetime:
        return self.current

    def set(self, moment: dt.datetime) -> None:
        self.current = moment.astimezone(dt.UTC)

    def advance(self, **kwargs: float) -> None:
        self.current += dt.timedelta(**kwargs)


@dataclass
class FakePlatform:
    """Records every outbound push."""

    name: str = "fake"
    posted: list[tuple[ChannelRef, QuestionCard]] = field(default_factory=list)
    reveals: list[tuple[ChannelRef, RevealCard]] = field(default_factory=list)
    private: list[tuple[ChannelRef, str, str]] = field(default_factory=list)
    notices: list[tuple[ChannelRef, str]] = field(default_factory=list)

    async def post_question(self, ref: ChannelRef, card: QuestionCard) -> str:
        self.posted.append((ref, card))
        return f"msg-{card.round_id}"

    async def post_reveal(self, ref: ChannelRef, card: RevealCard) -> str | None:
        self.reveals.append((ref, card))
        return f"reveal-{card.round_id}"

    async def send_private(self, ref: ChannelRef, user_id: str, text: str) -> None:
        self.private.append((ref, user_id, text))

    async def post_notice(self, ref: ChannelRef, text: str) -> None:
        self.notices.append((ref, text))


@dataclass
class IdempotentFakePlatform(FakePlatform):
    """A FakePlatform with IdempotentSends: it can be asked for the message of a round's question or reveal
    among those it recorded (as Discord and Slack can). `find_plan`: per find_sent call, "fail" (the platform
    could not be asked now), "cannot" (it cannot be asked here: CannotLook) or "ok"."""

    find_plan: list[str] = field(default_factory=list)
    finds: list[tuple[int, str]] = field(default_factory=list)  # (round id, kind) per find_sent call

    async def find_sent(self, ref: ChannelRef, round_id: int, kind: SendKind, since: dt.datetime) -> str | None:
        self.finds.append((round_id, kind))
        step = self.find_plan.pop(0) if self.find_plan else "ok"
        if step == "fail":
            raise ConnectionError("HTTP 503")
        if step == "cannot":
            raise CannotLook("no history scope")
        if kind == "question":
            found = [c for r, c in self.posted if r == ref and c.round_id == round_id]
            return f"msg-{round_id}" if found else None
        return f"reveal-{round_id}" if any(r == ref and c.round_id == round_id for r, c in self.reveals) else None


def make_question(
    qid: str, topic: str = "tensors", difficulty: Difficulty = Difficulty.EASY, answer: int = 0
) -> Question:
    return Question(
        id=qid,
        topic=topic,
        difficulty=difficulty,
        prompt=f"Prompt of {qid}?",
        choices=(f"{qid} one", f"{qid} two", f"{qid} three", f"{qid} four"),
        answer=answer,
        explanation=f"Because {qid} says so.",
        reference="https://docs.pytorch.org/docs/stable/index.html",
        source="original",
        why_wrong=tuple("" if i == answer else f"{qid} {x} looks right but is not." for i, x in enumerate("ABCD")),
    )


def make_bank(per_topic: int = 3, topics: tuple[str, ...] = ("tensors", "autograd", "modules")) -> Bank:
    """A small bank: per topic one question of each difficulty in turn; answers cycle A-D."""
    assert all(t in TOPICS for t in topics)
    levels = list(Difficulty)
    questions = [
        make_question(f"{topic}-{i}", topic, levels[i % 3], answer=i % 4) for topic in topics for i in range(per_topic)
    ]
    return Bank(tuple(questions))


REF = ChannelRef("fake", "space-1", "chan-1")


def write_bank_files(folder: Path, bank: Bank) -> Path:
    """Write a bank as question files (one per topic), for tests that start a real `studybot`."""
    folder.mkdir(parents=True, exist_ok=True)
    by_topic: dict[str, list[dict]] = {}
    for q in bank.questions:
        by_topic.setdefault(q.topic, []).append(
            {
                "id": q.id,
                "topic": q.topic,
                "difficulty": q.difficulty.value,
                "prompt": q.prompt,
                "choices": list(q.choices),
                "answer": q.answer_letter,
                "explanation": q.explanation,
                "reference": q.reference,
                "source": q.source,
                "checked_by": q.reference,
                "why_wrong": {x: why for x, why in zip("ABCD", q.why_wrong, strict=False) if why},
            }
        )
    for topic, questions in by_topic.items():
        (folder / f"{topic}.yaml").write_text(yaml.safe_dump({"topic": topic, "questions": questions}))
    return folder


def store_of(service: Features) -> Store:
    """The store a test's features were built over: the bundle hands no store to adapters, and tests read
    it to check what was written."""
    return cast(Store, service.context.spaces)
