"""`/quiz export` and `/quiz forget-me` through the service and the text runner, on the in-memory store: the
files parse back (csv module; Anki's two tab-separated fields per line), only the asker's own misses, nothing to
export without misses, forget-me changes nothing until confirmed and then takes the learner off the boards."""

from __future__ import annotations

import csv
import datetime as dt
import html
import io
import random
from dataclasses import replace

import pytest

from bot.app.bootstrap import bootstrap
from bot.bank.load import Bank
from bot.features import Features
from bot.kernel.errors import BadSetting, NothingToExport
from bot.kernel.values import Actor, Period
from bot.mydata.export import CSV_COLUMNS, MissesExport, anki_field
from bot.mydata.forget import FORGET_WHAT, ForgetDone, ForgetPrompt, Forgotten, forgotten_text
from bot.settings import ConfigChange
from bot.text.command_values import Export, ForgetMe, ShowHelp
from bot.text.commands import parse_quiz
from bot.text.runner import run_command
from tests.support.fakes import REF, FakePlatform, FixedClock, make_question
from tests.support.memory_store import InMemoryStore

T0 = dt.datetime(2026, 12, 7, 9, 0, tzinfo=dt.UTC)
NASTY = replace(
    make_question("tensors-nasty", answer=2),
    prompt='What does <b>this</b> print?\tIt has a "tab",\nand a newline & more',
    code="x = torch.ones(2)\n\tif x.sum() > 1:\n    print('<ok>')",
    choices=("tensor([1., 1.])", "a, b, c", "2.0 <- the sum", 'x "quoted"'),
    explanation="The sum is 2.\nSo: 2.0",
)
BANK = Bank((NASTY, make_question("tensors-1", answer=1), make_question("autograd-1", "autograd", answer=0)))
OTHER_SPACE = replace(REF, space_id="space-2")


class Source:
    def __init__(self, user_id: str, ref=REF) -> None:
        self.user_id, self.ref = user_id, ref

    def person(self, raw: str | None) -> str:
        return raw or self.user_id

    def channel(self, raw: str):
        return self.ref

    async def actor(self, target):
        return Actor(self.user_id, False)


@pytest.fixture
async def env():
    store = InMemoryStore()
    await store.open()
    clock = FixedClock(T0)
    service = bootstrap(store, BANK, clock, {"fake": FakePlatform()}, rng=random.Random(1))
    yield service, store, clock
    await service.close()
    await store.close()


async def practise(service: Features, user: str, question_id: str, choice: int, ref=REF) -> None:
    question = service.context.bank.get(question_id)
    assert question is not None
    card = await service.practice.practice_round(ref, user, question)
    await service.answers.submit_answer(card.round_id, user, choice)


async def daily(service: Features, clock: FixedClock, answers: dict[str, int]) -> str:
    await service.channels.configure(
        Actor("admin", True), REF, ConfigChange.of(post_time=dt.time(9, 0), timezone="UTC")
    )
    round_ = await service.posting.post_scheduled(REF)
    assert round_ is not None
    for user, choice in answers.items():
        await service.answers.submit_answer(round_.id, user, choice)
    clock.advance(hours=9)
    assert await service.reveals.reveal_round(round_.id) is not None
    return round_.question_id


