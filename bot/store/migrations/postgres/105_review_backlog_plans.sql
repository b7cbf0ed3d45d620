-- Backlog-safe reviews and interview-date plans (issue 31).
-- review_prefs: a learner's daily review limit (NULL: the default) and vacation hold (paused_at ..
-- paused_until; NULL: not paused) in a space, and when the last hold ended.
CREATE TABLE review_prefs (
    platform     text COLLATE "C" NOT NULL,
    space_id     text COLLATE "C" NOT NULL,
    user_id      text COLLATE "C" NOT NULL,
    daily_limit  integer CHECK (daily_limit BETWEEN 1 AND 100),
    paused_at    timestamptz,
    paused_until timestamptz,
    resumed_at   timestamptz, -- when the last hold ended (a gap is counted from it)
    PRIMARY KEY (platform, space_id, user_id)
);

-- learner_plans: an interview-date plan, its questions drawn from the channel it was made in (topics: comma
-- list; '' every topic there); it ends by itself after plan_date.
CREATE TABLE learner_plans (
    platform   text COLLATE "C" NOT NULL,
    space_id   text COLLATE "C" NOT NULL,
    user_id    text COLLATE "C" NOT NULL,
    channel_id text COLLATE "C" NOT NULL,
    plan_date  date NOT NULL,
    topics     text NOT NULL,
    started_at timestamptz NOT NULL,
    PRIMARY KEY (platform, space_id, user_id)
);

-- review_days: each question a review served (a practice round), on the learner's local date in the space:
-- kind 'review' counts toward the daily limit, 'plan' toward a plan's daily target.
CREATE TABLE review_days (
    round_id    bigint PRIMARY KEY,
    platform    text COLLATE "C" NOT NULL,
    space_id    text COLLATE "C" NOT NULL,
    user_id     text COLLATE "C" NOT NULL,
    local_date  date NOT NULL,
    question_id text COLLATE "C" NOT NULL,
    kind        text NOT NULL CHECK (kind IN ('review', 'plan'))
);
CREATE INDEX review_days_of ON review_days (platform, space_id, user_id, local_date);
