-- A space's own question packs (issue 12): one row per pack, one per question (canonical JSON), the
-- question each round posted (kept as posted while its pack changes), and the packs a channel draws from.
CREATE TABLE packs (
    platform   TEXT NOT NULL,
    space_id   TEXT NOT NULL,
    name       TEXT NOT NULL,
    version    INTEGER NOT NULL,
    questions  INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (platform, space_id, name)
) WITHOUT ROWID;
CREATE TABLE pack_questions (
    platform    TEXT NOT NULL,
    space_id    TEXT NOT NULL,
    pack        TEXT NOT NULL,
    position    INTEGER NOT NULL,
    question_id TEXT NOT NULL,
    body        TEXT NOT NULL,
    PRIMARY KEY (platform, space_id, pack, position)
) WITHOUT ROWID;
CREATE TABLE round_questions (
    round_id INTEGER PRIMARY KEY,
    body     TEXT NOT NULL
);
ALTER TABLE channels ADD COLUMN packs TEXT NOT NULL DEFAULT 'pytorch';
