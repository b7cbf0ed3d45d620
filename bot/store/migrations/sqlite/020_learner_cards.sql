-- Learner memory (bot.learning): one FSRS card per (platform, space, user, question), its review log, and
-- the daily answers a learner marked "not sure" (read when the round is revealed).
CREATE TABLE learner_cards (
    platform       TEXT NOT NULL,
    space_id       TEXT NOT NULL,
    user_id        TEXT NOT NULL,
    question_id    TEXT NOT NULL,
    state          INTEGER NOT NULL,
    step           INTEGER,
    stability      REAL,
    difficulty     REAL,
    due            TEXT NOT NULL,
    last_review    TEXT,
    reviews        INTEGER NOT NULL DEFAULT 0,
    lapses         INTEGER NOT NULL DEFAULT 0,
    confident_miss INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (platform, space_id, user_id, question_id)
) WITHOUT ROWID;
CREATE INDEX learner_cards_due ON learner_cards (platform, space_id, user_id, due);

CREATE TABLE review_log (
    platform    TEXT NOT NULL,
    space_id    TEXT NOT NULL,
    user_id     TEXT NOT NULL,
    question_id TEXT NOT NULL,
    reviewed_at TEXT NOT NULL,
    rating      INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),
    sure        INTEGER NOT NULL,
    PRIMARY KEY (platform, space_id, user_id, question_id, reviewed_at)
) WITHOUT ROWID;

CREATE TABLE answer_doubts (
    round_id INTEGER NOT NULL REFERENCES rounds (id),
    user_id  TEXT NOT NULL,
    PRIMARY KEY (round_id, user_id)
) WITHOUT ROWID;
