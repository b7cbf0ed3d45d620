"""Live games in a channel: a run of questions, each open for a few seconds, scored by correctness and speed."""
