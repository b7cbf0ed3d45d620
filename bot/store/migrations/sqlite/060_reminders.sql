-- Opt-in reminders (issue 11): one row per learner and space with the local time, the timezone it is read
-- in and its next due instant; and one row per learner and local date sent, so no day is sent twice.
CREATE TABLE reminders (
    platform   TEXT NOT NULL,
    space_id   TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    channel_id TEXT NOT NULL,              -- where it was turned on (today's question is looked up there)
    remind_at  TEXT NOT NULL,              -- local HH:MM
    timezone   TEXT NOT NULL,              -- IANA name
    enabled    INTEGER NOT NULL DEFAULT 1,
    next_at    TEXT,                       -- UTC; NULL: off
    PRIMARY KEY (platform, space_id, user_id)
) WITHOUT ROWID;

CREATE INDEX reminders_due ON reminders (next_at) WHERE enabled = 1 AND next_at IS NOT NULL;

CREATE TABLE reminder_days (
    platform   TEXT NOT NULL,
    space_id   TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    local_date TEXT NOT NULL,              -- YYYY-MM-DD in the reminder's timezone
    claimed_at TEXT NOT NULL,
    PRIMARY KEY (platform, space_id, user_id, local_date)
) WITHOUT ROWID;
