"""Members' suggested questions (issue 12): the pack rules by form field, the daily limit, admins' review,
the author told privately, the approved question served from the pack `suggestions`."""

from __future__ import annotations

import datetime as dt
import json
import random

import pytest

from bot.app.bootstrap import bootstrap
from bot.kernel.errors import BadSuggestion, NotAllowed, QuizError
from bot.kernel.values import Actor, ChannelRef
from bot.settings import ConfigChange
from bot.suggestions.service import (
    DEFAULT_REFERENCE,
    SuggestionForm,
    parse_choices,
    parse_line,
    split_code,
    split_reference,
    split_topic,
    validate,
)
from bot.suggestions.values import SuggestionStatus
from bot.text.command_values import DecideSuggestion, ShowSuggestions, Suggest
from bot.text.commands import parse_quiz
from tests.support.fakes import FakePlatform, FixedClock, make_bank
from tests.support.memory_store import InMemoryStore

T0 = dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.UTC)
ADMIN = Actor("admin", is_admin=True)
REF = ChannelRef("fake", "space-1", "chan-1")


def form(**changes: object) -> SuggestionForm:
    base: dict[str, object] = {
        "topic": "team-lore",
        "prompt": "Which year was the team's first release?",
        "choices": ("2019", "2020", "2021", "2022"),
        "answer": "B",
        "explanation": "The changelog's first entry is dated 2020, the year of 0.1.",
    }
    return SuggestionForm(**(base | changes))  # type: ignore[arg-type]


def field_of(f: SuggestionForm) -> tuple[str, str]:
    with pytest.raises(BadSuggestion) as info:
        validate(f)
    assert info.value.message.startswith("Your suggestion was not saved.")
    return info.value.field, info.value.message


# ---- the rules of a pack import, named by field -------------------------------------------------------


def test_a_valid_form_becomes_a_pack_question_with_defaults():
    spec = validate(form())
    assert (spec.topic, spec.difficulty.value, spec.answer, spec.reference) == (
        "team-lore",
        "medium",
        "B",
        DEFAULT_REFERENCE,
    )
    hard = validate(form(difficulty="Hard", answer="c)", code="x = 1\n", reference="https://example.org/a_b"))
    assert (hard.difficulty.value, hard.answer, hard.code, hard.reference) == (
        "hard",
        "C",
        "x = 1",
        "https://example.org/a_b",
    )


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"topic": "team lore"}, "topic", "1-40 letters, digits and -"),
        ({"topic": "x" * 41}, "topic", "not a topic"),
        ({"difficulty": "brutal"}, "difficulty", "easy, medium or hard"),
        ({"answer": "E"}, "answer", "A, B, C or D"),
        ({"answer": ""}, "answer", "A, B, C or D"),
        ({"prompt": "Why?"}, "prompt", "at least 10 characters"),
        ({"prompt": "x" * 601}, "prompt", "at most 600 characters"),
        ({"explanation": "Because."}, "explanation", "at least 20 characters"),
        ({"choices": ("a", "a", "b", "c")}, "choices", "two choices are the same"),
        ({"choices": ("a", "", "b", "c")}, "choices", "a choice is empty"),
        ({"choices": ("a" * 201, "b", "c", "d")}, "choices", "longer than 200"),
        ({"reference": "http://example.org"}, "reference", "https://"),
        ({"reference": "https://x.org/<!channel>"}, "reference", "https://"),
        ({"code": "\n".join(["x = 1"] * 31)}, "code", "at most 30"),
    ],
)
def test_each_broken_rule_names_its_field(changes, field, words):
    got, message = field_of(form(**changes))
    assert got == field and words in message, message


def test_a_card_too_long_for_slack_is_refused_on_the_prompt():
    got, message = field_of(form(prompt="*" * 600, code="c" * 1200, choices=tuple(f"{x}" * 200 for x in "abcd")))
    assert got == "prompt" and "3,000" in message


