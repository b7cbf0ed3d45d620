-- Leaderboards and seasons read a board through scores_top_reached (points, then who reached them first);
-- nothing reads the older scores_top, and every score written at a reveal paid for it.
DROP INDEX IF EXISTS scores_top;
