-- The dashboard (issue 33): one-time sign-in links (only a hash of each token is kept; a link works once,
-- within its 10 minutes) and sign-in attempts counted per client and window (rate limits), shared by every
-- process of one bot.
CREATE TABLE login_links (
    token_hash text PRIMARY KEY,
    platform   text NOT NULL,
    space_id   text NOT NULL,
    user_id    text NOT NULL,
    is_admin   boolean NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX login_links_expiry ON login_links (expires_at);

CREATE TABLE login_attempts (
    bucket       text NOT NULL,            -- a hash of the client's address
    window_start timestamptz NOT NULL,
    attempts     integer NOT NULL,
    PRIMARY KEY (bucket, window_start)
);
CREATE INDEX login_attempts_window ON login_attempts (window_start);
