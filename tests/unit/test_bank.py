"""The question bank: the shipped files load cleanly and meet the bank's bar; broken files are named
precisely (file, question, field) and contribute nothing."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from bot.bank.load import DEFAULT_BANK_DIR, BankError, load_bank, normalise, validate
from bot.kernel.topics import TOPICS
from bot.kernel.values import Difficulty

SEEDS = ("000_74048b5e9c043bf3.txt", "001_6f928e2f9ae03d51.txt")

GOOD = """\
  - id: {qid}
    topic: tensors
    difficulty: easy
    prompt: {prompt}
    choices: [one, two, three, four]
    answer: B
    explanation: Two is right because the docs say so; one is the usual slip.
    reference: https://docs.pytorch.org/docs/stable/tensors.html
    source: original
    why_wrong:
      A: One is what you get when you count from zero, which is not the rule.
      C: Three is one too many; the docs count two here and nothing more.
      D: Four doubles the right number, as if each item were counted twice.
    checked_by: https://docs.pytorch.org/docs/stable/tensors.html
"""


def write(folder: Path, name: str, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(body)
    return path


def good_file(folder: Path, name: str = "tensors.yaml", ids: tuple[str, ...] = ("t-one", "t-two")) -> Path:
    body = "topic: tensors\nquestions:\n" + "".join(
        GOOD.format(qid=qid, prompt=f"Which of these is the {qid} answer?") for qid in ids
    )
    return write(folder, name, body)


# ---- the shipped bank ---------------------------------------------------------------------------


def test_the_shipped_bank_loads_without_problems():
    entries, problems = validate(DEFAULT_BANK_DIR)
    assert problems == []
    assert len(load_bank()) == len(entries)


def test_the_shipped_bank_meets_the_bar():
    bank = load_bank()
    assert len(bank) >= 150
    per_topic = Counter(q.topic for q in bank.questions)
    assert len(per_topic) >= 12 and set(per_topic) <= set(TOPICS)
    assert min(per_topic.values()) >= 8, per_topic
    per_level = Counter(q.difficulty for q in bank.questions)
    assert all(per_level[d] >= len(bank) // 6 for d in Difficulty), per_level
    verified = [e for e in bank.entries if e.verify is not None]
    assert len(verified) >= 40
    shown_code = [e for e in bank.entries if e.question.code]
    assert len(shown_code) >= 40
    assert all(e.verify is not None for e in shown_code), [e.question.id for e in shown_code if e.verify is None]


def test_every_file_holds_one_topic_named_after_it():
    for path in sorted(DEFAULT_BANK_DIR.glob("*.yaml")):
        topics = {e.question.topic for e in load_bank(path).entries}
        assert topics == {path.stem}, path


def test_answers_are_spread_over_the_letters():
    letters = Counter(q.answer_letter for q in load_bank().questions)
    assert min(letters.values()) >= len(load_bank()) // 8, letters


def test_both_seeds_are_drawn_from_and_every_source_is_known():
    sources = Counter(q.source for q in load_bank().questions)
    assert set(sources) <= {"original", *SEEDS}
    assert all(sources[s] >= 10 for s in SEEDS), sources


def test_no_near_duplicate_prompts_or_choices_in_the_shipped_bank():
    bank = load_bank()
    keys = Counter(normalise(q.prompt + " " + (q.code or "")) for q in bank.questions)
    assert [k for k, n in keys.items() if n > 1] == []
    for q in bank.questions:
        assert len({c.strip() for c in q.choices}) == 4, q.id
        assert q.explanation.strip() and q.reference.startswith("https://"), q.id


# ---- broken files -------------------------------------------------------------------------------


def problems_for(tmp_path: Path, body: str) -> list[str]:
    path = write(tmp_path, "tensors.yaml", textwrap.dedent(body))
    entries, problems = validate(path)
    assert entries == [], "a broken file must contribute nothing"
    return problems


def test_a_yaml_error_names_the_file_and_line(tmp_path):
    problems = problems_for(tmp_path, "topic: tensors\nquestions:\n  - id: x\n    prompt: [unclosed\n")
    assert len(problems) == 1 and "tensors.yaml: YAML error at line" in problems[0]


@pytest.mark.parametrize(
    ("replace", "expected"),
    [
        (("    reference: https://docs.pytorch.org/docs/stable/tensors.html\n", ""), "field reference: Field required"),
        (("answer: B", "answer: E"), "field answer: Input should be 'A', 'B', 'C' or 'D'"),
        (("[one, two, three, four]", "[one, two, two, four]"), "field choices: Value error, two choices are the same"),
        (("[one, two, three, four]", "[one, two, three]"), "field choices: Value error, must have exactly 4 choices"),
        (
            ("topic: tensors\n    difficulty", "topic: astrology\n    difficulty"),
            "field topic: Value error, unknown topic",
        ),
        (("difficulty: easy", "difficulty: trivial"), "field difficulty"),
        (
            ("explanation: Two is right because the docs say so; one is the usual slip.", "explanation: ''"),
            "field explanation",
        ),
        (("source: original", "source: a-blog-post"), "field source"),
        (("    source: original\n", "    source: original\n    colour: blue\n"), "field colour: Extra inputs"),
    ],
)
def test_a_bad_question_names_file_question_and_field(tmp_path, replace, expected):
    body = "topic: tensors\nquestions:\n" + GOOD.format(qid="t-bad", prompt="Which of these is right here?")
    assert replace[0] in body
    problems = problems_for(tmp_path, body.replace(*replace, 1))
    where = f"{tmp_path / 'tensors.yaml'}: question t-bad: "
    assert any(p.startswith(where) and expected in p for p in problems), problems


def test_a_question_without_an_id_is_named_by_position(tmp_path):
    body = "topic: tensors\nquestions:\n" + GOOD.format(qid="t-a", prompt="Which one is right?").replace(
        "  - id: t-a\n    topic", "  - topic"
    )
    problems = problems_for(tmp_path, body)
    assert any("question #1 (no id): field id: Field required" in p for p in problems), problems


def test_duplicate_ids_and_near_duplicate_prompts_across_files(tmp_path):
    good_file(tmp_path, "tensors.yaml", ("t-one", "t-two"))
    dup = GOOD.format(qid="t-one", prompt="WHICH of these is the t-two answer")
    body = "topic: autograd\nquestions:\n" + dup.replace("topic: tensors", "topic: autograd")
    write(tmp_path, "autograd.yaml", body)
    _, problems = validate(tmp_path)
    assert any(
        "tensors.yaml: question t-one: field id: duplicate of the id in" in p and "autograd.yaml" in p for p in problems
    ), problems
    assert any("question t-two: field prompt: near-duplicate of question t-one" in p for p in problems), problems


def test_a_broken_file_loads_nothing_while_good_files_still_load(tmp_path):
    good_file(tmp_path, "tensors.yaml")
    write(
        tmp_path,
        "autograd.yaml",
        "topic: autograd\nquestions:\n"
        + GOOD.format(qid="a-good", prompt="A fine question here?").replace("topic: tensors", "topic: autograd")
        + GOOD.format(qid="a-bad", prompt="A broken question here?")
        .replace("topic: tensors", "topic: autograd")
        .replace("answer: B", "answer: Z"),
    )
    with pytest.raises(BankError) as err:
        load_bank(tmp_path)
    assert any("question a-bad: field answer" in p for p in err.value.problems)
    lenient = load_bank(tmp_path, strict=False)
    assert sorted(q.id for q in lenient.questions) == ["t-one", "t-two"]


def test_a_topic_mismatch_with_the_file_is_reported(tmp_path):
    body = "topic: autograd\nquestions:\n" + GOOD.format(qid="t-x", prompt="Which of these is right?")
    problems = problems_for(tmp_path, body)
    assert any("question t-x: field topic: 'tensors' in a file for topic 'autograd'" in p for p in problems)


def test_a_file_that_is_not_a_question_list(tmp_path):
    assert "field questions" in problems_for(tmp_path, "- just\n- a list\n")[0]


# ---- the command line ---------------------------------------------------------------------------


def studybot(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot", *args], capture_output=True, text=True, timeout=60)


def test_bank_validate_exits_1_naming_every_problem(tmp_path):
    good_file(tmp_path)
    write(tmp_path, "autograd.yaml", "topic: autograd\nquestions:\n  - id: broken-one\n    topic: autograd\n")
    result = studybot("bank", "validate", str(tmp_path))
    assert result.returncode == 1
    assert "autograd.yaml: question broken-one: field difficulty: Field required" in result.stderr
    assert "autograd.yaml: question broken-one: field choices: Field required" in result.stderr
    assert "nothing was loaded from the files named above" in result.stderr


def test_bank_validate_and_stats_on_good_files(tmp_path):
    good_file(tmp_path)
    ok = studybot("bank", "validate", str(tmp_path))
    assert ok.returncode == 0 and ok.stdout.startswith("OK: 2 questions in 1 file(s)")
    stats = studybot("bank", "stats", str(tmp_path))
    assert stats.returncode == 0
    lines = stats.stdout.splitlines()
    assert lines[0].split() == ["topic", "easy", "medium", "hard", "total", "verified", "checked_by", "why_wrong"]
    assert lines[2].split() == ["tensors", "2", "0", "0", "2", "0", "2", "2"]
    assert lines[4].split() == ["all", "2", "0", "0", "2", "0", "2", "2"]


def test_bank_stats_of_the_shipped_bank():
    result = studybot("bank", "stats")
    assert result.returncode == 0
    rows = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines()[2:] if line[:1].isalpha()}
    bank = load_bank()
    assert int(rows["all"][3]) == len(bank)
    assert int(rows["all"][4]) == sum(1 for e in bank.entries if e.verify is not None)
    assert int(rows["all"][5]) == sum(1 for e in bank.entries if e.checked_by is not None)
    assert int(rows["all"][6]) == sum(1 for q in bank.questions if any(q.why_wrong))
    for topic, cells in rows.items():
        if topic != "all":
            assert int(cells[3]) == sum(map(int, cells[:3])) == sum(q.topic == topic for q in bank.questions)
