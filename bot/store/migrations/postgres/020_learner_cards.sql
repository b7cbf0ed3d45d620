-- Learner memory (bot.learning): one FSRS card per (platform, space, user, question), its review log, and
-- the daily answers a learner marked "not sure" (read when the round is revealed).
CREATE TABLE learner_cards (
    platform       text COLLATE "C" NOT NULL,
    space_id       text COLLATE "C" NOT NULL,
    user_id        text COLLATE "C" NOT NULL,
    question_id    text COLLATE "C" NOT NULL,
    state          smallint NOT NULL,
    step           integer,
    stability      double precision,
    difficulty     double precision,
    due            timestamptz NOT NULL,
    last_review    timestamptz,
    reviews        integer NOT NULL DEFAULT 0,
    lapses         integer NOT NULL DEFAULT 0,
    confident_miss boolean NOT NULL DEFAULT false,
    PRIMARY KEY (platform, space_id, user_id, question_id)
);
CREATE INDEX learner_cards_due ON learner_cards (platform, space_id, user_id, due);

CREATE TABLE review_log (
    platform    text COLLATE "C" NOT NULL,
    space_id    text COLLATE "C" NOT NULL,
    user_id     text COLLATE "C" NOT NULL,
    question_id text COLLATE "C" NOT NULL,
    reviewed_at timestamptz NOT NULL,
    rating      smallint NOT NULL CHECK (rating BETWEEN 1 AND 4),
    sure        boolean NOT NULL,
    PRIMARY KEY (platform, space_id, user_id, question_id, reviewed_at)
);

CREATE TABLE answer_doubts (
    round_id bigint NOT NULL REFERENCES rounds (id),
    user_id  text COLLATE "C" NOT NULL,
    PRIMARY KEY (round_id, user_id)
);
