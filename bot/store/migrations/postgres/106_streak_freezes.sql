-- Streak freezes (issue 31): beside the scored streak (`current`, which points are counted on), the streak
-- shown (`kept`: a held freeze bridges a missed daily date and adds nothing), the freezes held (0-2), used in
-- all, and used within the shown streak. Rows from before hold kept = current.
ALTER TABLE streaks ADD COLUMN kept integer NOT NULL DEFAULT 0;
ALTER TABLE streaks ADD COLUMN freezes integer NOT NULL DEFAULT 0;
ALTER TABLE streaks ADD COLUMN freezes_used integer NOT NULL DEFAULT 0;
ALTER TABLE streaks ADD COLUMN frozen integer NOT NULL DEFAULT 0;
UPDATE streaks SET kept = current;