def parse_csv(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"), newline="")))


def anki_lines(data: bytes) -> list[list[str]]:
    text = data.decode()
    assert text.startswith("#separator:tab\n#html:true\n")
    return [line.split("\t") for line in text.splitlines() if not line.startswith("#")]


async def test_the_export_parses_back_as_csv_and_as_two_field_anki_lines(env):
    service, _store, clock = env
    await practise(service, "ada", "tensors-nasty", 0)  # wrong
    clock.advance(minutes=5)
    await practise(service, "ada", "tensors-1", 1)  # right: not a miss
    clock.advance(minutes=5)
    await practise(service, "ada", "autograd-1", 3)  # wrong
    clock.advance(minutes=5)
    await practise(service, "ada", "autograd-1", 0)  # then right: still a miss, latest attempt right

    export = await run_command(service, Source("ada"), parse_quiz("/quiz export"))
    assert isinstance(export, MissesExport) and export.count == 2
    csv_file, anki_file = export.files
    assert csv_file.name == "studybot-misses-2026-12-07.csv" and anki_file.name.endswith("-anki.tsv")

    rows = parse_csv(csv_file.data)
    assert list(rows[0]) == list(CSV_COLUMNS)
    assert [r["question_id"] for r in rows] == ["autograd-1", "tensors-nasty"]  # latest attempt first
    assert (rows[0]["last_result"], rows[0]["misses"], rows[0]["attempts"], rows[0]["last_answer"]) == (
        "right",
        "1",
        "2",
        "A",
    )
    nasty = rows[1]
    assert nasty["prompt"] == NASTY.prompt and nasty["code"] == NASTY.code  # tabs, newlines, quotes survive
    assert [nasty[f"choice_{x}"] for x in "abcd"] == list(NASTY.choices)
    assert (nasty["correct_answer"], nasty["last_answer"], nasty["last_result"]) == ("C", "A", "wrong")
    assert (nasty["last_kind"], nasty["last_answered_at"]) == ("practice", "2026-12-07T09:00:00+00:00")
    assert nasty["explanation"] == NASTY.explanation and nasty["reference"] == NASTY.reference

    lines = anki_lines(anki_file.data)
    assert len(lines) == 2 and all(len(fields) == 2 for fields in lines)
    front, back = lines[1]
    assert "<b>this</b>" not in front and "&lt;b&gt;this&lt;/b&gt;" in front and "&quot;tab&quot;" in front
    assert "<pre><code>x = torch.ones(2)<br>" in front and "print(&#x27;&lt;ok&gt;&#x27;)" in front
    assert "C) 2.0 &lt;- the sum" in front and "D) x &quot;quoted&quot;" in front
    assert back.startswith("<b>C) 2.0 &lt;- the sum</b>") and "The sum is 2.<br>So: 2.0" in back
    assert NASTY.reference in back
    assert html.unescape(anki_field(NASTY.explanation).replace("<br>", "\n")) == NASTY.explanation


async def test_daily_misses_count_only_after_the_reveal_and_only_the_askers(env):
    service, _store, clock = env
    question_id = await daily(service, clock, {"ada": 3, "bob": 3})  # both wrong (no answer is D)
    await practise(service, "bob", "tensors-1", 0)  # bob's own miss
    await practise(service, "ada", "tensors-1", 0, ref=OTHER_SPACE)  # ada's miss in another space
    ada = await service.mydata.export_misses(REF.platform, REF.space_id, "ada")
    assert [r["question_id"] for r in parse_csv(ada.files[0].data)] == [question_id]
    assert parse_csv(ada.files[0].data)[0]["last_kind"] == "daily"
    bob = await service.mydata.export_misses(REF.platform, REF.space_id, "bob")
    assert sorted(r["question_id"] for r in parse_csv(bob.files[0].data)) == sorted([question_id, "tensors-1"])


async def test_an_open_daily_miss_is_not_exported_before_its_reveal(env):
    service, _store, _clock = env
    await service.channels.configure(
        Actor("admin", True), REF, ConfigChange.of(post_time=dt.time(9, 0), timezone="UTC")
    )
    round_ = await service.posting.post_scheduled(REF)
    assert round_ is not None
    await service.answers.submit_answer(round_.id, "ada", 3)
    with pytest.raises(NothingToExport) as caught:
        await run_command(service, Source("ada"), Export())
    assert "Nothing to export yet" in caught.value.message


async def test_export_takes_no_arguments(env):
    with pytest.raises(BadSetting):
        parse_quiz("/quiz export bob")


async def test_forget_me_without_confirm_explains_and_changes_nothing(env):
    service, store, clock = env
    await daily(service, clock, {"ada": 2, "bob": 0})
    before = await store.leaderboard(REF.platform, REF.space_id, Period.ALL, "all", 10)
    prompt = await run_command(service, Source("ada"), parse_quiz("/quiz forget-me"))
    assert isinstance(prompt, ForgetPrompt) and prompt.text == FORGET_WHAT
    assert "nothing has been deleted yet" in prompt.text
    assert await store.leaderboard(REF.platform, REF.space_id, Period.ALL, "all", 10) == before
    assert len(await store.learner_cards(REF.platform, REF.space_id, "ada")) == 1
    with pytest.raises(BadSetting, match="Nothing was deleted"):
        parse_quiz("/quiz forget-me please")
    assert parse_quiz("/quiz forget-me CONFIRM") == ForgetMe(confirm=True)
    assert isinstance(parse_quiz("/quiz forget"), ShowHelp) and parse_quiz("/quiz forget").suggestion == (
        "/quiz forget-me"
    )


async def test_forget_me_confirmed_takes_the_learner_off_the_boards_in_that_space_only(env):
    service, store, clock = env
    await daily(service, clock, {"ada": 2, "bob": 0})
    await practise(service, "ada", "tensors-1", 0)
    await practise(service, "ada", "tensors-1", 0, ref=OTHER_SPACE)
    done = await run_command(service, Source("ada"), parse_quiz("/quiz forget-me confirm"))
    assert isinstance(done, ForgetDone)
    assert (done.forgotten.answers, done.forgotten.cards, done.forgotten.scores) == (2, 2, 3)
    assert done.text.startswith("Done: deleted 2 answers, 2 memory cards")
    board = await service.boards.leaderboard(REF.platform, REF.space_id, Period.ALL, "ada")
    assert [row.user_id for row in board.rows] == ["bob"] and board.me is None
    stats = await service.boards.stats(REF.platform, REF.space_id, "ada")
    assert stats.answered == 0 and stats.points == 0 and stats.learning and stats.learning.due_now == 0
    with pytest.raises(NothingToExport):
        await service.mydata.export_misses(REF.platform, REF.space_id, "ada")
    assert len(await store.learner_cards(OTHER_SPACE.platform, OTHER_SPACE.space_id, "ada")) == 1
    again = await service.mydata.forget_me(REF.platform, REF.space_id, "ada")
    assert "nothing of yours to delete" in again.text


def test_what_forget_me_deleted_is_said_even_when_it_was_only_a_team_or_a_setting():
    assert "nothing of yours" in forgotten_text(Forgotten())
    for only, named in (
        (Forgotten(teams=1), "your team membership"),
        (Forgotten(review_settings=2), "your review settings and plan"),
        (Forgotten(live=1), "your live-game points"),
        (Forgotten(reminders=1), "your reminders"),
        (Forgotten(suggestions=2), "2 suggested questions"),
        (Forgotten(seasons=1), "Done: deleted 0 answers"),
    ):
        text = forgotten_text(only)
        assert text.startswith("Done: deleted") and named in text, (only, text)
