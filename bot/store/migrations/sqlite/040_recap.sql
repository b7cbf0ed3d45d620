-- The weekly recap (issue 13): the channel's recap weekday (0 = Monday; NULL: off), its next due instant
-- and a tick's lease on it, and one row per channel and week posted, so no week is recapped twice.
ALTER TABLE channels ADD COLUMN recap_day INTEGER DEFAULT 0;
ALTER TABLE channels ADD COLUMN next_recap_at TEXT;          -- UTC; NULL: nothing due (off or paused)
ALTER TABLE channels ADD COLUMN recap_claimed_until TEXT;

CREATE TABLE recaps (
    platform   TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    week_end   TEXT NOT NULL,              -- the last local date the recap covers, YYYY-MM-DD
    posted_at  TEXT NOT NULL,
    PRIMARY KEY (platform, channel_id, week_end)
) WITHOUT ROWID;

CREATE INDEX channels_recap_due ON channels (next_recap_at) WHERE next_recap_at IS NOT NULL;
CREATE INDEX rounds_space_dates ON rounds (platform, space_id, local_date) WHERE kind = 'daily';
