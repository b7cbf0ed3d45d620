-- Members' question suggestions (issue 12): the question as canonical JSON, its review state, and a
-- per-user, per-space, per-day count that the store raises atomically (the daily limit).
CREATE TABLE suggestions (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    platform    TEXT NOT NULL,
    space_id    TEXT NOT NULL,
    channel_id  TEXT NOT NULL,
    author_id   TEXT NOT NULL,
    body        TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
    reason      TEXT,
    created_at  TEXT NOT NULL,
    decided_by  TEXT,
    decided_at  TEXT,
    question_id TEXT
);
CREATE INDEX suggestions_by_space ON suggestions (platform, space_id, status, id);
CREATE TABLE suggestion_quota (
    platform TEXT NOT NULL,
    space_id TEXT NOT NULL,
    user_id  TEXT NOT NULL,
    day      TEXT NOT NULL,
    used     INTEGER NOT NULL,
    PRIMARY KEY (platform, space_id, user_id, day)
) WITHOUT ROWID;
