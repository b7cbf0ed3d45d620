-- Reports of a question's problems (issue 12): one row per report, kept after it is resolved; a member
-- has at most one open report per question. A question an admin chose to hold stays held (question_holds)
-- until an admin keeps it; one with 3 open reports is held from selection by the count alone.
CREATE TABLE question_reports (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    platform    TEXT NOT NULL,
    space_id    TEXT NOT NULL,
    question_id TEXT NOT NULL,
    pack        TEXT NOT NULL,
    reporter    TEXT NOT NULL,
    reason      TEXT NOT NULL,
    body        TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'open',
    resolution  TEXT,
    resolved_by TEXT,
    resolved_at TEXT
);
CREATE UNIQUE INDEX question_reports_one_open ON question_reports (platform, space_id, question_id, reporter)
    WHERE status = 'open';
CREATE INDEX question_reports_by_reporter ON question_reports (platform, space_id, reporter, created_at);
CREATE INDEX question_reports_by_question ON question_reports (platform, space_id, question_id, status);
CREATE TABLE question_holds (
    platform    TEXT NOT NULL,
    space_id    TEXT NOT NULL,
    question_id TEXT NOT NULL,
    held_at     TEXT NOT NULL,
    held_by     TEXT NOT NULL,
    PRIMARY KEY (platform, space_id, question_id)
) WITHOUT ROWID;
