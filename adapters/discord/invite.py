"""The invite URLs and the `studybot discord invite-url` command: the server install (scopes bot +
applications.commands, the permissions the bot uses) and the user install (applications.commands only: a learner
adds the app to their own account and practises in DMs). Standard library only: it works without the discord
extra."""

from __future__ import annotations

import argparse
import base64
import binascii
import sys
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import urlencode

if TYPE_CHECKING:
    from adapters.discord.settings import DiscordSettings

AUTHORIZE_URL = "https://discord.com/oauth2/authorize"
SCOPES: tuple[str, ...] = ("bot", "applications.commands")
USER_SCOPES: tuple[str, ...] = ("applications.commands",)  # a user install has no bot user and no permissions
GUILD_INSTALL, USER_INSTALL = "0", "1"  # OAuth2's integration_type

#: What each permission is for (bits from https://discord.com/developers/docs/topics/permissions).
PERMISSIONS: dict[str, tuple[int, str]] = {
    "View Channels": (1 << 10, "see the channels it posts in"),
    "Send Messages": (1 << 11, "post the daily question and the reveal"),
    "Embed Links": (1 << 14, "show questions as embeds"),
    "Add Reactions": (1 << 6, "add the A-D reactions members can answer with"),
    "Read Message History": (1 << 16, "react to and reply to its own question messages"),
    "Manage Messages": (1 << 13, "remove a member's answer reaction so nobody sees who chose what (optional)"),
    "Attach Files": (1 << 15, "attach the weekly recap chart"),
    "Create Public Threads": (1 << 35, "open a discussion thread on each reveal (optional: the threads setting)"),
}
PERMISSION_BITS = sum(bit for bit, _ in PERMISSIONS.values())
#: Asked for only when a setting needs it (`invite-url --champion-role`); the default invite leaves it out.
MANAGE_ROLES = 1 << 28  # give the monthly season's champion role (the champion_role setting)


def invite_url(client_id: str, guild_id: str | None = None, *, champion_role: bool = False) -> str:
    """The OAuth2 URL that adds the bot to a server with its slash commands and permissions (with Manage
    Roles too when `champion_role`: the season's champion role setting)."""
    bits = PERMISSION_BITS | (MANAGE_ROLES if champion_role else 0)
    query = {
        "client_id": client_id,
        "integration_type": GUILD_INSTALL,
        "scope": " ".join(SCOPES),
        "permissions": str(bits),
    }
    if guild_id:
        query.update(guild_id=guild_id, disable_guild_select="true")
    return f"{AUTHORIZE_URL}?{urlencode(query)}"


def user_install_url(client_id: str) -> str:
    """The OAuth2 URL that adds the app to a member's own account: /quiz, /review, /answer and /stats in their DMs
    (needs "User Install" ticked under Installation in the Developer Portal)."""
    query = {"client_id": client_id, "integration_type": USER_INSTALL, "scope": " ".join(USER_SCOPES)}
    return f"{AUTHORIZE_URL}?{urlencode(query)}"


def client_id_from_token(token: str) -> str | None:
    """A bot token starts with the bot user's id in base64; for bots that id is the application id."""
    head = token.strip().split(".", 1)[0]
    try:
        decoded = base64.b64decode(head + "=" * (-len(head) % 4), validate=False).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return decoded if decoded.isdigit() else None


def add_discord_cli(subparsers: Any) -> None:
    """Add `studybot discord invite-url` to the studybot command line (bot/app/cli.py build_parser)."""
    parser = subparsers.add_parser("discord", help="Discord tools")
    sub = parser.add_subparsers(dest="discord_command", required=True)
    invite = sub.add_parser(
        "invite-url", help="print the URLs that add the bot to a server and the app to a member's own account"
    )
    invite.add_argument(
        "--client-id", help="the application id (default: DISCORD_CLIENT_ID, or read from DISCORD_TOKEN)"
    )
    invite.add_argument("--guild-id", help="preselect one server (default: DISCORD_GUILD_ID if set)")
    invite.add_argument(
        "--champion-role",
        action="store_true",
        help="also ask for Manage Roles, for the champion_role setting (the monthly season's winner)",
    )
    invite.set_defaults(discord_handler=run_invite_url)


def run_invite_url(args: argparse.Namespace, settings: DiscordSettings, out: TextIO | None = None) -> int:
    """DISCORD_CLIENT_ID, DISCORD_TOKEN and DISCORD_GUILD_ID come from the settings (bot/app/config.py)."""
    out = out or sys.stdout
    client_id = (args.client_id or settings.discord_client_id or "").strip()
    if not client_id and settings.discord_token:
        client_id = client_id_from_token(settings.discord_token) or ""
    if not client_id.isdigit():
        print(
            "Give the application id: --client-id ID (Developer Portal > your app > General Information), "
            "or set DISCORD_CLIENT_ID or DISCORD_TOKEN.",
            file=sys.stderr,
        )
        return 2
    guild_id = (args.guild_id or str(settings.discord_guild_id or "")).strip() or None
    champion = bool(getattr(args, "champion_role", False))
    print(invite_url(client_id, guild_id, champion_role=champion), file=out)
    names = [*PERMISSIONS, *(["Manage Roles"] if champion else [])]
    print("Permissions: " + ", ".join(names) + ". Scopes: " + ", ".join(SCOPES) + ".", file=out)
    print(
        "For private practice in DMs (/quiz, /review, /answer, /stats), a member adds the app to their own "
        "account with:",
        file=out,
    )
    print(user_install_url(client_id), file=out)
    return 0
