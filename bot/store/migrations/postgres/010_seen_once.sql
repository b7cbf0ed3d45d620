-- Deliveries already handled (Slack event ids, request signatures): shared by every process of one bot.
CREATE TABLE seen_once (
    scope      TEXT NOT NULL,
    key        TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (scope, key)
);
CREATE INDEX seen_once_expiry ON seen_once (expires_at);
