"""Question packs (issue 12): uploads checked all or nothing, round trips, channels drawing from packs,
rounds keeping the question they posted, admins only."""

from __future__ import annotations

import datetime as dt
import json
import random

import pytest

from bot.app.bootstrap import bootstrap
from bot.features import Features
from bot.kernel.errors import BadSetting, NotAllowed, PackError, PackExists
from bot.kernel.values import Actor, ChannelConfig, ChannelRef
from bot.packs.catalog import PackCatalog
from bot.packs.files import MAX_PACK_QUESTIONS, export_csv, export_yaml, parse_pack
from bot.settings import ConfigChange
from tests.support.fakes import FakePlatform, FixedClock, make_bank
from tests.support.memory_store import InMemoryStore
from tests.support.packs import pack_csv, pack_rows

T0 = dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.UTC)
ADMIN = Actor("admin", is_admin=True)
MEMBER = Actor("member")
REF = ChannelRef("fake", "space-1", "chan-1")


@pytest.fixture
async def store():
    s = InMemoryStore()
    await s.open()
    yield s
    await s.close()


def problems_of(data: bytes, fmt: str = "csv") -> list[str]:
    with pytest.raises(PackError) as info:
        parse_pack(data, fmt, "up.csv" if fmt == "csv" else "up.yaml")  # type: ignore[arg-type]
    return info.value.problems or [info.value.message]


# ---- bad files: a specific message each, nothing imported ------------------------------------------


def test_a_file_that_is_not_utf8_is_refused():
    data = pack_csv().replace(b"one 1", "uné 1".encode("latin-1"))
    [problem] = problems_of(data)
    assert "not valid UTF-8" in problem and "line 4" in problem  # row 2 has a two-line code cell


def test_a_utf16_file_is_refused():
    [problem] = problems_of(pack_csv().decode().encode("utf-16"))
    assert "UTF-16" in problem


def test_a_50_mib_file_is_refused_by_its_size():
    [problem] = problems_of(b"a" * (50 * 1024 * 1024))
    assert "file too large" in problem and "1 MiB" in problem


def test_a_yaml_bomb_is_refused():
    bomb = b'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: [*b,*b,*b,*b]\n'
    [problem] = problems_of(bomb, "yaml")
    assert "alias" in problem and "not allowed" in problem


def test_yaml_tags_and_duplicate_keys_are_refused():
    [tag] = problems_of(b"questions: !!python/object:os.system [ls]\n", "yaml")
    assert "tag" in tag
    [dup] = problems_of(b"questions: []\nquestions: []\n", "yaml")
    assert "duplicate key" in dup


def test_a_csv_with_a_missing_column_names_it():
    columns = tuple(c for c in pack_csv().decode().splitlines()[0].split(",") if c != "explanation")
    problems = problems_of(pack_csv(columns=columns))
    assert problems == ["up.csv: row 1: missing column(s) explanation"]


def test_every_bad_row_is_reported_at_once_by_row_and_field():
    rows = pack_rows(5)
    rows[1]["answer"] = "E"
    rows[3]["difficulty"] = "tricky"
    rows[4]["id"] = rows[0]["id"]
    problems = problems_of(pack_csv(rows))
    assert len(problems) == 3
    assert problems[0].startswith("up.csv: row 3 (question team-1): field answer:")
    assert problems[1].startswith("up.csv: row 5 (question team-3): field difficulty:")
    assert (
        problems[2]
        == "up.csv: row 6 (question team-0): field id: duplicate id 'team-0' (first at row 2 (question team-0))"
    )


def test_a_bad_free_text_topic_is_refused():
    rows = pack_rows(2)
    rows[0]["topic"] = "team lore!"
    [problem] = problems_of(pack_csv(rows))
    assert "row 2 (question team-0): field topic:" in problem


def test_a_card_that_would_not_fit_a_platform_limit_is_refused():
    rows = pack_rows(1)
    rows[0]["explanation"] = "snake_case_" * 80  # 880 characters, each underscore escaped on the cards
    [problem] = problems_of(pack_csv(rows))
    assert "field explanation" in problem and "1,024 a Discord field takes" in problem


