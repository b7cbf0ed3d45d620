-- The dashboard (issue 33): one-time sign-in links (only a hash of each token is kept; a link works once,
-- within its 10 minutes) and sign-in attempts counted per client and window (rate limits), shared by every
-- process of one bot.
CREATE TABLE login_links (
    token_hash TEXT PRIMARY KEY,
    platform   TEXT NOT NULL,
    space_id   TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    is_admin   INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at    TEXT
) WITHOUT ROWID;
CREATE INDEX login_links_expiry ON login_links (expires_at);

CREATE TABLE login_attempts (
    bucket       TEXT NOT NULL,            -- a hash of the client's address
    window_start TEXT NOT NULL,
    attempts     INTEGER NOT NULL,
    PRIMARY KEY (bucket, window_start)
) WITHOUT ROWID;
CREATE INDEX login_attempts_window ON login_attempts (window_start);
