-- The weekly recap (issue 13): the channel's recap weekday (0 = Monday; NULL: off), its next due instant
-- and a tick's lease on it, and one row per channel and week posted, so no week is recapped twice.
ALTER TABLE channels ADD COLUMN recap_day smallint DEFAULT 0;
ALTER TABLE channels ADD COLUMN next_recap_at timestamptz;          -- UTC; NULL: nothing due (off or paused)
ALTER TABLE channels ADD COLUMN recap_claimed_until timestamptz;

CREATE TABLE recaps (
    platform   text NOT NULL,
    channel_id text NOT NULL,
    week_end   date NOT NULL,              -- the last local date the recap covers
    posted_at  timestamptz NOT NULL,
    PRIMARY KEY (platform, channel_id, week_end)
);

CREATE INDEX channels_recap_due ON channels (next_recap_at) WHERE next_recap_at IS NOT NULL;
