-- Opt-in reminders (issue 11): one row per learner and space with the local time, the timezone it is read
-- in and its next due instant; and one row per learner and local date sent, so no day is sent twice.
CREATE TABLE reminders (
    platform   text NOT NULL,
    space_id   text NOT NULL,
    user_id    text NOT NULL,
    channel_id text NOT NULL,              -- where it was turned on (today's question is looked up there)
    remind_at  time NOT NULL,              -- local wall time
    timezone   text NOT NULL,              -- IANA name
    enabled    boolean NOT NULL DEFAULT true,
    next_at    timestamptz,                -- NULL: off
    PRIMARY KEY (platform, space_id, user_id)
);

CREATE INDEX reminders_due ON reminders (next_at) WHERE enabled AND next_at IS NOT NULL;

CREATE TABLE reminder_days (
    platform   text NOT NULL,
    space_id   text NOT NULL,
    user_id    text NOT NULL,
    local_date date NOT NULL,              -- in the reminder's timezone
    claimed_at timestamptz NOT NULL,
    PRIMARY KEY (platform, space_id, user_id, local_date)
);
