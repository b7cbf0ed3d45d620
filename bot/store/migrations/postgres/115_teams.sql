-- Teams (issue 32): a space's named teams (unique by their folded name, team_key), one team per member per
-- space (the members' primary key), and each season's team of the month, decided once (NULL name: none).
CREATE TABLE teams (
    platform   text NOT NULL,
    space_id   text NOT NULL,
    team_key   text NOT NULL,              -- the name, NFKC-normalised and case-folded
    name       text NOT NULL,              -- as created or renamed
    created_at timestamptz NOT NULL,
    PRIMARY KEY (platform, space_id, team_key)
);

CREATE TABLE team_members (
    platform  text NOT NULL,
    space_id  text NOT NULL,
    user_id   text NOT NULL,
    team_key  text NOT NULL,
    joined_at timestamptz NOT NULL,
    PRIMARY KEY (platform, space_id, user_id)
);
CREATE INDEX team_members_team ON team_members (platform, space_id, team_key);

CREATE TABLE season_teams (
    platform   text NOT NULL,
    space_id   text NOT NULL,
    season     text NOT NULL,              -- YYYY-MM
    name       text,                       -- NULL: no team scored that month
    points     integer NOT NULL,
    members    integer NOT NULL,
    decided_at timestamptz NOT NULL,
    PRIMARY KEY (platform, space_id, season)
);
