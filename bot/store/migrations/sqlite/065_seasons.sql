-- Monthly seasons (issue 13): each space's archived top three per calendar month, decided once (the header
-- row is the claim), which channels have posted a season's card, and the Discord champion role setting.
ALTER TABLE channels ADD COLUMN champion_role TEXT;           -- a Discord role id; NULL: off

CREATE TABLE seasons (
    platform    TEXT NOT NULL,
    space_id    TEXT NOT NULL,
    season      TEXT NOT NULL,             -- YYYY-MM, the month's leaderboard key
    archived_at TEXT NOT NULL,
    PRIMARY KEY (platform, space_id, season)
) WITHOUT ROWID;

CREATE TABLE season_places (
    platform TEXT NOT NULL,
    space_id TEXT NOT NULL,
    season   TEXT NOT NULL,
    rank     INTEGER NOT NULL,             -- 1, 2, 3: ties ordered by who reached the score first
    user_id  TEXT NOT NULL,
    points   INTEGER NOT NULL,
    answers  INTEGER NOT NULL,
    correct  INTEGER NOT NULL,
    PRIMARY KEY (platform, space_id, season, rank)
) WITHOUT ROWID;

CREATE TABLE season_posts (
    platform   TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    season     TEXT NOT NULL,
    posted_at  TEXT NOT NULL,
    PRIMARY KEY (platform, channel_id, season)
) WITHOUT ROWID;
