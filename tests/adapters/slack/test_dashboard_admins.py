"""The dashboard asks the Slack platform who is a quiz admin (kernel AdminPlatform): the rule `/quiz config`
uses, through the real slack-sdk client against the Web API stub (users.info), and STUDYBOT_SLACK_ADMINS."""

from __future__ import annotations

from bot.kernel.platform import AdminPlatform
from tests.adapters.slack.harness import ADMIN, ANN, BOB, OWNER
from tests.adapters.slack.stub import TEAM_ID


async def test_admins_and_owners_are_dashboard_admins_as_in_chat(slack_factory):
    slack = await slack_factory(admins=frozenset({BOB}))
    platform = slack.service.context.platforms.get("slack")
    assert isinstance(platform, AdminPlatform)
    assert await platform.is_space_admin(TEAM_ID, ADMIN)
    assert await platform.is_space_admin(TEAM_ID, OWNER)
    assert not await platform.is_space_admin(TEAM_ID, ANN)
    asked = len(slack.stub.calls_to("users.info"))
    assert await platform.is_space_admin(TEAM_ID, BOB)  # STUDYBOT_SLACK_ADMINS: no users.info needed
    assert len(slack.stub.calls_to("users.info")) == asked
    assert {c.args.get("user") for c in slack.stub.calls_to("users.info")} == {ADMIN, OWNER, ANN}
