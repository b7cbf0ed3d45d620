"""bot.cards: the texts and numbers every renderer shows, built once."""

from __future__ import annotations

import datetime as dt

from bot.kernel import cards
from bot.kernel.scoring import LeaderboardRow
from bot.kernel.values import Answer, ChannelConfig, Period, Round, RoundKind
from tests.support.fakes import REF, make_question

T0 = dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)
DAILY = Round(1, RoundKind.DAILY, REF, "q-1", "tensors", T0, local_date=dt.date(2026, 11, 30), message_id="m1")


def answer(user: str, choice: int, minute: int) -> Answer:
    return Answer(1, user, choice, choice == 2, T0 + dt.timedelta(minutes=minute))


def test_a_reveal_counts_the_choices_and_lists_who_was_right_first_first() -> None:
    question = make_question("q-1", answer=2)
    card = cards.reveal_card(DAILY, question, [answer("bob", 2, 5), answer("ann", 2, 1), answer("cy", 0, 2)])
    assert card.title == "Answer: C (Mon 30 Nov)" and card.correct_letter == "C"
    assert card.distribution == (1, 0, 2, 0) and card.correct_users == ("ann", "bob")
    assert card.question_message_id == "m1"
    assert cards.shares(card) == (33, 0, 67, 0)
    eighths = cards.reveal_card(DAILY, question, [answer(f"u{i}", 2 if i else 0, i) for i in range(8)])
    assert cards.shares(eighths) == (12, 0, 88, 0)  # 12.5 rounds half to even, as the renderers always did
    assert cards.shares(cards.reveal_card(DAILY, question, [])) == (0, 0, 0, 0)


def test_verdict_wording() -> None:
    question = make_question("q-2", answer=1)
    right, wrong = cards.verdict(question, 1), cards.verdict(question, 3)
    assert (right.correct, right.chosen_letter, wrong.chosen_letter, wrong.correct_letter) == (True, "B", "D", "B")
    assert cards.verdict_headline(right) == "Correct!"
    assert cards.verdict_headline(wrong) == "Not quite: the answer is B"
    assert cards.verdict_text(right) == "Correct! Because q-2 says so."
    assert (
        cards.verdict_text(wrong)
        == "Not quite: the answer is B. Why not D: q-2 D looks right but is not. Because q-2 says so.\n"
        "You were sure, and it was wrong: this one comes back first in your next review."
    )
    unsure = cards.verdict(question, 3, sure=False)
    assert cards.verdict_text(unsure) == (
        "Not quite: the answer is B. Why not D: q-2 D looks right but is not. Because q-2 says so."
    )
    assert cards.verdict_text(cards.verdict(question, 1, sure=False)) == "Correct! Because q-2 says so."
    assert "B" in cards.locked_in_text("B") and "right" in cards.locked_in_text("B")


def test_question_card_says_when_the_answer_comes() -> None:
    question = make_question("q-1")
    closes = T0 + dt.timedelta(hours=3)
    windowed = cards.question_card(
        Round(1, RoundKind.DAILY, REF, "q-1", "tensors", T0, dt.date(2026, 11, 30), closes_at=closes),
        question,
        ChannelConfig(ref=REF, timezone="Europe/Berlin", reactions=False),
    )
    assert windowed.title == "Daily PyTorch question, Mon 30 Nov 2026" and not windowed.reactions
    assert windowed.reveal_note == "One answer each; it locks. The answer is revealed Mon 30 Nov 13:00 (Europe/Berlin)."
    stamp = windowed.reveal_text(lambda at: f"<{at:%H:%M} UTC>")  # a platform's own timestamp markup
    assert stamp == "One answer each; it locks. The answer is revealed <12:00 UTC>."
    paused = cards.question_card(DAILY, question, ChannelConfig(ref=REF, paused=True))
    assert paused.reveal_note == "One answer each; it locks. The answer is revealed when an admin reveals it."
    assert paused.reveal_text(str) == paused.reveal_note  # no instant promised (DAILY has none): the note
    mine = Round(2, RoundKind.PRACTICE, REF, "q-1", "tensors", T0, user_id="ann")
    practice = cards.question_card(mine, question, None)
    assert practice.title == "Practice: Tensors and dtypes" and practice.reveal_note is None
    assert practice.reveal_text(str) is None
    own = Round(3, RoundKind.DAILY, REF, "onboarding/deploy-3", "deploy", T0, dt.date(2026, 11, 30))
    assert cards.question_card(own, question, None).title == "Daily question, Mon 30 Nov 2026"  # a team's own pack


def test_leaderboard_labels() -> None:
    day = dt.date(2026, 11, 30)
    row = LeaderboardRow(1, "ann", 10, 1, 1)
    assert cards.leaderboard_card(Period.WEEK, day, "2026-W49", [row], None).title == "Leaderboard: week 2026-W49"
    month = cards.leaderboard_card(Period.MONTH, day, "2026-11", [], row)
    assert month.title == "Leaderboard: November 2026" and month.rows == () and month.me == row
    assert cards.leaderboard_card(Period.ALL, day, "all", [], None).period_label == "all time"


def test_the_practice_verdict_says_why_the_chosen_wrong_choice_fails() -> None:
    question = make_question("q-1", answer=2)
    wrong = cards.verdict(question, 0)
    assert wrong.why_wrong == "q-1 A looks right but is not."
    text = cards.verdict_text(wrong)
    assert text.startswith("Not quite: the answer is C. Why not A: q-1 A looks right but is not.")
    assert text.endswith(f"{question.explanation}\n{cards.CONFIDENT_MISS}")  # answered sure: a confident miss
    assert cards.verdict_text(cards.verdict(question, 0, sure=False)).endswith(question.explanation)
    right = cards.verdict(question, 2)
    assert right.why_wrong == "" and "Why not" not in cards.verdict_text(right)


def test_the_reveal_explains_the_most_chosen_wrong_choice() -> None:
    question = make_question("q-1", answer=2)
    picks = [answer("a", 0, 1), answer("b", 3, 2), answer("c", 3, 3), answer("d", 2, 4)]
    card = cards.reveal_card(DAILY, question, picks)
    assert card.common_wrong == ("D", "q-1 D looks right but is not.")
    assert cards.common_wrong_text(card) == "Most chosen wrong answer, D: q-1 D looks right but is not."
    tie = cards.reveal_card(DAILY, question, [answer("a", 3, 1), answer("b", 0, 2)])
    assert tie.common_wrong is not None and tie.common_wrong[0] == "A"  # a tie goes to the earlier letter
    everyone_right = cards.reveal_card(DAILY, question, [answer("a", 2, 1)])
    assert everyone_right.common_wrong is None and cards.common_wrong_text(everyone_right) == ""


def test_time_marks_keep_a_platforms_markup_out_of_the_texts_escaping() -> None:
    times = cards.TimeMarks(lambda at: f"<t:{int(at.timestamp())}:F>")
    text = f"Topic <b> & more; next {times.mark(T0)}, then {times.mark(T0 + dt.timedelta(days=1))}"
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")  # as Slack's escape does
    stamp = int(T0.timestamp())
    assert times.fill(escaped) == f"Topic &lt;b&gt; &amp; more; next <t:{stamp}:F>, then <t:{stamp + 86400}:F>"
