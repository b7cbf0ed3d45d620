-- The daily pick's answer rates (issue 34): answers and right answers of a space's revealed daily rounds, per
-- question and per channel. Triggers keep them as the answer log has them (a reveal adds its round's answers;
-- a forgotten answer of a revealed daily round is taken off), so a pick reads a row per question and per
-- channel instead of every answer in the space's history.
CREATE TABLE daily_question_rates (
    platform      text COLLATE "C" NOT NULL,
    space_id      text COLLATE "C" NOT NULL,
    question_id   text COLLATE "C" NOT NULL,
    answers       integer NOT NULL,
    right_answers integer NOT NULL,
    PRIMARY KEY (platform, space_id, question_id)
);

CREATE TABLE daily_channel_rates (
    platform      text COLLATE "C" NOT NULL,
    space_id      text COLLATE "C" NOT NULL,
    channel_id    text COLLATE "C" NOT NULL,
    answers       integer NOT NULL,
    right_answers integer NOT NULL,
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

CREATE FUNCTION daily_rates_revealed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    n integer;
    n_right integer;
BEGIN
    SELECT COUNT(*), COUNT(*) FILTER (WHERE correct) INTO n, n_right FROM answers WHERE round_id = NEW.id;
    IF n > 0 THEN
        INSERT INTO daily_question_rates AS t VALUES (NEW.platform, NEW.space_id, NEW.question_id, n, n_right)
        ON CONFLICT (platform, space_id, question_id)
        DO UPDATE SET answers = t.answers + n, right_answers = t.right_answers + n_right;
        INSERT INTO daily_channel_rates AS t VALUES (NEW.platform, NEW.space_id, NEW.channel_id, n, n_right)
        ON CONFLICT (platform, space_id, channel_id)
        DO UPDATE SET answers = t.answers + n, right_answers = t.right_answers + n_right;
    END IF;
    RETURN NULL;
END $$;

-- deferred to the commit: a reveal claims its round before it takes the space's scoring lock, and a forget-me
-- takes that lock before it changes the rates, so the rates change only where the lock is held (no deadlock)
CREATE CONSTRAINT TRIGGER rounds_daily_rates AFTER UPDATE OF revealed_at ON rounds
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
WHEN (OLD.revealed_at IS NULL AND NEW.revealed_at IS NOT NULL AND NEW.kind = 'daily')
EXECUTE FUNCTION daily_rates_revealed();

CREATE FUNCTION daily_rates_forgotten() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    SELECT platform, space_id, channel_id, question_id INTO r FROM rounds
    WHERE id = OLD.round_id AND kind = 'daily' AND revealed_at IS NOT NULL;
    IF FOUND THEN
        UPDATE daily_question_rates SET answers = answers - 1, right_answers = right_answers - OLD.correct::integer
        WHERE platform = r.platform AND space_id = r.space_id AND question_id = r.question_id;
        UPDATE daily_channel_rates SET answers = answers - 1, right_answers = right_answers - OLD.correct::integer
        WHERE platform = r.platform AND space_id = r.space_id AND channel_id = r.channel_id;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER answers_daily_rates AFTER DELETE ON answers FOR EACH ROW EXECUTE FUNCTION daily_rates_forgotten();
