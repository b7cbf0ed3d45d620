"""/dashboard on Discord, the real discord.py client against the fake: where the web dashboard is and how to sign
in with Discord, privately; that the bot has none, or that Discord sign-in is not set up, when so."""

from __future__ import annotations

from adapters.discord.app import StudyBotClient
from bot.access.values import DashboardLink
from tests.adapters.discord.conftest import Core
from tests.adapters.discord.fake_discord import FakeDiscord


async def test_dashboard_says_where_it_is_and_how_to_sign_in(
    bot: StudyBotClient, fake: FakeDiscord, core: Core
) -> None:
    none = await fake.reply(await fake.slash(fake.alice, "dashboard"))
    assert none.ephemeral and "This bot has no dashboard" in none.text
    core.service.access.dashboard = DashboardLink("https://quiz.example.com", frozenset({"console", "slack"}))
    unset = await fake.reply(await fake.slash(fake.alice, "dashboard"))
    assert "signing in with Discord is not set up on this bot yet" in unset.text
    core.service.access.dashboard = DashboardLink("https://quiz.example.com", frozenset({"console", "discord"}))
    told = await fake.reply(await fake.slash(fake.alice, "dashboard"))
    assert told.ephemeral and "https://quiz.example.com/login (sign in with Discord;" in told.text
