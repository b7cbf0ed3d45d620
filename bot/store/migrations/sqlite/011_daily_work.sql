-- durable daily work (issue 10): each channel carries its next due post, each daily round the state of
-- its question's and its reveal's delivery, so any process's tick can claim, do and record the work.

ALTER TABLE channels ADD COLUMN next_post_at TEXT;           -- UTC; NULL: nothing due (paused)
ALTER TABLE channels ADD COLUMN claimed_until TEXT;          -- a tick's lease on the due post

-- delivery: due -> sending (claimed until *_due_at) -> sent | failed (retry at *_due_at) | gave_up
ALTER TABLE rounds ADD COLUMN post_state TEXT NOT NULL DEFAULT 'due';
ALTER TABLE rounds ADD COLUMN post_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rounds ADD COLUMN post_due_at TEXT;
ALTER TABLE rounds ADD COLUMN post_doubts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rounds ADD COLUMN reveal_state TEXT NOT NULL DEFAULT 'due';
ALTER TABLE rounds ADD COLUMN reveal_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rounds ADD COLUMN reveal_due_at TEXT;
ALTER TABLE rounds ADD COLUMN reveal_doubts INTEGER NOT NULL DEFAULT 0;

-- what exists already was delivered the old way
UPDATE rounds SET post_state = 'sent';
UPDATE rounds SET reveal_state = 'sent' WHERE revealed_at IS NOT NULL;

CREATE INDEX channels_due ON channels (next_post_at) WHERE next_post_at IS NOT NULL;
CREATE INDEX rounds_reveal_due ON rounds (closes_at) WHERE kind = 'daily' AND revealed_at IS NULL;
CREATE INDEX rounds_post_work ON rounds (id) WHERE kind = 'daily' AND post_state IN ('due', 'sending', 'failed');
CREATE INDEX rounds_reveal_work ON rounds (id)
    WHERE kind = 'daily' AND revealed_at IS NOT NULL AND reveal_state IN ('due', 'sending', 'failed');
