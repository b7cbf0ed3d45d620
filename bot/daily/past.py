"""Past questions: the daily questions a space has revealed, with their answers, for the member who missed a day
or wants to look one up again (`/quiz past` in the chat, Past questions on the dashboard).

Only rounds members saw and that are revealed; a question open again somewhere in the space right now is left
out until its reveal there (its answer would give that round away).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.daily.store import PastRounds
from bot.daily.values import PastRound
from bot.kernel.store import RoundReads
from bot.kernel.values import LETTERS, ChannelRef, Question, Round
from bot.packs.catalog import PackCatalog

CHAT_DEFAULT, CHAT_MAX = 3, 5  # `/quiz past [N]`: five fit in one Discord message (2,000 characters)
PAGE_SIZE = 10  # the dashboard's page
PROMPT_CUT, CHOICE_CUT = 160, 80  # a chat line's share of a long prompt or choice


class PastStore(PastRounds, RoundReads, Protocol):
    """What past questions read."""


@dataclass(frozen=True)
class PastQuestion:
    """One revealed daily question as a member looks it up: the question, how its channel answered it and the
    member's own choice (None: they did not answer)."""

    round: Round
    question: Question
    chosen: dict[int, int]
    mine: int | None

    @property
    def answered(self) -> int:
        return sum(self.chosen.values())

    @property
    def right(self) -> int:
        return self.chosen.get(self.question.answer, 0)

    def summary(self) -> str:
        """'2 of 3 right (67%)', or 'Nobody answered'."""
        if not self.answered:
            return "Nobody answered"
        return f"{self.right} of {self.answered} right ({round(100 * self.right / self.answered)}%)"

    def yours(self) -> str:
        """'You: B, right', 'You: C, not right' or 'You did not answer'."""
        if self.mine is None:
            return "You did not answer"
        letter = LETTERS[self.mine] if 0 <= self.mine < len(LETTERS) else "?"
        return f"You: {letter}, right" if self.mine == self.question.answer else f"You: {letter}, not right"


@dataclass(frozen=True)
class PastPage:
    items: tuple[PastQuestion, ...]
    page: int
    more: bool  # a next page exists


def _cut(text: str, most: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= most else flat[: most - 1].rstrip() + "…"


class PastQuestions:
    """A space's revealed daily questions, newest first, with the asker's own answers."""

    def __init__(self, store: PastStore, catalog: PackCatalog) -> None:
        self.store = store
        self.catalog = catalog

    async def page(
        self, platform: str, space_id: str, user_id: str, page: int = 1, channel_id: str | None = None
    ) -> PastPage:
        """One page of PAGE_SIZE (pages count from 1), the space's or one channel's."""
        page = max(1, page)
        rounds = await self.store.past_daily_rounds(
            platform, space_id, user_id, limit=PAGE_SIZE + 1, offset=(page - 1) * PAGE_SIZE, channel_id=channel_id
        )
        items = await self._shown(platform, space_id, rounds[:PAGE_SIZE])
        return PastPage(tuple(items), page, len(rounds) > PAGE_SIZE)

    async def recent_text(self, ref: ChannelRef, user_id: str, count: int | None, dashboard: str) -> str:
        """`/quiz past [N]`: the channel's last N revealed questions (the space's, where the channel has none), each
        with its answer, how the channel did and the asker's own answer; `dashboard` names where the explanations
        are."""
        count = CHAT_DEFAULT if count is None else count
        where = "in this channel"
        items = await self._read(ref.platform, ref.space_id, user_id, count, 0, ref.channel_id)
        if not items:
            where = "here"
            items = await self._read(ref.platform, ref.space_id, user_id, count, 0, None)
        if not items:
            return "No daily question has been revealed here yet: a question's answer shows at its reveal."
        lines = [f"Past daily questions {where}, newest first:"]
        for item in items:
            q = item.question
            code = " (with code)" if q.code else ""
            day = f"{item.round.local_date:%a %d %b %Y}" if item.round.local_date else "Daily"
            lines.append(f"{day}: {_cut(q.prompt, PROMPT_CUT)}{code}")
            lines.append(f"  Answer: {q.answer_letter}. {_cut(q.choices[q.answer], CHOICE_CUT)}")
            lines.append(f"  {item.summary()}. {item.yours()}.")
        lines.append(f"The explanations, and older questions: Past questions on the dashboard ({dashboard}).")
        return "\n".join(lines)

    async def _read(
        self, platform: str, space_id: str, user_id: str, limit: int, offset: int, channel_id: str | None
    ) -> list[PastQuestion]:
        rounds = await self.store.past_daily_rounds(
            platform, space_id, user_id, limit=limit, offset=offset, channel_id=channel_id
        )
        return await self._shown(platform, space_id, rounds)

    async def _shown(self, platform: str, space_id: str, rounds: Sequence[PastRound]) -> list[PastQuestion]:
        """The rounds' questions, but for one open again in the space right now (its answer would give it away)."""
        open_now = await self.store.open_channel_question_ids(platform, space_id) if rounds else set()
        return [item for item in await self._questions(rounds) if item.question.id not in open_now]

    async def _questions(self, rounds: Sequence[PastRound]) -> list[PastQuestion]:
        out = []
        for past in rounds:
            question = await self.catalog.asked(past.round)
            if question is not None:  # else its pack was removed and its text not kept: nothing to show
                out.append(PastQuestion(past.round, question, past.chosen, past.mine))
        return out
