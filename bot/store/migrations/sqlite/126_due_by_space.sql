-- Due channels are claimed a space at a time (issue 34): among channels due at the same instant a claim
-- takes a space's channels together, so a batch of daily posts reads each space's pick inputs once and its
-- picks share the space's least-asked questions. These indexes give that order without sorting every due
-- channel.
DROP INDEX channels_due;
CREATE INDEX channels_due ON channels (next_post_at, platform, space_id, channel_id) WHERE next_post_at IS NOT NULL;
DROP INDEX channels_recap_due;
CREATE INDEX channels_recap_due ON channels (next_recap_at, platform, space_id, channel_id)
    WHERE next_recap_at IS NOT NULL;
