-- The learning report (issue 31, /quiz progress): each review remembers what FSRS expected of it, so measured
-- retention and calibration are counted from the log alone. due_before is the card's due instant before this
-- review (NULL for a first answer: there was no card), recall the predicted recall at the review (0..1; NULL for
-- a first answer). Rows written before this migration keep NULL in both and count only where no prediction is
-- needed (right-rate when sure and when not sure).
ALTER TABLE review_log ADD COLUMN due_before TEXT;
ALTER TABLE review_log ADD COLUMN recall REAL;
