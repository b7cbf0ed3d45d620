"""The learning report's chart: a ProgressCard drawn as a PNG with matplotlib's Agg backend (no display, no
pyplot), in the weekly recap's style (bot/recap/chart.py): large fonts, every axis titled and labelled, the
Okabe-Ito palette, and hatching where colour alone would carry meaning.

Four panels: retention by week beside the target; FSRS's predicted recall against the observed right-rate;
right-rates when sure, when not sure and of missed questions back a week or more later; memory by topic now
and in 30 days. A figure from too few answers is drawn hollow and labelled with how many more it needs.
"""

from __future__ import annotations

import io
from typing import Any, Literal

import matplotlib
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.layout_engine import ConstrainedLayoutEngine  # noqa: E402
from matplotlib.ticker import PercentFormatter  # noqa: E402

from bot.kernel.chart_style import (  # noqa: E402
    BLUE,
    DPI,
    GREEN,
    GRID,
    HEIGHT,
    INK,
    MAX_TOPICS,
    ORANGE,
    SKY,
    VERMILLION,
    WIDTH,
    literal,
    short,
)
from bot.kernel.chart_style import STYLE as SHARED_STYLE  # noqa: E402
from bot.practice.progress import (  # noqa: E402
    COMEBACK_DAYS,
    FORECAST_DAYS,
    MIN_BUCKET,
    MIN_COMEBACKS,
    MIN_RATE,
    MIN_TOPIC,
    MIN_WEEK,
    Tally,
)
from bot.practice.progress_cards import ProgressCard, pct, topic_name  # noqa: E402

matplotlib.use("Agg")  # before anything else of matplotlib: never a display


# the recap's look, with smaller tick and legend text: this chart's panels hold more labels
STYLE: dict[str, Any] = {**SHARED_STYLE, "xtick.labelsize": 12, "legend.fontsize": 12}


def draw_progress(card: ProgressCard) -> bytes:
    """The report's chart as PNG bytes (1200 x 900). Raises ValueError for an empty report: a blank chart is
    never drawn."""
    if card.empty:
        raise ValueError("nothing to chart yet: no answer has been revealed")
    with matplotlib.rc_context(STYLE):  # type: ignore[arg-type]
        fig = Figure(
            figsize=(WIDTH, HEIGHT),
            dpi=DPI,
            facecolor="white",
            layout=ConstrainedLayoutEngine(h_pad=0.15, w_pad=0.2, hspace=0.1, wspace=0.1),
        )
        FigureCanvasAgg(fig)
        grid = fig.add_gridspec(2, 2)
        total = card.counts.retention
        share = total.rate(MIN_RATE)
        held = (
            f"{total.right} of {total.answered} reviews that came due were right ({pct(share)})"
            if share is not None
            else f"{total.answered} reviews came due so far"
        )
        fig.suptitle(f"{card.title}\n{held}", fontsize=21, fontweight="bold", parse_math=False)
        _retention(fig.add_subplot(grid[0, 0]), card)
        _calibration(fig.add_subplot(grid[0, 1]), card)
        _rates(fig.add_subplot(grid[1, 0]), card)
        _topics(fig.add_subplot(grid[1, 1]), card)
        out = io.BytesIO()
        fig.savefig(out, format="png", dpi=DPI, facecolor="white")
    return out.getvalue()


def _percent_axis(ax: Axes, axis: Literal["x", "y"]) -> None:
    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_formatter(PercentFormatter(1.0, decimals=0))
    (ax.set_ylim if axis == "y" else ax.set_xlim)(0, 1.12 if axis == "y" else 1.0)
    ax.grid(axis=axis, color=GRID)
    ax.set_axisbelow(True)


def _empty(ax: Axes, text: str) -> None:
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", fontsize=13, wrap=True, parse_math=False)


def _retention(ax: Axes, card: ProgressCard) -> None:
    ax.set_title("Retention by week")
    ax.set_ylabel("reviews that came due, right")
    _percent_axis(ax, "y")
    ax.set_ylim(0, 1.3)
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    weeks = card.counts.weeks
    ax.axhline(card.target, color=VERMILLION, linestyle="--", linewidth=2, label=f"target {pct(card.target)}")
    if not weeks:
        ax.set_xticks([])
        _empty(ax, f"No review has come due yet\n(a rate needs {MIN_RATE})")
        ax.legend(loc="upper left", frameon=False)
        return
    x = list(range(len(weeks)))
    for i, week in enumerate(weeks):
        t = week.reviews
        if t.answered == 0:
            continue
        share = t.right / t.answered
        enough = t.answered >= MIN_WEEK
        ax.bar(
            i,
            share,
            color=BLUE if enough else "white",
            edgecolor=BLUE if not enough else INK,
            hatch=None if enough else "//",
            linewidth=1.2,
        )
        note = f"{t.right}/{t.answered}" if enough else f"{t.right}/{t.answered}\n+{t.needs(MIN_WEEK)}"
        ax.text(i, min(share, 1.0) + 0.02, note, ha="center", va="bottom", fontsize=11, parse_math=False)
    ax.set_xticks(x, [f"{w.start:%d %b}" for w in weeks], rotation=30 if len(weeks) > 4 else 0)
    ax.set_xlabel("week of (hollow, +n: n more reviews for a rate)")
    ax.legend(loc="upper left", frameon=False)


