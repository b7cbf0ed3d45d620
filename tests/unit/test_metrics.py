"""Answer counts reach the exposition exactly once, by platform and kind."""

from __future__ import annotations

from bot.kernel.metrics import Metrics
from bot.kernel.values import RoundKind


def test_answers_counted_per_platform_and_kind_appear_once_in_the_exposition():
    metrics = Metrics()
    for _ in range(1500):
        metrics.answer_recorded("slack", RoundKind.DAILY)
    metrics.answer_recorded("discord", RoundKind.PRACTICE)
    body = metrics.exposition().decode()
    assert 'studybot_answers_recorded_total{kind="daily",platform="slack"} 1500.0' in body
    assert 'studybot_answers_recorded_total{kind="practice",platform="discord"} 1.0' in body
    metrics.answer_recorded("slack", RoundKind.DAILY)
    body = metrics.exposition().decode()
    assert 'studybot_answers_recorded_total{kind="daily",platform="slack"} 1501.0' in body
    assert 'studybot_answers_recorded_total{kind="practice",platform="discord"} 1.0' in body
