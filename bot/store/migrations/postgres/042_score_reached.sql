-- Ties on a leaderboard are listed by who reached the score first (issue 13): when each total was reached.
ALTER TABLE scores ADD COLUMN reached_at timestamptz;          -- the answer that scored last
CREATE INDEX scores_top_reached ON scores (platform, space_id, period, period_key, points DESC, reached_at, user_id);
