"""`/quiz dashboard`: the grammar, what the process tells (bot.app.web_cli.dashboard_link) and, in the console, a
new one-time sign-in link that signs its admin in once."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.access.service import CONSOLE_GRANT
from bot.access.values import DashboardLink
from bot.app.config import Settings
from bot.app.web_cli import dashboard_link
from bot.kernel.errors import BadSetting
from bot.text.command_values import ShowDashboard
from bot.text.commands import parse_quiz
from tests.unit.test_console_daily import console_at

START = dt.datetime(2026, 12, 8, 6, 0, tzinfo=dt.UTC)


def test_the_grammar() -> None:
    assert parse_quiz("/quiz dashboard") == ShowDashboard()
    assert parse_quiz("/quiz web") == ShowDashboard()
    with pytest.raises(BadSetting, match="takes nothing more"):
        parse_quiz("/quiz dashboard now")


def test_the_link_names_the_platforms_whose_sign_in_is_set_up() -> None:
    plain = Settings.from_env({})
    assert dashboard_link(plain, listening=False) is None  # no dashboard here, and no STUDYBOT_PUBLIC_URL
    assert dashboard_link(plain, listening=True) == DashboardLink("http://127.0.0.1:8080", frozenset({"console"}))
    env = {
        "STUDYBOT_PUBLIC_URL": "https://quiz.example.com",
        "DISCORD_CLIENT_ID": "123",
        "DISCORD_CLIENT_SECRET": "s",
    }
    elsewhere = dashboard_link(Settings.from_env(env), listening=False)  # another process serves it
    assert elsewhere == DashboardLink("https://quiz.example.com", frozenset({"console", "discord"}))


async def test_the_console_gets_a_one_time_link_for_its_admin() -> None:
    console, service, out = await console_at(START)
    await console.handle("/quiz dashboard")
    assert "This bot has no dashboard" in out.getvalue()
    service.access.dashboard = DashboardLink("http://127.0.0.1:8080", frozenset({"console"}))
    await console.handle("/quiz dashboard")
    line = next(x for x in out.getvalue().splitlines() if "/login/link/" in x)
    token = line.split("/login/link/")[1].split()[0]
    assert await service.access.redeem_link(token) == CONSOLE_GRANT
    assert await service.access.redeem_link(token) is None  # once
    await service.close()