def test_too_many_questions_for_one_pack():
    rows = pack_rows(1) * (MAX_PACK_QUESTIONS + 1)
    [problem] = problems_of(pack_csv(rows))
    assert f"at most {MAX_PACK_QUESTIONS:,} per pack" in problem


async def test_a_pack_name_with_a_slash_is_refused(store):
    catalog = PackCatalog(store, make_bank())
    with pytest.raises(PackError, match="not a pack name"):
        await catalog.import_pack(ADMIN, "fake", "space-1", "team/lore", pack_csv(), "csv", now=T0)
    with pytest.raises(PackError, match="shipped question bank"):
        await catalog.import_pack(ADMIN, "fake", "space-1", "pytorch", pack_csv(), "csv", now=T0)
    assert await store.list_packs("fake", "space-1") == []


async def test_a_bad_file_changes_nothing_in_an_existing_pack(store):
    catalog = PackCatalog(store, make_bank())
    await catalog.import_pack(ADMIN, "fake", "space-1", "team", pack_csv(), "csv", now=T0)
    before = await store.pack_questions("fake", "space-1", "team")
    rows = pack_rows(3)
    rows[2]["answer"] = "Z"
    with pytest.raises(PackError):
        await catalog.import_pack(ADMIN, "fake", "space-1", "team", pack_csv(rows), "csv", replace=True, now=T0)
    assert await store.pack_questions("fake", "space-1", "team") == before


# ---- permissions -------------------------------------------------------------------------------------


async def test_members_may_neither_import_nor_export(store):
    catalog = PackCatalog(store, make_bank())
    with pytest.raises(NotAllowed):
        await catalog.import_pack(MEMBER, "fake", "space-1", "team", pack_csv(), "csv", now=T0)
    await catalog.import_pack(ADMIN, "fake", "space-1", "team", pack_csv(), "csv", now=T0)
    with pytest.raises(NotAllowed):
        await catalog.export_pack(MEMBER, "fake", "space-1", "team", "csv")


# ---- round trips --------------------------------------------------------------------------------------


async def test_yaml_export_then_import_is_byte_identical(store):
    catalog = PackCatalog(store, make_bank())
    await catalog.import_pack(ADMIN, "fake", "space-1", "team", pack_csv(), "csv", now=T0)
    first = await catalog.export_pack(ADMIN, "fake", "space-1", "team", "yaml")
    await catalog.import_pack(ADMIN, "fake", "space-2", "copy", first, "yaml", now=T0)
    assert await catalog.export_pack(ADMIN, "fake", "space-2", "copy", "yaml") == first
    assert first.startswith(b"questions:\n- id: team-0\n")


async def test_csv_export_round_trips(store):
    catalog = PackCatalog(store, make_bank())
    upload = pack_csv()
    await catalog.import_pack(ADMIN, "fake", "space-1", "team", upload, "csv", now=T0)
    out = await catalog.export_pack(ADMIN, "fake", "space-1", "team", "csv")
    assert out == upload  # our own CSV is already in the exported form
    await catalog.import_pack(ADMIN, "fake", "space-1", "team", out, "csv", replace=True, now=T0)
    assert await catalog.export_pack(ADMIN, "fake", "space-1", "team", "csv") == out


def test_yaml_keeps_why_wrong_and_odd_text():
    text = (
        "questions:\n- id: odd-1\n  topic: lore\n  difficulty: hard\n  prompt: 'Quotes \" and : colons, # hash?'\n"
        "  code: |\n    for i in range(3):\n        print(i)\n  choices: ['yes: 1', 'no', '- dash', 'ünïcode']\n"
        "  answer: B\n  explanation: A long enough explanation for the rule.\n  reference: https://example.org/x\n"
        "  why_wrong:\n    A: It only looks right because of the colon.\n"
    )
    [spec] = parse_pack(text.encode(), "yaml")
    from bot.packs.files import canonical

    once = export_yaml([canonical(spec)])
    [again] = parse_pack(once, "yaml")
    assert export_yaml([canonical(again)]) == once
    assert again.why_wrong == {"A": "It only looks right because of the colon."}
    assert export_csv([canonical(again)]).count(b"\n") == 3  # header, then one row with a two-line code cell


