"""The invite URL and `studybot discord invite-url` (no network)."""

from __future__ import annotations

import argparse
import base64
import io
import sys
from urllib.parse import parse_qs, urlparse

import discord
import pytest

from adapters.discord.invite import (
    PERMISSION_BITS,
    add_discord_cli,
    client_id_from_token,
    invite_url,
    user_install_url,
)
from bot.app.config import Settings


def test_the_invite_asks_for_both_scopes_and_exactly_the_permissions_the_bot_uses() -> None:
    url = urlparse(invite_url("1234567890"))
    query = parse_qs(url.query)
    assert (url.scheme, url.netloc, url.path) == ("https", "discord.com", "/oauth2/authorize")
    assert query["client_id"] == ["1234567890"]
    assert query["scope"] == ["bot applications.commands"]
    wanted = discord.Permissions(
        view_channel=True,
        send_messages=True,
        embed_links=True,
        add_reactions=True,
        read_message_history=True,
        manage_messages=True,
        attach_files=True,
        create_public_threads=True,
    )
    assert int(query["permissions"][0]) == PERMISSION_BITS == wanted.value
    assert not discord.Permissions(PERMISSION_BITS).administrator
    assert not discord.Permissions(PERMISSION_BITS).manage_roles  # only when a setting asks for it


def test_the_champion_role_invite_adds_manage_roles_and_nothing_else() -> None:
    query = parse_qs(urlparse(invite_url("1234567890", champion_role=True)).query)
    asked = discord.Permissions(int(query["permissions"][0]))
    assert asked.manage_roles and asked.value == PERMISSION_BITS | discord.Permissions(manage_roles=True).value
    out = io.StringIO()
    args = parse(["discord", "invite-url", "--client-id", "42", "--champion-role"])
    assert args.discord_handler(args, Settings(), out=out) == 0
    assert "Manage Roles" in out.getvalue()
    assert discord.Permissions(
        int(parse_qs(urlparse(out.getvalue().splitlines()[0]).query)["permissions"][0])
    ).manage_roles


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="studybot")
    add_discord_cli(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def test_the_cli_prints_the_url_from_an_explicit_id_or_from_the_token() -> None:
    out = io.StringIO()
    args = parse(["discord", "invite-url", "--client-id", "42", "--guild-id", "7"])
    assert args.discord_handler(args, Settings(), out=out) == 0
    first = out.getvalue().splitlines()[0]
    assert parse_qs(urlparse(first).query)["guild_id"] == ["7"]

    token = base64.b64encode(b"987654321").decode().rstrip("=") + ".abc.def"
    assert client_id_from_token(token) == "987654321"
    out = io.StringIO()
    args = parse(["discord", "invite-url"])
    assert args.discord_handler(args, Settings(discord_token=token), out=out) == 0
    assert "client_id=987654321" in out.getvalue() and token not in out.getvalue()


def test_the_cli_says_what_is_missing(capsys: pytest.CaptureFixture[str]) -> None:
    args = parse(["discord", "invite-url"])
    assert args.discord_handler(args, Settings(discord_token="not-a-token"), out=sys.stdout) == 2
    assert "--client-id" in capsys.readouterr().err


def test_the_user_install_link_asks_for_commands_only_and_the_cli_prints_it() -> None:
    server = parse_qs(urlparse(invite_url("42")).query)
    assert server["integration_type"] == ["0"]
    url = urlparse(user_install_url("42"))
    query = parse_qs(url.query)
    assert (url.netloc, url.path) == ("discord.com", "/oauth2/authorize")
    assert query == {"client_id": ["42"], "integration_type": ["1"], "scope": ["applications.commands"]}
    out = io.StringIO()
    args = parse(["discord", "invite-url", "--client-id", "42"])
    assert args.discord_handler(args, Settings(), out=out) == 0
    assert user_install_url("42") in out.getvalue().splitlines()
