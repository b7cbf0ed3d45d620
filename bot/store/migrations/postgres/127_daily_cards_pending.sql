-- A daily round revealed by the tick is marked here and its answers' memory card updates are written after
-- the fan-out, a space at a time (bot.store.settle.learn_rounds), so the reveals at 09:00 write half the
-- WAL they did; a learner's marked rounds are written before their cards are read.
ALTER TABLE rounds ADD COLUMN cards_pending SMALLINT;
CREATE INDEX rounds_cards_pending ON rounds (platform, space_id, id) WHERE cards_pending IS NOT NULL;
