-- A space's own question packs (issue 12): one row per pack, one per question (canonical JSON), the
-- question each round posted (kept as posted while its pack changes), and the packs a channel draws from.
CREATE TABLE packs (
    platform   text NOT NULL,
    space_id   text NOT NULL,
    name       text NOT NULL,
    version    integer NOT NULL,
    questions  integer NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (platform, space_id, name)
);
CREATE TABLE pack_questions (
    platform    text NOT NULL,
    space_id    text NOT NULL,
    pack        text NOT NULL,
    position    integer NOT NULL,
    question_id text NOT NULL,
    body        text NOT NULL,
    PRIMARY KEY (platform, space_id, pack, position)
);
CREATE TABLE round_questions (
    round_id bigint PRIMARY KEY,
    body     text NOT NULL
);
ALTER TABLE channels ADD COLUMN packs text NOT NULL DEFAULT 'pytorch';
