"""`studybot run` for a test: the real composition root (bot.app.cli.main, settings from the environment, so
STUDYBOT_ROLE and the rest as an operator sets them) with discord.py pointed at the loopback fake Discord.

argv: the fake's REST base (http://127.0.0.1:PORT/api/v10) and its gateway URL (ws://127.0.0.1:PORT/gateway).
"""

from __future__ import annotations

import sys

import discord
import yarl

from bot.app.cli import main

if __name__ == "__main__":
    discord.http.Route.BASE = sys.argv[1]
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(sys.argv[2])
    raise SystemExit(main(["run"]))
