-- The daily pick's answer rates (issue 34): answers and right answers of a space's revealed daily rounds, per
-- question and per channel. Triggers keep them as the answer log has them (a reveal adds its round's answers;
-- a forgotten answer of a revealed daily round is taken off), so a pick reads a row per question and per
-- channel instead of every answer in the space's history. (A later migration that rebuilds `rounds` or
-- `answers`, as 110 did, drops their triggers and must create them again.)
CREATE TABLE daily_question_rates (
    platform      TEXT NOT NULL,
    space_id      TEXT NOT NULL,
    question_id   TEXT NOT NULL,
    answers       INTEGER NOT NULL,
    right_answers INTEGER NOT NULL,
    PRIMARY KEY (platform, space_id, question_id)
);

CREATE TABLE daily_channel_rates (
    platform      TEXT NOT NULL,
    space_id      TEXT NOT NULL,
    channel_id    TEXT NOT NULL,
    answers       INTEGER NOT NULL,
    right_answers INTEGER NOT NULL,
    PRIMARY KEY (platform, space_id, channel_id)
);

INSERT INTO daily_question_rates
SELECT r.platform, r.space_id, r.question_id, COUNT(*), COUNT(*) FILTER (WHERE a.correct)
FROM answers a JOIN rounds r ON r.id = a.round_id
WHERE r.kind = 'daily' AND r.revealed_at IS NOT NULL
GROUP BY r.platform, r.space_id, r.question_id;

INSERT INTO daily_channel_rates
SELECT r.platform, r.space_id, r.channel_id, COUNT(*), COUNT(*) FILTER (WHERE a.correct)
FROM answers a JOIN rounds r ON r.id = a.round_id
WHERE r.kind = 'daily' AND r.revealed_at IS NOT NULL
GROUP BY r.platform, r.space_id, r.channel_id;

CREATE TRIGGER rounds_daily_rates AFTER UPDATE OF revealed_at ON rounds
WHEN OLD.revealed_at IS NULL AND NEW.revealed_at IS NOT NULL AND NEW.kind = 'daily'
BEGIN
    INSERT INTO daily_question_rates (platform, space_id, question_id, answers, right_answers)
    SELECT NEW.platform, NEW.space_id, NEW.question_id, COUNT(*), COUNT(*) FILTER (WHERE correct)
    FROM answers WHERE round_id = NEW.id HAVING COUNT(*) > 0
    ON CONFLICT (platform, space_id, question_id)
    DO UPDATE SET answers = answers + excluded.answers, right_answers = right_answers + excluded.right_answers;
    INSERT INTO daily_channel_rates (platform, space_id, channel_id, answers, right_answers)
    SELECT NEW.platform, NEW.space_id, NEW.channel_id, COUNT(*), COUNT(*) FILTER (WHERE correct)
    FROM answers WHERE round_id = NEW.id HAVING COUNT(*) > 0
    ON CONFLICT (platform, space_id, channel_id)
    DO UPDATE SET answers = answers + excluded.answers, right_answers = right_answers + excluded.right_answers;
END;

CREATE TRIGGER answers_daily_rates AFTER DELETE ON answers
WHEN EXISTS (SELECT 1 FROM rounds WHERE id = OLD.round_id AND kind = 'daily' AND revealed_at IS NOT NULL)
BEGIN
    UPDATE daily_question_rates SET answers = answers - 1, right_answers = right_answers - OLD.correct
    WHERE (platform, space_id, question_id) = (SELECT platform, space_id, question_id FROM rounds WHERE id = OLD.round_id);
    UPDATE daily_channel_rates SET answers = answers - 1, right_answers = right_answers - OLD.correct
    WHERE (platform, space_id, channel_id) = (SELECT platform, space_id, channel_id FROM rounds WHERE id = OLD.round_id);
END;
