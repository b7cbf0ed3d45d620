"""Members suggest questions; admins approve them into the space's pack `suggestions` or reject them.

A suggestion is checked with the rules of a pack import (bot.packs: the bank's schema with a space's free
topics, card lengths that fit both platforms); the first broken rule is named by its form field and nothing
is stored. The store keeps it (pending, approved or rejected) and decides the daily limit. The author is
told privately of the decision (a DM where the platform has one).
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from bot.kernel.context import Context
from bot.kernel.echo import echo, one_line
from bot.kernel.errors import BadSuggestion, NotAllowed, QuizError
from bot.kernel.parsing import parse_number
from bot.kernel.platform import DirectPlatform
from bot.kernel.values import LETTERS, Actor, ChannelRef, Difficulty
from bot.packs.catalog import MAX_PACKS
from bot.packs.files import MAX_PACK_QUESTIONS, MAX_REFERENCE, PackQuestionSpec, canonical, card_problems
from bot.suggestions.store import SuggestionStore
from bot.suggestions.values import Suggestion, SuggestionStatus

log = logging.getLogger(__name__)


PACK = "suggestions"  # where approved suggestions go (created on the first approval)


DAILY_LIMIT = 3  # suggestions per member per space per (the space's local) day


MAX_REASON = 500


LISTED = 25  # pending suggestions listed at once


DEFAULT_DIFFICULTY = Difficulty.MEDIUM


DEFAULT_REFERENCE = "https://docs.pytorch.org/docs/stable/index.html"  # when the member gives no link


PLACEHOLDER_ID = "suggestion"  # the stored body's id until approval gives it one unique in the pack


LINE_FORM = "/quiz suggest topic | difficulty | prompt | A | B | C | D | answer | explanation [| reference]"


LINE_EXAMPLE = (
    "/quiz suggest autograd | easy | What does x.grad hold after y.backward()? | dy/dx | x itself | "
    "None | zeros | A | backward() accumulates the gradient of y with respect to x in x.grad."
)


HOW_TO = (
    "Suggest a question in one line (an admin reviews it; difficulty may be left empty for medium):\n"
    f"{LINE_FORM}\n"
    f"for example: {LINE_EXAMPLE}\n"
    f"At most {DAILY_LIMIT} suggestions a day."
)


_TOPIC = re.compile(r"^[A-Za-z0-9-]{1,40}$")


_REFERENCE = re.compile(r"^https://[^\s<>|`\"'\\]+$")  # nothing a renderer could read as markup


_CHOICE_LINE = re.compile(r"^\s*([A-Da-d])\s*[).:\-]\s*(.*)$")


_FENCE = re.compile(r"```[A-Za-z0-9_+-]*\n?(.*?)```", re.S)


_FIELDS = {"topic", "difficulty", "prompt", "code", "choices", "answer", "explanation", "reference"}


@dataclass(frozen=True)
class SuggestionForm:
    """What a member typed, field by field (the platforms' forms and the one-line text form)."""

    topic: str
    prompt: str
    choices: tuple[str, ...]
    answer: str
    explanation: str
    difficulty: str = ""  # empty: medium
    code: str | None = None
    reference: str | None = None  # empty: the PyTorch docs index


def bad(field: str, problem: str) -> BadSuggestion:
    return BadSuggestion(f"Your suggestion was not saved. {field}: {problem}", field)


def split_topic(text: str) -> tuple[str, str]:
    """The Discord form's first field: `topic` or `topic / difficulty`."""
    topic, _, level = text.partition("/")
    return topic.strip(), level.strip()


def parse_choices(text: str) -> tuple[str, ...]:
    """Four lines `A) ...` to `D) ...` (A. / A: / A - also do; unlabelled lines are taken in order)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) != 4:
        raise bad("choices", f"write exactly four lines, A) to D), one choice each (found {len(lines)})")
    out = []
    for expected, line in zip(LETTERS, lines, strict=True):
        m = _CHOICE_LINE.match(line)
        if m is None:
            out.append(line.strip())
            continue
        if m.group(1).upper() != expected:
            raise bad("choices", f"line {LETTERS.index(expected) + 1} should start with {expected})")
        out.append(m.group(2).strip())
    return tuple(out)


def split_code(prompt: str) -> tuple[str, str | None]:
    """A prompt with a ``` fenced block: the text around it, and the block as the question's code."""
    m = _FENCE.search(prompt)
    if m is None:
        return prompt.strip(), None
    return (prompt[: m.start()] + prompt[m.end() :]).strip(), m.group(1).strip("\n") or None


def split_reference(explanation: str) -> tuple[str, str | None]:
    """An explanation whose last line is a lone https:// link: the text, and the link as the reference."""
    lines = explanation.rstrip().splitlines()
    if lines and lines[-1].strip().startswith("https://") and len(lines[-1].split()) == 1:
        return "\n".join(lines[:-1]).strip(), lines[-1].strip()
    return explanation.strip(), None


def parse_line(text: str) -> SuggestionForm:
    """The one-line text form: topic | difficulty | prompt | A | B | C | D | answer | explanation [| reference]."""
    parts = [p.strip() for p in text.split("|")]
    if len(parts) not in (9, 10):
        raise bad("form", f"give 9 or 10 parts separated by |, found {len(parts)}: {LINE_FORM}")
    topic, level, prompt, a, b, c, d, answer, explanation, *ref = parts
    prompt, code = split_code(prompt)
    return SuggestionForm(topic, prompt, (a, b, c, d), answer, explanation, level, code, ref[0] if ref else None)


def _message(err: Any) -> str:
    msg = " ".join(str(err["msg"]).split()).removeprefix("Value error, ")
    return msg[0].lower() + msg[1:] if msg else "not accepted"


_CONTROL_IN_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")  # nor can a pack file


def validate(form: SuggestionForm) -> PackQuestionSpec:
    """The question as a pack would hold it, or BadSuggestion naming the first form field that breaks a rule."""
    topic = form.topic.strip()
    if not _TOPIC.fullmatch(topic):
        raise bad("topic", f"'{echo(topic, 40)}' is not a topic: use 1-40 letters, digits and - (e.g. autograd)")
    level = form.difficulty.strip().lower() or DEFAULT_DIFFICULTY.value
    if level not in {d.value for d in Difficulty}:
        raise bad("difficulty", f"'{echo(level, 20)}' is not a difficulty: use easy, medium or hard")
    answer = form.answer.strip().upper().rstrip(")")
    if not answer:
        raise bad("answer", "give the letter of the right choice: A, B, C or D")
    if answer not in LETTERS:
        raise bad("answer", f"'{echo(form.answer.strip(), 10)}' is not a choice: give the letter A, B, C or D")
    reference = (form.reference or "").strip() or DEFAULT_REFERENCE
    if len(reference) > MAX_REFERENCE or not _REFERENCE.fullmatch(reference):
        raise bad("reference", f"give one https:// link of at most {MAX_REFERENCE} characters (or leave it empty)")
    texts = [("prompt", form.prompt), ("choices", *form.choices), ("explanation", form.explanation)]
    for name, *values in [*texts, ("code", form.code or "")]:
        if any(_CONTROL_IN_TEXT.search(v) for v in values):
            raise bad(name, "remove the control characters from it (line breaks and tabs are fine)")
    raw: dict[str, Any] = {
        "id": PLACEHOLDER_ID,
        "topic": topic,
        "difficulty": level,
        "prompt": form.prompt,
        "choices": list(form.choices),
        "answer": answer,
        "explanation": form.explanation,
        "reference": reference,
    }
    if form.code and form.code.strip():
        raw["code"] = form.code.rstrip()
    try:
        spec = PackQuestionSpec.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0]) if err["loc"] else "form"
        raise bad(field if field in _FIELDS else "form", _message(err)) from None
    problems = card_problems(spec)
    if problems:
        raise bad(*problems[0])
    return spec


def body_of(spec: PackQuestionSpec) -> str:
    return json.dumps(canonical(spec), ensure_ascii=False, separators=(",", ":"))


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def summary(s: Suggestion, width: int = 300) -> str:
    """One suggestion for the review list: its number, topic, level, prompt, choices and answer."""
    q = json.loads(s.body)
    choices = "  ".join(f"{letter}) {_clip(c, 80)}" for letter, c in zip(LETTERS, q["choices"], strict=True))
    code = " [with code]" if q.get("code") else ""
    return (
        f"#{s.id} [{q['topic']}, {q['difficulty']}] {_clip(q['prompt'], width)}{code}\n"
        f"{choices}  (answer {q['answer']})\n"
        f"Why: {_clip(q['explanation'], 200)}"
    )


def prompt_head(s: Suggestion, n: int = 80) -> str:
    return _clip(json.loads(s.body)["prompt"], n)


@dataclass(frozen=True)
class SuggestionsCard:
    """The pending suggestions of a space, oldest first (at most LISTED; `more`: others wait behind)."""

    items: tuple[Suggestion, ...]
    more: bool = False

    @property
    def text(self) -> str:
        if not self.items:
            return "No suggestions are waiting for review."
        head = f"Suggestions waiting for review ({len(self.items)}{'+' if self.more else ''}):"
        body = [f"{summary(s)}\n(by {s.author_id})" for s in self.items]
        return "\n\n".join([head, *body])


def require_reviewer(actor: Actor) -> None:
    if not actor.is_admin:
        raise NotAllowed("Only members who can manage this server or workspace can approve or reject suggestions.")


def parse_suggestion_id(raw: str) -> int:
    number = parse_number(raw, 12)
    if number is None:
        raise QuizError(f"'{echo(raw, 20)}' is not a suggestion number: use the number the list shows, e.g. 12.")
    return number


class Suggestions:
    """Suggest, list, approve and reject; what the store decides (the daily limit, one decision) it decides."""

    def __init__(self, ctx: Context, store: SuggestionStore) -> None:
        self.ctx = ctx
        self.store = store

    async def suggest(self, ref: ChannelRef, author_id: str, form: SuggestionForm) -> Suggestion:
        """Check the form (BadSuggestion names the field) and store it pending, within the daily limit."""
        body = body_of(validate(form))
        day, _ = await self.ctx.space_today(ref.platform, ref.space_id)
        saved = await self.store.add_suggestion(ref, author_id, body, self.ctx.clock.now(), day, DAILY_LIMIT)
        if saved is None:
            raise NotAllowed(
                f"You have made {DAILY_LIMIT} suggestions today, the most a day; nothing was saved. Try again tomorrow."
            )
        return saved

    async def pending(self, actor: Actor, platform: str, space_id: str) -> SuggestionsCard:
        """Admins only: the suggestions waiting for review."""
        require_reviewer(actor)
        found = await self.store.list_suggestions(platform, space_id, SuggestionStatus.PENDING.value, LISTED + 1)
        return SuggestionsCard(tuple(found[:LISTED]), more=len(found) > LISTED)

    async def find(self, actor: Actor, platform: str, space_id: str, suggestion_id: int) -> Suggestion | None:
        """Admins only: the space's suggestion with this number (None: no such suggestion in this space)."""
        require_reviewer(actor)
        if not 0 < suggestion_id < 2**63:
            return None
        return await self.store.get_suggestion(platform, space_id, suggestion_id)

    async def _why_not(self, platform: str, space_id: str, suggestion_id: int) -> QuizError:
        found = await self.store.get_suggestion(platform, space_id, suggestion_id)
        if found is None:
            return QuizError(f"There is no suggestion #{suggestion_id} here.")
        return QuizError(f"Suggestion #{suggestion_id} was already {found.status.value}; nothing changed.")

    async def approve(self, actor: Actor, platform: str, space_id: str, suggestion_id: int) -> Suggestion:
        """Admins only: the question joins the pack `suggestions`; the author is told privately."""
        require_reviewer(actor)
        done = await self.store.approve_suggestion(
            platform,
            space_id,
            suggestion_id,
            PACK,
            actor.user_id,
            self.ctx.clock.now(),
            max_packs=MAX_PACKS,
            max_questions=MAX_PACK_QUESTIONS,
        )
        if done is None:
            raise await self._why_not(platform, space_id, suggestion_id)
        await self._tell(
            done,
            f'Your suggested question #{done.id} ("{prompt_head(done)}") was approved: it is now in the '
            f"question pack {PACK} here. Thank you!",
        )
        return done

    async def reject(self, actor: Actor, platform: str, space_id: str, suggestion_id: int, reason: str) -> Suggestion:
        """Admins only, with a reason (1-500 characters); the author is told privately."""
        require_reviewer(actor)
        reason = one_line(reason)
        if not reason:
            raise BadSuggestion("Give a reason for the rejection; its author is told.", "reason")
        if len(reason) > MAX_REASON:
            raise BadSuggestion(f"The reason is {len(reason)} characters, at most {MAX_REASON}.", "reason")
        done = await self.store.reject_suggestion(
            platform, space_id, suggestion_id, reason, actor.user_id, self.ctx.clock.now()
        )
        if done is None:
            raise await self._why_not(platform, space_id, suggestion_id)
        await self._tell(
            done, f'Your suggested question #{done.id} ("{prompt_head(done)}") was not accepted. Reason: {reason}'
        )
        return done

    async def _tell(self, s: Suggestion, text: str) -> None:
        """The author, privately: a DM where the platform has one, else a note only they see in the channel."""
        platform = self.ctx.platforms.get(s.ref.platform)
        if platform is None:
            return
        direct = platform.send_direct if isinstance(platform, DirectPlatform) else None
        try:
            if direct is not None:
                await direct(s.ref, s.author_id, text)
            else:
                await platform.send_private(s.ref, s.author_id, text)
        except Exception as exc:  # the decision stands; the note is best effort
            log.warning("could not tell %s about suggestion %d: %r", s.author_id, s.id, exc)


def suggested_text(s: Suggestion) -> str:
    return (
        f"Thanks! Your question is suggestion #{s.id}; an admin will review it and you will be told privately "
        f"(at most {DAILY_LIMIT} suggestions a day)."
    )


def decided_text(s: Suggestion) -> str:
    if s.status is SuggestionStatus.APPROVED:
        return f"Approved suggestion #{s.id}: it is question {s.question_id} of the pack {PACK}. Its author was told."
    return f"Rejected suggestion #{s.id}. Its author was told the reason."