async def test_an_existing_pack_is_not_replaced_without_asking(store):
    catalog = PackCatalog(store, make_bank())
    await catalog.import_pack(ADMIN, "fake", "space-1", "team", pack_csv(), "csv", now=T0)
    with pytest.raises(PackExists, match="--replace"):
        await catalog.import_pack(ADMIN, "fake", "space-1", "team", pack_csv(pack_rows(3)), "csv", now=T0)
    result = await catalog.import_pack(
        ADMIN, "fake", "space-1", "team", pack_csv(pack_rows(3)), "csv", replace=True, now=T0
    )
    assert (result.questions, result.version, result.replaced) == (3, 2, True)


# ---- channels drawing from packs ----------------------------------------------------------------------


def service_on(store) -> tuple[Features, FakePlatform, FixedClock]:
    platform = FakePlatform()
    clock = FixedClock(T0)
    service = bootstrap(store, make_bank(), clock, {"fake": platform}, rng=random.Random(3))
    return service, platform, clock


async def test_a_channel_switched_to_a_pack_posts_from_it_without_repeats(store):
    service, platform, clock = service_on(store)
    await service.catalog.import_pack(ADMIN, "fake", "space-1", "team", pack_csv(pack_rows(4)), "csv", now=T0)
    with pytest.raises(BadSetting, match="no pack nope"):
        await service.channels.configure(ADMIN, REF, ConfigChange.parse([("packs", "team,nope")]))
    await service.channels.configure(ADMIN, REF, ConfigChange.parse([("packs", "team")]))
    asked = []
    for day in range(8):
        clock.set(T0 + dt.timedelta(days=day))
        round_ = await service.posting.post_scheduled(REF)
        assert round_ is not None
        asked.append(round_.question_id)
    assert set(asked[:4]) == {f"team/team-{i}" for i in range(4)}  # every one once before any repeats
    assert set(asked[4:]) == set(asked[:4])
    assert platform.posted[0][1].prompt.startswith("Which number does the team call question")


async def test_packs_mix_with_the_bank_and_filters(store):
    service, platform, clock = service_on(store)
    await service.catalog.import_pack(ADMIN, "fake", "space-1", "team", pack_csv(pack_rows(6)), "csv", now=T0)
    await service.channels.configure(
        ADMIN, REF, ConfigChange.parse([("packs", "pytorch,team"), ("difficulty", "hard")])
    )
    cfg = await service.channels.channel_config(REF)
    found = await service.catalog.candidates(cfg)
    assert {q.id for q in found if "/" in q.id} == {"team/team-2", "team/team-5"}
    assert all(q.difficulty.value == "hard" for q in found) and any("/" not in q.id for q in found)


async def test_a_pack_edited_while_its_round_is_open_keeps_the_question_as_posted(store):
    service, platform, clock = service_on(store)
    await service.catalog.import_pack(ADMIN, "fake", "space-1", "team", pack_csv(pack_rows(1)), "csv", now=T0)
    await service.channels.configure(ADMIN, REF, ConfigChange.parse([("packs", "team")]))
    round_ = await service.posting.post_scheduled(REF)
    posted = platform.posted[-1][1]
    changed = pack_rows(1)
    changed[0] |= {"prompt": "An entirely different prompt now?", "answer": "D"}
    await service.catalog.import_pack(ADMIN, "fake", "space-1", "team", pack_csv(changed), "csv", replace=True, now=T0)
    # a fresh process (no cache) answers and reveals from what the round keeps
    other, _, _ = service_on(store)
    outcome = await other.answers.submit_answer(round_.id, "ada", 0)  # A was right when it was posted
    assert outcome.chosen_letter == "A"
    card = await other.reveals.reveal_round(round_.id)
    assert card is not None and card.prompt == posted.prompt and card.correct_letter == "A"
    assert card.correct_users == ("ada",)
    assert json.loads(await store.round_question(round_.id))["answer"] == "A"


async def test_pack_listing_has_question_counts(store):
    service, _, _ = service_on(store)
    await service.catalog.import_pack(ADMIN, "fake", "space-1", "team", pack_csv(pack_rows(30)), "csv", now=T0)
    listing = await service.catalog.list("fake", "space-1")
    assert [(p.name, p.questions, p.read_only) for p in listing] == [
        ("pytorch", len(service.context.bank), True),
        ("team", 30, False),
    ]
    assert [p.name for p in await service.catalog.list("fake", "space-2")] == ["pytorch"]