def test_the_discord_fields_are_read():
    assert split_topic("autograd / hard") == ("autograd", "hard")
    assert split_topic("autograd") == ("autograd", "")
    assert parse_choices("A) one\nB. two\n\nC: three\nD - four") == ("one", "two", "three", "four")
    assert parse_choices("one\ntwo\nthree\nfour") == ("one", "two", "three", "four")
    with pytest.raises(BadSuggestion, match="exactly four lines") as info:
        parse_choices("A) one\nB) two")
    assert info.value.field == "choices"
    with pytest.raises(BadSuggestion, match="line 2 should start with B"):
        parse_choices("A) one\nC) two\nB) three\nD) four")
    assert split_code("What prints?\n```python\nprint(1)\n```") == ("What prints?", "print(1)")
    assert split_code("No code here.") == ("No code here.", None)
    assert split_reference("Because so.\nhttps://example.org/x") == ("Because so.", "https://example.org/x")
    assert split_reference("See https://example.org/x for more.") == ("See https://example.org/x for more.", None)


def test_the_one_line_form():
    f = parse_line("lore | easy | What is it called? | a | b | c | d | A | It is called a, as the docs say.")
    assert (f.topic, f.difficulty, f.choices, f.answer, f.reference) == (
        "lore",
        "easy",
        ("a", "b", "c", "d"),
        "A",
        None,
    )
    with_ref = parse_line("lore || What is it called? | a | b | c | d | A | It is a, as the docs say. | https://x.org")
    assert with_ref.difficulty == "" and with_ref.reference == "https://x.org"
    with pytest.raises(BadSuggestion, match="9 or 10 parts"):
        parse_line("lore | easy | too few")


def test_the_text_grammar():
    assert parse_quiz("/quiz suggest") == Suggest(None)
    line = parse_quiz("/quiz suggest lore | easy | What is it  called? | a | b | c | d | A | Because the docs say so.")
    assert isinstance(line, Suggest) and line.form is not None and line.form.prompt == "What is it  called?"
    assert parse_quiz("/quiz admin suggestions") == ShowSuggestions()
    assert parse_quiz("/quiz admin approve #12") == DecideSuggestion(12, approve=True)
    assert parse_quiz("/quiz admin reject 12 Two choices are right") == DecideSuggestion(
        12, approve=False, reason="Two choices are right"
    )
    with pytest.raises(QuizError, match="not a suggestion number"):
        parse_quiz("/quiz admin approve twelve")
    with pytest.raises(QuizError, match="/quiz admin suggestions"):
        parse_quiz("/quiz admin approve")


# ---- the service: limit, review, the author told --------------------------------------------------------


@pytest.fixture
async def world():
    store = InMemoryStore()
    await store.open()
    clock = FixedClock(T0)
    platform = FakePlatform()
    service = bootstrap(store, make_bank(), clock, {"fake": platform}, rng=random.Random(3))
    yield service, store, clock, platform
    await service.close()
    await store.close()


async def test_bad_input_stores_nothing(world):
    service, store, _, _ = world
    with pytest.raises(BadSuggestion):
        await service.suggestions.suggest(REF, "ann", form(answer="Z"))
    assert await store.list_suggestions("fake", "space-1", "pending", 10) == []


async def test_three_suggestions_a_day_then_a_refusal_until_tomorrow(world):
    service, store, clock, _ = world
    for _ in range(3):
        await service.suggestions.suggest(REF, "ann", form())
    with pytest.raises(NotAllowed, match="3 suggestions today"):
        await service.suggestions.suggest(REF, "ann", form())
    assert len(await store.list_suggestions("fake", "space-1", "pending", 10)) == 3
    await service.suggestions.suggest(REF, "bob", form())  # someone else may
    clock.advance(days=1)
    await service.suggestions.suggest(REF, "ann", form())  # a new day


async def test_the_day_is_the_space_s_local_day(world):
    service, _, clock, _ = world
    await service.channels.configure(ADMIN, REF, ConfigChange.of(timezone="America/New_York"))
    clock.current = dt.datetime(2026, 12, 1, 23, 0, tzinfo=dt.UTC)  # 18:00 in New York
    for _ in range(3):
        await service.suggestions.suggest(REF, "ann", form())
    clock.current = dt.datetime(2026, 12, 2, 4, 0, tzinfo=dt.UTC)  # still Dec 1 in New York
    with pytest.raises(NotAllowed):
        await service.suggestions.suggest(REF, "ann", form())
    clock.current = dt.datetime(2026, 12, 2, 5, 30, tzinfo=dt.UTC)  # Dec 2 there
    await service.suggestions.suggest(REF, "ann", form())


