"""The weekly recap's texts: the plain note, the chart's alt text and their pieces."""

from __future__ import annotations

import datetime as dt

from bot.recap.values import RecalledMisses, RecapCard

ALT_LIMIT = 1000  # Slack's alt text and Discord's attachment description both stay under 1,024


NOTHING = "nothing to chart yet"


RECALLED_MIN = 5  # once-missed questions back a week or more later before their share is shown (as /quiz progress)


def _span(start: dt.date, end: dt.date) -> str:
    if start.year != end.year:
        return f"{start:%d %b %Y} – {end:%d %b %Y}"
    if start.month != end.month:
        return f"{start:%d %b} – {end:%d %b %Y}"
    return f"{start:%d}–{end:%d %b %Y}"


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def answers_text(n: int) -> str:
    return f"{n} answer" if n == 1 else f"{n} answers"


def _pct(correct: int, answered: int) -> str:
    return f"{round(100 * correct / answered)}%" if answered else "-"


def recap_text(card: RecapCard) -> str:
    """The message that goes with the chart (or alone, when the week had no answers). Names, not mentions."""
    if card.empty:
        return f"{card.title}: {NOTHING}. No one answered a daily question in the past week."
    lines = [f"{card.title}: {answers_text(card.answered)}, {_pct(card.correct, card.answered)} correct."]
    if card.top:
        best = ", ".join(f"{_clip(card.name(s.user_id), 40)} ({s.points})" for s in card.top)
        lines.append(f"Top five: {best}.")
    if card.recalled is not None and card.recalled.missed:
        lines.append(recalled_text(card.recalled))
    return "\n".join(lines)


def recalled_text(recalled: RecalledMisses) -> str:
    """The space-wide line: the share of once-missed daily questions recalled a week or more later."""
    head = "Once-missed questions recalled a week or more later (everyone, so far)"
    back, right = recalled.came_back, recalled.right
    if back >= RECALLED_MIN:
        return f"{head}: {right} of {back} ({_pct(right, back)})."
    if back == 0:
        return f"{head}: none has come back a week or more later yet ({recalled.missed} missed)."
    need = RECALLED_MIN - back
    return f"{head}: {right} of {back} so far; a share needs {need} more to come back."


def recap_alt_text(card: RecapCard) -> str:
    """What the chart shows, in words (alt text for screen readers), at most ALT_LIMIT characters."""
    if card.empty:
        return f"{card.title}: {NOTHING}."
    parts = [f"Chart, {card.title}."]
    parts.append("Answers per day: " + ", ".join(f"{d.day:%a} {d.answered}" for d in card.days) + ".")
    if card.topics:
        parts.append(
            "Accuracy by topic: " + ", ".join(f"{t.topic} {_pct(t.correct, t.answered)}" for t in card.topics) + "."
        )
    if card.top:
        parts.append(
            "Top five: " + ", ".join(f"{_clip(card.name(s.user_id), 40)} {s.points} points" for s in card.top) + "."
        )
    if card.hardest:
        h = card.hardest
        parts.append(
            f"Hardest question ({_pct(h.correct, h.answered)} of {h.answered} correct, answer "
            f"{h.correct_letter}): {_clip(h.prompt, 200)}"
        )
    return _clip(" ".join(parts), ALT_LIMIT)
