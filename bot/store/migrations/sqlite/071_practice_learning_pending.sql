-- A practice answer's card update is written after its reply, by the batch (bot.store.settle.learn_practice):
-- its reveal marks the round (1: the learner was sure, 0: not sure) and the update clears the mark. A mark
-- outlives a crash, so an acknowledged answer always reaches the learner's card.
ALTER TABLE rounds ADD COLUMN learn_pending INTEGER;
CREATE INDEX rounds_learn_pending ON rounds (platform, space_id, user_id) WHERE learn_pending IS NOT NULL;
