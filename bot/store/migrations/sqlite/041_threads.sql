-- A channel setting (issue 13): each reveal opens a discussion thread. Off by default.
ALTER TABLE channels ADD COLUMN threads INTEGER NOT NULL DEFAULT 0;
