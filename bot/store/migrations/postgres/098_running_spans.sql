-- One clock for due work (issue 30): which processes were running when, so a day missed beyond the grace is
-- told as downtime only when no process was running at its due time. Each process's tick extends its span
-- (one row per platform it runs) to the tick's time; a process that starts, or comes back after a pause,
-- begins a new span.
CREATE TABLE running_spans (
    span     TEXT NOT NULL,                -- a process's run, a random id
    platform TEXT NOT NULL,
    since_at TIMESTAMPTZ NOT NULL,
    seen_at  TIMESTAMPTZ NOT NULL,         -- the latest tick of that run
    PRIMARY KEY (span, platform)
);
CREATE INDEX running_spans_seen ON running_spans (platform, seen_at);
