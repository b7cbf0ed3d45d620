"""Pieces of the dashboard on their own: one-time links and sign-in attempts (on the fake store, a fixed
clock), its settings, the upload problems laid out by question and field, and the colours' contrast."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from bot.access.service import token_hash
from bot.access.values import LinkGrant
from bot.app.bootstrap import bootstrap
from bot.app.config import Settings
from bot.kernel.errors import PackError, StartupError
from bot.packs.files import parse_pack
from bot.web.admin_pages import problem_rows
from tests.support.fakes import FixedClock, make_bank, store_of
from tests.support.memory_store import InMemoryStore

ROOT = Path(__file__).resolve().parents[2]
GRANT = LinkGrant("console", "local", "you", True)


@pytest.fixture
async def features():
    store = InMemoryStore()
    await store.open()
    service = bootstrap(store, make_bank(), FixedClock(dt.datetime(2026, 3, 29, 0, 55, tzinfo=dt.UTC)))
    yield service
    await service.close()
    await store.close()


async def test_a_link_is_kept_only_as_a_hash_and_works_once_within_10_minutes(features):
    token = await features.access.issue_link(GRANT)
    assert token not in str(store_of(features)._tables.login_links)  # type: ignore[attr-defined]
    assert token_hash(token) in store_of(features)._tables.login_links  # type: ignore[attr-defined]
    assert await features.access.redeem_link("not a token") is None
    assert await features.access.redeem_link(token + "x") is None
    features.context.clock.advance(minutes=9, seconds=59)  # across the DST change in Europe: UTC throughout
    assert await features.access.redeem_link(token) == GRANT
    assert await features.access.redeem_link(token) is None
    late = await features.access.issue_link(GRANT)
    features.context.clock.advance(minutes=10)
    assert await features.access.redeem_link(late) is None


async def test_sign_in_attempts_count_per_client_and_start_again_in_the_next_window(features):
    assert [await features.access.allow_attempt("10.0.0.1", limit=2) for _ in range(3)] == [True, True, False]
    assert await features.access.allow_attempt("10.0.0.2", limit=2)
    features.context.clock.advance(minutes=10)
    assert await features.access.allow_attempt("10.0.0.1", limit=2)
    kept = str(store_of(features)._tables.login_attempts)  # type: ignore[attr-defined]
    assert "10.0.0.1" not in kept  # addresses are kept as hashes


def test_the_web_settings_and_their_one_line_errors():
    default = Settings.from_env({})
    assert (default.web_host, default.dashboard_port, default.dashboard_url) == (
        "127.0.0.1",
        8080,
        "http://127.0.0.1:8080",
    )
    off = Settings.from_env({"STUDYBOT_WEB_PORT": "0"})
    assert off.dashboard_port == 0
    public = Settings.from_env({"STUDYBOT_PUBLIC_URL": "https://quiz.example.com/", "STUDYBOT_WEB_HOST": "0.0.0.0"})
    assert public.dashboard_url == "https://quiz.example.com"
    assert Settings.from_env({"STUDYBOT_WEB_HOST": "0.0.0.0", "STUDYBOT_WEB_PORT": "9000"}).dashboard_url == (
        "http://127.0.0.1:9000"
    )
    for env, start in [
        ({"STUDYBOT_WEB_PORT": "web"}, "STUDYBOT_WEB_PORT=web is not accepted: use a port number"),
        ({"STUDYBOT_WEB_PORT": "70000"}, "STUDYBOT_WEB_PORT=70000 is not accepted"),
        ({"STUDYBOT_PUBLIC_URL": "quiz.example.com"}, "STUDYBOT_PUBLIC_URL=quiz.example.com is not accepted"),
        ({"STUDYBOT_PUBLIC_URL": "https://a:b@q.example.com"}, "STUDYBOT_PUBLIC_URL=https://a:b@q.example.com"),
        ({"STUDYBOT_WEB_HOST": "bad host"}, "STUDYBOT_WEB_HOST=bad host is not accepted"),
        ({"DISCORD_CLIENT_SECRET": "   "}, None),
    ]:
        if start is None:
            assert Settings.from_env(env).discord_client_secret is None
            continue
        with pytest.raises(StartupError) as bad:
            Settings.from_env(env)
        assert str(bad.value).startswith(start), str(bad.value)


def test_upload_problems_are_laid_out_by_question_and_field():
    broken = (
        b"questions:\n  - id: q1\n    topic: lore\n    difficulty: easy\n    prompt: P?\n    choices: [a, b, c, d]\n"
    )
    with pytest.raises(PackError) as exc:
        parse_pack(broken, "yaml", "team.yaml")
    rows = problem_rows(exc.value)
    assert {"where": "question q1", "field": "answer", "text": "Field required"} in rows
    with pytest.raises(PackError) as csv_exc:
        parse_pack(b"id,topic\nq1,lore\n", "csv", "team.csv")
    first = problem_rows(csv_exc.value)[0]
    assert first["where"] == "row 1" and first["text"].startswith("missing column(s) difficulty")
    assert problem_rows(PackError("team.yaml: no questions in the file"))[0]["where"] == "the file"


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_every_text_colour_of_the_stylesheet_has_a_contrast_of_at_least_4_5():
    css = (ROOT / "bot" / "web" / "static" / "style.css").read_text()
    colours = dict(re.findall(r"--(\w+): (#[0-9a-f]{6})", css))
    pairs = [
        ("ink", "bg"),
        ("muted", "bg"),
        ("link", "bg"),
        ("bad", "bg"),
        ("good", "bg"),  # text on the page
        ("ink", "soft"),
        ("muted", "soft"),
        ("link", "soft"),  # the space's navigation
    ]
    for text, ground in pairs:
        assert contrast(colours[text], colours[ground]) >= 4.5, (text, ground)
    assert contrast("#ffffff", colours["link"]) >= 4.5 and contrast("#ffffff", colours["bad"]) >= 4.5  # buttons
    assert contrast(colours["ink"], "#fff6d6") >= 4.5  # your own row on a leaderboard
