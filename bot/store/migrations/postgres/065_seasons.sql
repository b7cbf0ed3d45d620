-- Monthly seasons (issue 13): each space's archived top three per calendar month, decided once (the header
-- row is the claim), which channels have posted a season's card, and the Discord champion role setting.
ALTER TABLE channels ADD COLUMN champion_role text;           -- a Discord role id; NULL: off

CREATE TABLE seasons (
    platform    text NOT NULL,
    space_id    text NOT NULL,
    season      text NOT NULL,             -- YYYY-MM, the month's leaderboard key
    archived_at timestamptz NOT NULL,
    PRIMARY KEY (platform, space_id, season)
);

CREATE TABLE season_places (
    platform text NOT NULL,
    space_id text NOT NULL,
    season   text NOT NULL,
    rank     integer NOT NULL,             -- 1, 2, 3: ties ordered by who reached the score first
    user_id  text NOT NULL,
    points   integer NOT NULL,
    answers  integer NOT NULL,
    correct  integer NOT NULL,
    PRIMARY KEY (platform, space_id, season, rank)
);

CREATE TABLE season_posts (
    platform   text NOT NULL,
    channel_id text NOT NULL,
    season     text NOT NULL,
    posted_at  timestamptz NOT NULL,
    PRIMARY KEY (platform, channel_id, season)
);
