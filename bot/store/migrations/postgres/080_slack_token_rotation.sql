-- Slack token rotation (issue 28): an installation's bot token expires (about 12 hours) and is renewed with
-- its refresh token. refresh_secret is the refresh token encrypted with STUDYBOT_SECRET_KEY, as
-- token_secret is; token_expires_at is when the bot token expires (NULL: it never does);
-- refresh_claimed_until is the one process's claim on the renewal in flight.
ALTER TABLE installations ADD COLUMN refresh_secret TEXT;
ALTER TABLE installations ADD COLUMN token_expires_at TIMESTAMPTZ;
ALTER TABLE installations ADD COLUMN refresh_claimed_until TIMESTAMPTZ;
