"""The Discord adapter: discord.py events in, core calls out, core cards rendered as embeds and buttons.

Modules: app (client, setup_hook, command sync, start_discord), commands (slash commands for everyone),
quizconfig (the admin group), views (persistent answer buttons), answers (button clicks and reactions),
replies (interaction plumbing), render (cards -> embeds), platform (the ChatPlatform pushes), invite (invite
URL and CLI; stdlib only).

Importing this package does not import discord.py, so `studybot discord invite-url` works without the extra.
"""
