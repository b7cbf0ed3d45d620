-- Teams (issue 32): a space's named teams (unique by their folded name, team_key), one team per member per
-- space (the members' primary key), and each season's team of the month, decided once (NULL name: none).
CREATE TABLE teams (
    platform   TEXT NOT NULL,
    space_id   TEXT NOT NULL,
    team_key   TEXT NOT NULL,              -- the name, NFKC-normalised and case-folded
    name       TEXT NOT NULL,              -- as created or renamed
    created_at TEXT NOT NULL,
    PRIMARY KEY (platform, space_id, team_key)
) WITHOUT ROWID;

CREATE TABLE team_members (
    platform  TEXT NOT NULL,
    space_id  TEXT NOT NULL,
    user_id   TEXT NOT NULL,
    team_key  TEXT NOT NULL,
    joined_at TEXT NOT NULL,
    PRIMARY KEY (platform, space_id, user_id)
) WITHOUT ROWID;
CREATE INDEX team_members_team ON team_members (platform, space_id, team_key);

CREATE TABLE season_teams (
    platform   TEXT NOT NULL,
    space_id   TEXT NOT NULL,
    season     TEXT NOT NULL,              -- YYYY-MM
    name       TEXT,                       -- NULL: no team scored that month
    points     INTEGER NOT NULL,
    members    INTEGER NOT NULL,
    decided_at TEXT NOT NULL,
    PRIMARY KEY (platform, space_id, season)
) WITHOUT ROWID;
