-- Live games (issue 32): a run of questions in one channel, each a round of kind 'live' open for a few
-- seconds; the game's next step (post a question, close it, end the game) is due at a stored instant and
-- any process's tick claims it with a lease, so a game outlives the process that started it.
--
-- rounds takes the kind 'live'. SQLite cannot change a CHECK constraint in place, so the table is rebuilt
-- the documented way (copy it, drop it, create it again, copy back, indexes again); the foreign keys of
-- answers and answer_doubts are checked at commit, when every round is back with its id. The AUTOINCREMENT
-- high-water mark is kept, so a deleted round's id is never given out again.
PRAGMA defer_foreign_keys = ON;
CREATE TEMP TABLE rounds_copy AS SELECT * FROM rounds;
CREATE TEMP TABLE rounds_seq AS SELECT seq FROM sqlite_sequence WHERE name = 'rounds';
DROP TABLE rounds;
CREATE TABLE rounds (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    kind        TEXT NOT NULL CHECK (kind IN ('daily', 'practice', 'live')),
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
    message_id  TEXT,
    post_state TEXT NOT NULL DEFAULT 'due',
    post_attempts INTEGER NOT NULL DEFAULT 0,
    post_due_at TEXT,
    post_doubts INTEGER NOT NULL DEFAULT 0,
    reveal_state TEXT NOT NULL DEFAULT 'due',
    reveal_attempts INTEGER NOT NULL DEFAULT 0,
    reveal_due_at TEXT,
    reveal_doubts INTEGER NOT NULL DEFAULT 0,
    learn_pending INTEGER
);
INSERT INTO rounds SELECT * FROM rounds_copy;
UPDATE sqlite_sequence SET seq = (SELECT seq FROM rounds_seq)
    WHERE name = 'rounds' AND seq < (SELECT seq FROM rounds_seq);
INSERT INTO sqlite_sequence (name, seq) SELECT 'rounds', seq FROM rounds_seq
    WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'rounds');
DROP TABLE rounds_copy;
DROP TABLE rounds_seq;
CREATE UNIQUE INDEX rounds_daily_slot ON rounds (platform, channel_id, local_date) WHERE kind = 'daily';
CREATE INDEX rounds_open ON rounds (platform, channel_id) WHERE revealed_at IS NULL;
CREATE INDEX rounds_space_questions ON rounds (platform, space_id, kind, question_id);
CREATE INDEX rounds_message ON rounds (platform, message_id) WHERE message_id IS NOT NULL;
CREATE INDEX rounds_user_practice ON rounds (platform, space_id, user_id) WHERE kind = 'practice';
CREATE INDEX rounds_reveal_due ON rounds (closes_at) WHERE kind = 'daily' AND revealed_at IS NULL;
CREATE INDEX rounds_post_work ON rounds (id) WHERE kind = 'daily' AND post_state IN ('due', 'sending', 'failed');
CREATE INDEX rounds_reveal_work ON rounds (id)
    WHERE kind = 'daily' AND revealed_at IS NOT NULL AND reveal_state IN ('due', 'sending', 'failed');
CREATE INDEX rounds_space_dates ON rounds (platform, space_id, local_date) WHERE kind = 'daily';
CREATE INDEX rounds_learn_pending ON rounds (platform, space_id, user_id) WHERE learn_pending IS NOT NULL;

-- a game: its settings, and its next step (post: post question `position`; close: close it; end: post the
-- podium; done) due at due_at, claimed by one process until claimed_until
CREATE TABLE live_games (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    platform      TEXT NOT NULL,
    space_id      TEXT NOT NULL,
    channel_id    TEXT NOT NULL,
    starter_id    TEXT NOT NULL,
    total         INTEGER NOT NULL,          -- how many questions it asks
    seconds       INTEGER NOT NULL,          -- how long each question is open
    topic         TEXT,                      -- NULL: every topic of the channel's packs
    started_at    TEXT NOT NULL,
    step          TEXT NOT NULL CHECK (step IN ('post', 'close', 'end', 'done')),
    position      INTEGER NOT NULL,          -- the question the step is about, from 0
    due_at        TEXT,                      -- UTC; NULL once done
    claimed_until TEXT,                      -- a process's lease on the step
    attempts      INTEGER NOT NULL DEFAULT 0,  -- failed sends of the step so far
    stopped_by    TEXT,                      -- who stopped it: it ends after the question open now
    ended_at      TEXT                       -- when its points went to the space's live board (once)
);
-- one game per channel at a time
CREATE UNIQUE INDEX live_games_running ON live_games (platform, channel_id) WHERE step <> 'done';
CREATE INDEX live_games_due ON live_games (due_at) WHERE step <> 'done';

-- each question of a game, as the round it was asked in; scored once its answers' points are written
CREATE TABLE live_questions (
    game_id  INTEGER NOT NULL REFERENCES live_games (id),
    position INTEGER NOT NULL,
    round_id INTEGER NOT NULL REFERENCES rounds (id),
    scored   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, position)
) WITHOUT ROWID;
CREATE UNIQUE INDEX live_questions_round ON live_questions (round_id);

-- the space's live board: points, games played and games won (never the daily boards)
CREATE TABLE live_scores (
    platform TEXT NOT NULL,
    space_id TEXT NOT NULL,
    user_id  TEXT NOT NULL,
    points   INTEGER NOT NULL,
    games    INTEGER NOT NULL,
    wins     INTEGER NOT NULL,
    PRIMARY KEY (platform, space_id, user_id)
) WITHOUT ROWID;
CREATE INDEX live_scores_top ON live_scores (platform, space_id, points DESC, wins DESC, user_id);
