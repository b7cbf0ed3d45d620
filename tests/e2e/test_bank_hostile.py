"""Hostile question files (issue 16): each gives one named, one-line problem, never a traceback, and the bot
starts without the broken file and says so."""

from __future__ import annotations

import codecs
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

import bot.bank.load as bank
from bot.bank.load import load_bank, validate

GOOD = """\
  - id: {qid}
    topic: tensors
    difficulty: easy
    prompt: Which of these is the {qid} answer?
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


def good_body(*ids: str) -> str:
    return "topic: tensors\nquestions:\n" + "".join(GOOD.format(qid=q) for q in ids)


def problems_of(tmp_path: Path, content: str | bytes, name: str = "tensors.yaml") -> list[str]:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    entries, problems = validate(path)
    assert entries == [] and problems, "a hostile file contributes nothing and is named"
    assert all(p.startswith(f"{path}: ") and "\n" not in p and len(p) < 400 for p in problems), problems
    return problems


def test_the_good_body_is_good(tmp_path):
    path = tmp_path / "tensors.yaml"
    path.write_text(good_body("t-one", "t-two"))
    entries, problems = validate(path)
    assert problems == [] and len(entries) == 2


# ---- size, count and encoding -------------------------------------------------------------------


def test_a_file_over_1_mib_is_refused_before_parsing(tmp_path):
    body = good_body("t-one") + "# " + "x" * (1024 * 1024) + "\n"
    [problem] = problems_of(tmp_path, body)
    assert "file too large" in problem and "at most 1 MiB" in problem and "split it" in problem


def test_more_than_2000_questions_in_a_file_is_refused(tmp_path):
    body = "topic: tensors\nquestions:\n" + "  - {}\n" * 2001
    [problem] = problems_of(tmp_path, body)
    assert problem.endswith("field questions: 2,001 questions, at most 2,000 per file; split it into several files")


def test_a_latin1_file_is_named(tmp_path):
    body = good_body("t-one").replace("the docs say so", "the docs say so, café").encode("latin-1")
    [problem] = problems_of(tmp_path, body)
    assert "encoding: not valid UTF-8 (byte 0xe9 at line 9)" in problem and "latin-1" in problem


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_utf16_file_is_named(tmp_path, codec):
    [problem] = problems_of(tmp_path, good_body("t-one").encode(codec))
    assert "encoding: the file looks like UTF-16" in problem and "save it as UTF-8" in problem


def test_invalid_utf8_bytes_are_named(tmp_path):
    [problem] = problems_of(tmp_path, good_body("t-one").encode() + b"\xff\xfe\xfa broken\n")
    assert "encoding: not valid UTF-8 (byte 0xff at line 17)" in problem


def test_a_utf8_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "tensors.yaml"
    path.write_bytes(codecs.BOM_UTF8 + good_body("t-one").encode())
    entries, problems = validate(path)
    assert problems == [] and [e.question.id for e in entries] == ["t-one"]


def test_a_directory_named_like_a_question_file_is_named(tmp_path):
    (tmp_path / "tensors.yaml").mkdir()
    entries, problems = validate(tmp_path)
    assert entries == [] and problems == [f"{tmp_path / 'tensors.yaml'}: cannot read: not a regular file"]


# ---- wrong shapes -------------------------------------------------------------------------------


@pytest.mark.parametrize("topic", ["[tensors]", "{a: b}", "3"])
def test_a_file_topic_that_is_not_a_name(tmp_path, topic):
    body = good_body("t-one").replace("topic: tensors\nquestions", f"topic: {topic}\nquestions")
    problems = problems_of(tmp_path, body)
    assert any(p.startswith(f"{tmp_path / 'tensors.yaml'}: field topic: unknown topic") for p in problems), problems


def test_a_null_file_topic_means_no_file_topic(tmp_path):
    path = tmp_path / "tensors.yaml"
    path.write_text(good_body("t-one").replace("topic: tensors\nquestions", "topic: null\nquestions"))
    entries, problems = validate(path)
    assert problems == [] and len(entries) == 1


@pytest.mark.parametrize("topic", ["[tensors]", "{a: b}", "7"])
def test_a_question_topic_that_is_not_a_name(tmp_path, topic):
    body = good_body("t-one").replace("    topic: tensors", f"    topic: {topic}")
    problems = problems_of(tmp_path, body)
    assert any(": question t-one: field topic: " in p for p in problems), problems


def test_mixed_type_keys_at_the_top_level(tmp_path):
    problems = problems_of(tmp_path, "1: one\n" + good_body("t-one") + "true: yes\n")
    assert any("field 1: unknown top-level field" in p for p in problems), problems


def test_mixed_type_keys_in_a_question(tmp_path):
    body = good_body("t-one").replace("    source: original\n", "    source: original\n    3: three\n    null: x\n")
    problems = problems_of(tmp_path, body)
    assert problems == [f"{tmp_path / 'tensors.yaml'}: question t-one: field 3: a field name must be text"]


def test_a_list_as_a_mapping_key(tmp_path):
    [problem] = problems_of(tmp_path, "? [a, b]\n: c\n" + good_body("t-one"))
    assert "YAML error at line 1" in problem and "plain value" in problem


def test_questions_that_are_not_mappings_and_ids_that_are_not_ids(tmp_path):
    body = "topic: tensors\nquestions:\n  - just text\n  - [a, list]\n  - {id: [x], topic: tensors}\n"
    body += '  - {id: "bad\\nid with a newline"}\n'
    problems = problems_of(tmp_path, body)
    assert any("question #1 (no id): field (question): must be a mapping" in p for p in problems)
    assert any("question #3 (bad id): field id" in p for p in problems)
    assert any("question #4 (bad id): field id" in p for p in problems)


@pytest.mark.parametrize("depth", [100_000, 5_000, 500, 40])
def test_deep_nesting_is_named_without_recursion_error(tmp_path, depth):
    body = good_body("t-one") + "extra: " + "[" * depth + "]" * depth + "\n"
    [problem] = problems_of(tmp_path, body)
    assert "YAML error" in problem and ("nested deeper than 32 levels" in problem or "nesting depth" in problem)


def test_deep_nesting_unclosed(tmp_path):
    [problem] = problems_of(tmp_path, "questions: " + "[" * 100_000)
    assert "YAML error" in problem


def test_deep_nesting_with_the_pure_python_parser(tmp_path, monkeypatch):
    monkeypatch.setattr(bank, "_SafeBase", yaml.SafeLoader)  # as without libyaml
    [problem] = problems_of(tmp_path, good_body("t-one") + "extra: " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert "nested deeper than 32 levels" in problem


# ---- tags, aliases, duplicate keys --------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "!!python/object/apply:os.system ['echo owned']",
        "!!python/name:os.system",
        "!!binary aGVsbG8=",
        "!custom thing",
        "!!str tagged",
    ],
)
def test_yaml_tags_are_refused(tmp_path, value):
    body = good_body("t-one").replace("    source: original", f"    source: {value}")
    [problem] = problems_of(tmp_path, body)
    assert "YAML error at line 11, column 13" in problem and "tag" in problem and "is not allowed" in problem


def test_billion_laughs_is_refused_at_once(tmp_path):
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    started = time.monotonic()
    [problem] = problems_of(tmp_path, "\n".join(lines) + "\n" + good_body("t-one"))
    assert time.monotonic() - started < 2
    assert "alias *a0 is not allowed" in problem


def test_an_alias_inside_a_question_is_refused(tmp_path):
    body = good_body("t-one", "t-two").replace("explanation: Two", "explanation: &why Two", 1)
    body = body.replace(
        "    explanation: Two is right because the docs say so; one is the usual slip.\n    reference",
        "    explanation: *why\n    reference",
    )
    [problem] = problems_of(tmp_path, body)
    assert "alias *why is not allowed" in problem


@pytest.mark.parametrize(
    ("old", "new", "key"),
    [
        ("    answer: B\n", "    answer: B\n    answer: C\n", "'answer'"),
        ("topic: tensors\nquestions:", "topic: tensors\ntopic: autograd\nquestions:", "'topic'"),
    ],
)
def test_duplicate_keys_are_refused(tmp_path, old, new, key):
    [problem] = problems_of(tmp_path, good_body("t-one").replace(old, new, 1))
    assert f"duplicate key {key}" in problem and "YAML error at line" in problem


def test_several_documents_in_one_file(tmp_path):
    [problem] = problems_of(tmp_path, good_body("t-one") + "---\n" + good_body("t-two"))
    assert "YAML error" in problem


# ---- the bot starts without the broken file and says so -----------------------------------------


def hostile_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "bank"
    folder.mkdir()
    (folder / "tensors.yaml").write_text(good_body("t-one", "t-two"))
    (folder / "autograd.yaml").write_bytes("topic: autograd\nquestions: [café]\n".encode("latin-1"))
    (folder / "modules.yaml").write_text("topic: [modules]\nquestions:\n  - id: m-one\n    topic: {a: b}\n")
    return folder


def test_lenient_load_skips_broken_files_with_one_line_each(tmp_path, caplog):
    folder = hostile_folder(tmp_path)
    with caplog.at_level(logging.ERROR, logger="bot.bank.load"):
        loaded = load_bank(folder, strict=False)
    assert sorted(q.id for q in loaded.questions) == ["t-one", "t-two"]
    lines = [r.getMessage() for r in caplog.records]
    assert all("\n" not in line for line in lines), lines
    assert any("autograd.yaml: encoding: not valid UTF-8" in line for line in lines)
    assert any("modules.yaml: field topic: unknown topic ['modules']" in line for line in lines)
    assert any("modules.yaml: question m-one: field topic" in line for line in lines)
    assert lines[-1] == (
        f"question bank: {len(lines) - 1} problem(s); skipped 2 file(s) (autograd.yaml, modules.yaml); "
        "loaded 2 question(s) from 1 file(s)"
    ), lines


def test_bank_validate_names_each_hostile_file_without_a_traceback(tmp_path):
    folder = hostile_folder(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "bot", "bank", "validate", str(folder)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "autograd.yaml: encoding: not valid UTF-8" in result.stderr


def test_the_bot_starts_without_the_broken_files_and_says_so(tmp_path):
    folder = hostile_folder(tmp_path)
    env = dict(
        os.environ,
        STUDYBOT_BANK_DIR=str(folder),
        STUDYBOT_DATABASE_URL=f"sqlite:///{tmp_path / 'bot.db'}",
        DISCORD_TOKEN="",
        SLACK_BOT_TOKEN="",
    )
    result = subprocess.run(
        [sys.executable, "-m", "bot"], input="/quiz\n/quit\n", capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "skipped 2 file(s) (autograd.yaml, modules.yaml); loaded 2 question(s) from 1 file(s)" in result.stderr
    assert "Which of these is the t-" in result.stdout


def test_a_file_full_of_bad_questions_lists_50_problems_and_counts_the_rest(tmp_path):
    body = "topic: tensors\nquestions:\n" + "".join(f"  - {{id: q-{i}, colour: blue}}\n" for i in range(300))
    problems = problems_of(tmp_path, body)
    assert len(problems) == 51
    assert problems[-1].endswith(": and 2,650 more problem(s) in this file"), problems[-1]


def test_a_huge_unknown_field_name_is_cut_short(tmp_path):
    body = good_body("t-one").replace("    source: original\n", "    source: original\n    " + "k" * 1000 + ": 1\n")
    [problem] = problems_of(tmp_path, body)
    assert "Extra inputs are not permitted" in problem and "kkk..." in problem
