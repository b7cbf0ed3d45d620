-- studybot schema, version 1 (SQLite)

CREATE TABLE channels (
    platform       TEXT NOT NULL,
    channel_id     TEXT NOT NULL,
    space_id       TEXT NOT NULL,
    post_time      TEXT NOT NULL,          -- HH:MM, local
    timezone       TEXT NOT NULL,          -- IANA name
    weekdays       TEXT NOT NULL,          -- "0,1,2,3,4" (0 = Monday)
    topics         TEXT NOT NULL DEFAULT '',
    difficulties   TEXT NOT NULL DEFAULT '',
    paused         INTEGER NOT NULL DEFAULT 0,
    reactions      INTEGER NOT NULL DEFAULT 1,
    answer_window_s INTEGER,               -- NULL: open until the next daily post
    speed_bonus    INTEGER NOT NULL DEFAULT 0,
    updated_at     TEXT NOT NULL,
    PRIMARY KEY (platform, channel_id)
);
CREATE INDEX channels_space ON channels (platform, space_id, updated_at);

CREATE TABLE rounds (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    kind        TEXT NOT NULL CHECK (kind IN ('daily', 'practice')),
    platform    TEXT NOT NULL,
    space_id    TEXT NOT NULL,
    channel_id  TEXT NOT NULL,
    user_id     TEXT,                      -- practice: the learner
    question_id TEXT NOT NULL,
    topic       TEXT NOT NULL,
    local_date  TEXT,                      -- daily: the channel's local date, YYYY-MM-DD
    opened_at   TEXT NOT NULL,
    closes_at   TEXT,
    revealed_at TEXT,
    message_id  TEXT
);
-- one daily round per (channel, local date): a restart or a second process cannot post twice
CREATE UNIQUE INDEX rounds_daily_slot ON rounds (platform, channel_id, local_date) WHERE kind = 'daily';
CREATE INDEX rounds_open ON rounds (platform, channel_id) WHERE revealed_at IS NULL;
CREATE INDEX rounds_space_questions ON rounds (platform, space_id, kind, question_id);
CREATE INDEX rounds_message ON rounds (platform, message_id) WHERE message_id IS NOT NULL;
CREATE INDEX rounds_user_practice ON rounds (platform, space_id, user_id) WHERE kind = 'practice';

-- the answer log: one answer per (round, user); points are settled at the reveal
CREATE TABLE answers (
    round_id    INTEGER NOT NULL REFERENCES rounds (id),
    user_id     TEXT NOT NULL,
    choice      INTEGER NOT NULL CHECK (choice BETWEEN 0 AND 3),
    correct     INTEGER NOT NULL,
    answered_at TEXT NOT NULL,
    points      INTEGER,
    PRIMARY KEY (round_id, user_id)
) WITHOUT ROWID;
CREATE INDEX answers_user ON answers (user_id, round_id);

-- leaderboard aggregates, derived from the answer log when a daily round is revealed
CREATE TABLE scores (
    platform   TEXT NOT NULL,
    space_id   TEXT NOT NULL,
    period     TEXT NOT NULL,              -- week | month | all
    period_key TEXT NOT NULL,              -- 2026-W49 | 2026-11 | all
    user_id    TEXT NOT NULL,
    points     INTEGER NOT NULL,
    correct    INTEGER NOT NULL,
    answered   INTEGER NOT NULL,
    PRIMARY KEY (platform, space_id, period, period_key, user_id)
) WITHOUT ROWID;
CREATE INDEX scores_top ON scores (platform, space_id, period, period_key, points DESC, user_id);

-- how many users hold each point total: a rank is 1 + the users above, summed over few buckets
CREATE TABLE score_buckets (
    platform   TEXT NOT NULL,
    space_id   TEXT NOT NULL,
    period     TEXT NOT NULL,
    period_key TEXT NOT NULL,
    points     INTEGER NOT NULL,
    users      INTEGER NOT NULL,
    PRIMARY KEY (platform, space_id, period, period_key, points)
) WITHOUT ROWID;

CREATE TABLE streaks (
    platform  TEXT NOT NULL,
    space_id  TEXT NOT NULL,
    user_id   TEXT NOT NULL,
    current   INTEGER NOT NULL,
    best      INTEGER NOT NULL,
    last_date TEXT,
    PRIMARY KEY (platform, space_id, user_id)
) WITHOUT ROWID;
