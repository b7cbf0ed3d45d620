"""Prometheus metrics of the bot: answers recorded, posts sent, post failures, scheduler lag."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

LAG_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600)


class Metrics:
    """One registry per bot process (tests make their own, so counts never leak between them)."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        self.answers_recorded = Counter(
            "studybot_answers_recorded",
            "Answers committed to the store",
            ["platform", "kind"],
            registry=self.registry,
        )
        self.posts_sent = Counter(
            "studybot_posts_sent", "Daily questions posted to a channel", ["platform"], registry=self.registry
        )
        self.post_failures = Counter(
            "studybot_post_failures", "Daily posts the platform did not accept", ["platform"], registry=self.registry
        )
        self.scheduler_lag = Histogram(
            "studybot_scheduler_lag_seconds",
            "How late a daily post started after its scheduled time",
            buckets=LAG_BUCKETS,
            registry=self.registry,
        )

        self._answers_pending: dict[tuple[str, str], int] = {}
        self._children: dict[tuple[str, str], object] = {}

    def answer_recorded(self, platform: str, kind: str) -> None:
        """Count one committed answer. This runs for every answer, so it only adds to a plain dict; the
        counts reach the Prometheus counter (a labelled child, a lock) when the metrics are read."""
        key = (platform, kind)
        pending = self._answers_pending
        pending[key] = pending.get(key, 0) + 1

    def _flush(self) -> None:
        pending, self._answers_pending = self._answers_pending, {}
        for (platform, kind), n in pending.items():
            self.answers_recorded.labels(platform, kind).inc(n)

    def post_sent(self, platform: str) -> None:
        """Count one daily question posted (the labelled child is cached, as for answers)."""
        self._child(self.posts_sent, platform).inc()  # type: ignore[attr-defined]

    def post_failed(self, platform: str) -> None:
        self._child(self.post_failures, platform).inc()  # type: ignore[attr-defined]

    def _child(self, metric: Counter, platform: str) -> object:
        key = (metric._name, platform)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(platform)
        return child

    def exposition(self) -> bytes:
        self._flush()
        return generate_latest(self.registry)