async def test_only_admins_review(world):
    service, store, _, platform = world
    s = await service.suggestions.suggest(REF, "ann", form())
    member = Actor("bob")
    with pytest.raises(NotAllowed, match="Only members who can manage"):
        await service.suggestions.pending(member, "fake", "space-1")
    with pytest.raises(NotAllowed, match="approve or reject"):
        await service.suggestions.approve(member, "fake", "space-1", s.id)
    with pytest.raises(NotAllowed):
        await service.suggestions.reject(member, "fake", "space-1", s.id, "no")
    assert (await store.get_suggestion("fake", "space-1", s.id)).status is SuggestionStatus.PENDING
    assert platform.private == [] and await store.list_packs("fake", "space-1") == []


async def test_an_approved_suggestion_joins_the_pack_and_its_author_is_told(world):
    service, store, _, platform = world
    s = await service.suggestions.suggest(REF, "ann", form(prompt="Which year was the *first* <@here> release?"))
    card = await service.suggestions.pending(ADMIN, "fake", "space-1")
    assert [i.id for i in card.items] == [s.id] and f"#{s.id} [team-lore, medium]" in card.text
    done = await service.suggestions.approve(ADMIN, "fake", "space-1", s.id)
    assert done.question_id == f"suggestion-{s.id}"
    assert await store.list_packs("fake", "space-1") == [("suggestions", 1, 1)]
    [(qid, body)] = await store.pack_questions("fake", "space-1", "suggestions")
    assert qid == done.question_id and json.loads(body)["prompt"] == "Which year was the *first* <@here> release?"
    [(ref, user, text)] = platform.private
    assert (ref, user) == (REF, "ann") and "was approved" in text and "pack suggestions" in text
    with pytest.raises(QuizError, match="already approved"):
        await service.suggestions.approve(ADMIN, "fake", "space-1", s.id)
    with pytest.raises(QuizError, match="no suggestion #99"):
        await service.suggestions.approve(ADMIN, "fake", "space-1", 99)
    # a channel switched to the pack posts the suggested question
    await service.channels.configure(ADMIN, REF, ConfigChange.parse([("packs", "suggestions")]))
    round_ = await service.posting.post_scheduled(REF)
    assert round_ is not None and round_.question_id == f"suggestions/{done.question_id}"
    assert (await service.suggestions.pending(ADMIN, "fake", "space-1")).items == ()


async def test_a_rejection_needs_a_reason_and_tells_the_author(world):
    service, store, _, platform = world
    s = await service.suggestions.suggest(REF, "ann", form())
    with pytest.raises(BadSuggestion, match="Give a reason"):
        await service.suggestions.reject(ADMIN, "fake", "space-1", s.id, "   ")
    with pytest.raises(BadSuggestion, match="at most 500"):
        await service.suggestions.reject(ADMIN, "fake", "space-1", s.id, "x" * 501)
    assert platform.private == []
    done = await service.suggestions.reject(ADMIN, "fake", "space-1", s.id, "Two  choices are right.")
    assert done.status is SuggestionStatus.REJECTED and done.reason == "Two choices are right."
    [(_, user, text)] = platform.private
    assert user == "ann" and "not accepted" in text and "Two choices are right." in text
    assert await store.list_packs("fake", "space-1") == []
    with pytest.raises(QuizError, match="already rejected"):
        await service.suggestions.approve(ADMIN, "fake", "space-1", s.id)


async def test_a_platform_with_direct_messages_gets_one(world):
    service, _, _, platform = world
    direct: list[tuple[str, str]] = []

    async def send_direct(ref: ChannelRef, user_id: str, text: str) -> None:
        direct.append((user_id, text))

    platform.send_direct = send_direct  # type: ignore[attr-defined]
    s = await service.suggestions.suggest(REF, "ann", form())
    await service.suggestions.approve(ADMIN, "fake", "space-1", s.id)
    assert [u for u, _ in direct] == ["ann"] and platform.private == []
