-- Learner cards are read by (platform, space, user) through the primary key and sorted in Python (bot.review):
-- no query reads the due index, and every card write paid for it.
DROP INDEX IF EXISTS learner_cards_due;
