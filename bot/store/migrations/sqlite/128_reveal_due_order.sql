-- The same index as PostgreSQL's migration 128 (due reveals in (closes_at, id) order). SQLite already read
-- them in that order from (closes_at) alone, the row id being the index's last column; the id is named so
-- both databases define the index alike.
DROP INDEX rounds_reveal_due;
CREATE INDEX rounds_reveal_due ON rounds (closes_at, id) WHERE kind = 'daily' AND revealed_at IS NULL;
