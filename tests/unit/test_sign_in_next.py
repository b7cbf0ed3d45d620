"""The page a dashboard sign-in returns to: only a space's page of this site, never another host."""

from __future__ import annotations

import pytest

from bot.web.sessions import Membership
from bot.web.signin import NEXT_MAX, _landing, next_page


@pytest.mark.parametrize(
    "asked",
    ["/s/discord/111", "/s/discord/111/past", "/s/slack/T0TEAM/past?page=2&channel=C0DAILY", "/s/console/local/review"],
)
def test_a_space_page_is_kept(asked: str) -> None:
    assert next_page(asked) == asked


@pytest.mark.parametrize(
    "asked",
    [
        None,
        "",
        "/",
        "/login",
        "https://evil.example/s/a/b",
        "//evil.example/s/a/b",
        "/s/discord/111//evil.example",
        "/s/discord/111\\\\evil.example",
        "/s/a/b/../../login",
        "/s/discord/111/past#x",
        "/s/discord/111/" + "a" * NEXT_MAX,
        "/s/discord/111/past?next=<script>",
    ],
)
def test_anything_else_is_dropped(asked: str | None) -> None:
    assert next_page(asked) == ""


def test_the_sign_in_ends_on_the_page_asked_for_only_in_the_members_spaces() -> None:
    mine = [Membership("discord", "111", "Torch Club", False), Membership("discord", "222", "Readers", True)]
    assert _landing(mine, "/s/discord/222/past?page=3") == "/s/discord/222/past?page=3"
    assert _landing(mine, "/s/discord/333/past") == "/"  # not theirs: their home (several spaces: the list)
    assert _landing(mine[:1], "/s/discord/333/past") == "/s/discord/111"
    assert _landing([], "/s/discord/111/past") == "/"
