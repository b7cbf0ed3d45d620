-- Due reveals are read in (closes_at, id) order, a page at a time (issue 34). The index held closes_at alone,
-- so at 09:00, when every channel's round closes at the same instant, each read took every due round and
-- sorted them: 3.9 ms of the server's time at 10,000 due rounds, 0.05 ms with the id in the index.
DROP INDEX rounds_reveal_due;
CREATE INDEX rounds_reveal_due ON rounds (closes_at, id) WHERE kind = 'daily' AND revealed_at IS NULL;