def test_the_packs_setting_parses_and_refuses():
    assert ConfigChange.parse([("packs", "pytorch, Team")]).get("packs") == frozenset({"pytorch", "team"})
    with pytest.raises(BadSetting, match="not a pack name"):
        ConfigChange.parse([("packs", "team/lore")])
    assert ChannelConfig(ref=REF).packs == frozenset({"pytorch"})


async def test_topics_of_own_packs_filter_and_unknown_ones_are_refused(store):
    service, platform, clock = service_on(store)
    await service.catalog.import_pack(ADMIN, "fake", "space-1", "team", pack_csv(pack_rows(6)), "csv", now=T0)
    with pytest.raises(BadSetting, match="'team-lore' is not a topic of this channel's packs"):
        await service.channels.configure(ADMIN, REF, ConfigChange.parse([("topics", "team-lore")]))  # pytorch only
    with pytest.raises(BadSetting, match="'cooking' is not a topic of this channel's packs"):
        await service.channels.configure(ADMIN, REF, ConfigChange.parse([("packs", "team"), ("topics", "cooking")]))
    with pytest.raises(
        BadSetting, match=r"'team-lre' is not a topic of this channel's packs \(did you mean team-lore\?\)"
    ):
        await service.channels.configure(ADMIN, REF, ConfigChange.parse([("packs", "team"), ("topics", "team-lre")]))
    await service.channels.configure(ADMIN, REF, ConfigChange.parse([("packs", "team"), ("topics", "Team-Lore")]))
    round_ = await service.posting.post_scheduled(REF)
    assert round_ is not None and round_.topic == "team-lore"


# ---- per-question statistics ---------------------------------------------------------------------------


async def test_question_stats_list_the_hardest_and_flag_questions_to_check(store):

    service, platform, clock = service_on(store)
    await service.catalog.import_pack(ADMIN, "fake", "space-1", "team", pack_csv(pack_rows(2)), "csv", now=T0)
    await service.channels.configure(ADMIN, REF, ConfigChange.parse([("packs", "team")]))
    rounds = []
    for day in range(2):
        clock.set(T0 + dt.timedelta(days=day))
        rounds.append(await service.posting.post_scheduled(REF))
    by_question = {r.question_id: r for r in rounds}
    hard = by_question["team/team-0"]  # answer A: most people choose C
    for i, choice in enumerate([0, 2, 2, 2, 1]):
        await service.answers.submit_answer(hard.id, f"u{i}", choice)
    easy = by_question["team/team-1"]  # answer B: everyone right
    for i in range(3):
        await service.answers.submit_answer(easy.id, f"u{i}", 1)
    for round_ in rounds:  # statistics count revealed rounds only
        assert await service.reveals.reveal_round(round_.id) is not None
    with pytest.raises(NotAllowed):
        await service.packs.question_stats(MEMBER, "fake", "space-1")
    card = await service.packs.question_stats(ADMIN, "fake", "space-1", "team")
    assert [s.question_id for s in card.hardest] == ["team/team-0", "team/team-1"]
    assert card.flagged == ()  # 5 answers: too few to flag (more than 30 are needed)
    assert (
        card.hardest[0].line() == "team/team-0: asked 1, 5 answers, 20% correct, most chosen wrong C (60%), 0 reports"
    )
    assert "team/team-1: asked 1, 3 answers, 100% correct, 0 reports" in card.text
    assert (await service.packs.question_stats(ADMIN, "fake", "space-1", "pytorch")).text.endswith("No answers yet.")


def test_problem_text_says_each_problem_once():
    from bot.packs.files import problem_text

    with pytest.raises(PackError) as caught:
        parse_pack(pack_csv().replace(b"answer", b"answr", 1), "csv", "bad.csv")
    assert problem_text(caught.value).splitlines() == [
        "bad.csv: row 1: missing column(s) answer",
        "bad.csv: row 1: unknown column(s) 'answr'; the columns are id, topic, difficulty, prompt, code, choice_a, "
        "choice_b, choice_c, choice_d, answer, explanation, reference",
    ]
