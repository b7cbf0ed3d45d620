"""`/quiz forget-me`: what is deleted, the confirmation it needs, and what the learner is told afterwards."""

from __future__ import annotations

from dataclasses import dataclass, fields

FORGET_WHAT = (
    "This deletes everything studybot keeps about you in this workspace or server: your answers (daily, "
    "practice and review), your memory cards and review history, your review limit, pause and plan, your "
    "streak, your points on every leaderboard, your reminders, your suggested questions (approved ones stay in "
    "the pack, without your name), your reports of problems with questions and your team membership. It cannot "
    "be undone, and nothing "
    "has been deleted yet."
)


TEXT_HINT = "To go ahead, type /quiz forget-me confirm."


@dataclass(frozen=True)
class Forgotten:
    """How many of a learner's rows one forget-me deleted in a space (Store.forget_learner)."""

    answers: int = 0
    rounds: int = 0  # their practice and review rounds
    cards: int = 0
    reviews: int = 0  # review log entries
    scores: int = 0  # leaderboard rows (one per week, month and all time)
    streaks: int = 0
    reminders: int = 0
    suggestions: int = 0  # their suggested questions (pending or decided)
    reports: int = 0  # their reports of problems with questions (open or resolved)
    teams: int = 0  # their team membership
    live: int = 0  # their live-game standing
    seasons: int = 0  # their places in archived seasons
    review_settings: int = 0  # their review limit or pause, and their interview plan

    @property
    def anything(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))


@dataclass(frozen=True)
class ForgetPrompt:
    """forget-me without its confirmation: the explanation; nothing changed."""

    text: str


@dataclass(frozen=True)
class ForgetDone:
    """forget-me confirmed: what was deleted, as the learner reads it."""

    forgotten: Forgotten
    text: str


def forget_prompt(how_to_confirm: str) -> ForgetPrompt:
    return ForgetPrompt(f"{FORGET_WHAT} {how_to_confirm}")


def forgotten_text(f: Forgotten) -> str:
    if not f.anything:
        return "There was nothing of yours to delete here; studybot keeps nothing about you in this space."
    parts = [
        f"{f.answers} answer{'s' if f.answers != 1 else ''}",
        f"{f.cards} memory card{'s' if f.cards != 1 else ''}",
        f"{f.reviews} review log entr{'ies' if f.reviews != 1 else 'y'}",
    ]
    parts += [f"{f.suggestions} suggested question{'s' if f.suggestions != 1 else ''}"] if f.suggestions else []
    parts += [f"{f.reports} report{'s' if f.reports != 1 else ''}"] if f.reports else []
    parts += ["your reminders"] if f.reminders else []
    parts += ["your team membership"] if f.teams else []
    parts += ["your review settings and plan"] if f.review_settings else []
    parts += ["your live-game points"] if f.live else []
    return (
        f"Done: deleted {', '.join(parts)}, your streak and your leaderboard points here. "
        "Leaderboards no longer list you; anything you answer from now on starts afresh."
    )
