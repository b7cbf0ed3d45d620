"""The dashboard: an aiohttp.web application the bot process serves itself (with /healthz and /metrics),
server-rendered Jinja2 pages over the same feature services and rules as the chat commands, sign-in by a
one-time link, Discord OAuth2 or Sign in with Slack. It never reads the store."""