def _calibration(ax: Axes, card: ProgressCard) -> None:
    ax.set_title("Predicted recall vs right")
    ax.set_xlabel("FSRS's predicted recall")
    ax.set_ylabel("observed right")
    _percent_axis(ax, "y")
    ax.set_ylim(0, 1.3)  # room above 100% for the legend and the labels
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_xlim(0, 1.02)
    ax.grid(axis="x", color=GRID)
    ax.plot([0, 1], [0, 1], color=GRID, linestyle="-", linewidth=2, label="perfectly calibrated")
    filled = [b for b in card.counts.buckets if b.reviews.answered and b.predicted is not None]
    if not filled:
        _empty(ax, "No review with a prediction yet\n(a question's second answer has one)")
        ax.legend(loc="upper left", frameon=False)
        return
    for i, b in enumerate(filled):
        t = b.reviews
        enough = t.answered >= MIN_BUCKET
        observed = t.right / t.answered
        ax.scatter(
            [b.predicted or 0.0],
            [observed],
            s=80 + 20 * min(t.answered, 30),
            facecolors=GREEN if enough else "white",
            edgecolors=GREEN if not enough else INK,
            linewidths=1.5,
            zorder=3,
        )
        label = f"{t.right}/{t.answered}" + ("" if enough else f" (+{t.needs(MIN_BUCKET)})")
        ax.annotate(
            label,
            (b.predicted or 0.0, observed),
            textcoords="offset points",
            xytext=(0, 16 if i % 2 == 0 else -26),
            ha="center",
            fontsize=11,
            parse_math=False,
            annotation_clip=False,
        )
    ax.legend(loc="upper left", frameon=False)


def _rates(ax: Axes, card: ProgressCard) -> None:
    counts = card.counts
    rows: list[tuple[str, Tally, int]] = [
        ("sure", counts.sure, MIN_RATE),
        ("not sure", counts.unsure, MIN_RATE),
        (f"missed, back {COMEBACK_DAYS}+ days", counts.misses.tally, MIN_COMEBACKS),
    ]
    ax.set_title("Right when…")
    ax.set_xlabel("share right")
    _percent_axis(ax, "x")
    y = list(range(len(rows)))[::-1]
    for pos, (_label, t, least) in zip(y, rows, strict=True):
        enough = t.answered >= least
        share = t.right / t.answered if t.answered else 0.0
        ax.barh(
            pos,
            share,
            color=ORANGE if enough else "white",
            edgecolor=ORANGE if not enough else INK,
            hatch=None if enough else "//",
            linewidth=1.2,
        )
        if enough:
            note = f"{t.right} of {t.answered} ({pct(share)})"
        elif t.answered:
            note = f"{t.right} of {t.answered}: needs {t.needs(least)} more"
        else:
            note = f"none yet: needs {least}"
        ax.text(0.02, pos, note, va="center", ha="left", fontsize=12, parse_math=False)
    ax.set_yticks(y, [label for label, _, _ in rows])


def _topics(ax: Axes, card: ProgressCard) -> None:
    ax.set_title("Memory by topic")
    ax.set_xlabel("predicted recall if you stop now")
    _percent_axis(ax, "x")
    shown = [t for t in card.topics if t.now is not None and t.later is not None][:MAX_TOPICS][::-1]
    if not shown:
        ax.set_yticks([])
        _empty(ax, f"Too few questions seen in any topic yet\n(a topic needs {MIN_TOPIC})")
        return
    y = list(range(len(shown)))
    ax.barh([p + 0.2 for p in y], [t.now or 0.0 for t in shown], height=0.4, color=SKY, edgecolor=INK, label="now")
    ax.barh(
        [p - 0.2 for p in y],
        [t.later or 0.0 for t in shown],
        height=0.4,
        color=BLUE,
        edgecolor=INK,
        hatch="..",
        label=f"in {FORECAST_DAYS} days",
    )
    ax.set_yticks(y, [literal(short(topic_name(t.topic), 18)) for t in shown])
    ax.set_ylim(-0.6, len(shown) + 0.2)  # room above the bars for the legend
    ax.legend(loc="upper right", frameon=False, ncols=2)
