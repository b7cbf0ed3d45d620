-- Workspaces that installed the bot ("Add to Slack"): one row per (platform, workspace). token_secret is
-- the bot token encrypted with STUDYBOT_SECRET_KEY, never the plaintext.
CREATE TABLE installations (
    platform      TEXT NOT NULL,
    workspace_id  TEXT NOT NULL,
    bot_user_id   TEXT NOT NULL,
    token_secret  TEXT NOT NULL,
    installed_at  TIMESTAMPTZ NOT NULL,
    bot_id        TEXT,
    scopes        TEXT NOT NULL DEFAULT '',
    installed_by  TEXT,
    enterprise_id TEXT,
    PRIMARY KEY (platform, workspace_id)
);
-- OAuth state values issued by the install page, each consumed at most once before it expires.
CREATE TABLE oauth_states (
    state      TEXT PRIMARY KEY,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX oauth_states_expiry ON oauth_states (expires_at);
