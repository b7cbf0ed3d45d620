"""Who may open the dashboard, decided in the store: one-time sign-in links, sign-in attempts (rate limits),
and the spaces the bot serves."""
