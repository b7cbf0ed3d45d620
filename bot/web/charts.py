"""The dashboard's charts: simple bar charts drawn as PNG with matplotlib's Agg backend (no display, no
pyplot), as the weekly recap's chart is. Every chart the pages show also has its numbers as a table and a
text alternative; bars carry their values, so they read without colour too."""

from __future__ import annotations

import asyncio
import io
import textwrap
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

TITLE_WIDTH = 70  # characters a line of a chart's title holds (bold, 12 pt, 8 inches wide)
BLUE = "#0072B2"  # Okabe-Ito, as bot/recap/chart.py
ORANGE = "#E69F00"
INK = "#222222"
_LOCK = threading.Lock()  # matplotlib's font cache and state are not for two threads at once


@dataclass(frozen=True)
class Bars:
    """A bar chart: a title, what the bars count, and its rows (label, value, and an optional second
    value drawn as a lighter bar behind it)."""

    title: str
    unit: str  # the value axis' label
    rows: tuple[tuple[str, float], ...]
    percent: bool = False  # values are shares (0..1), shown as %
    horizontal: bool = False
    alt: str = ""  # the text alternative

    @property
    def empty(self) -> bool:
        return not self.rows


def _label(value: float, percent: bool) -> str:
    return f"{100 * value:.0f}%" if percent else f"{value:g}"


def figure(chart: Bars) -> Figure:
    """The chart as a matplotlib Figure on the Agg canvas (no display)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    labels = [label for label, _ in chart.rows] or ["(none yet)"]
    values = [value for _, value in chart.rows] or [0.0]
    height = max(3.0, 0.45 * len(labels) + 1.5) if chart.horizontal else 4.0
    fig = Figure(figsize=(8, height), dpi=100, facecolor="white", layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    if chart.horizontal:
        bars = ax.barh(labels[::-1], values[::-1], color=BLUE, edgecolor=INK, linewidth=0.6)
        ax.set_xlabel(chart.unit)
    else:
        bars = ax.bar(labels, values, color=BLUE, edgecolor=INK, linewidth=0.6)
        ax.set_ylabel(chart.unit)
    value_axis = ax.xaxis if chart.horizontal else ax.yaxis
    ax.bar_label(
        bars, labels=[_label(v, chart.percent) for v in (values[::-1] if chart.horizontal else values)], padding=3
    )
    if chart.percent:
        (ax.set_xlim if chart.horizontal else ax.set_ylim)(0, 1.05)
        ticks = [0, 0.25, 0.5, 0.75, 1.0]
        value_axis.set_ticks(ticks, [f"{int(100 * t)}%" for t in ticks])
    elif all(float(v).is_integer() for v in values):  # counts: no tick at 0.25 answers, and none below 0
        value_axis.set_major_locator(MaxNLocator(integer=True))
        limits = ax.set_xlim if chart.horizontal else ax.set_ylim
        limits(0, None if max(values) > 0 else 1)  # all zero: 0 to 1, not -0.05 to 0.05
    # the title on the figure, from its left edge: above the axes it would start after the longest topic name
    # and run out of the picture; wrapped, so a long one breaks between words instead
    fig.suptitle(textwrap.fill(chart.title, TITLE_WIDTH), x=0.01, ha="left", fontweight="bold", fontsize="medium")
    for text in (*ax.get_xticklabels(), *ax.get_yticklabels()):
        text.set_parse_math(False)  # a `$` in a topic stays a dollar sign
    return fig


def _draw(chart: Bars) -> bytes:
    import matplotlib

    with matplotlib.rc_context({"font.size": 12, "axes.spines.top": False, "axes.spines.right": False}):
        fig = figure(chart)
        out = io.BytesIO()
        fig.savefig(out, format="png", dpi=100, facecolor="white")
    return out.getvalue()


def draw_now(chart: Bars) -> bytes:
    with _LOCK:
        return _draw(chart)


async def draw(chart: Bars) -> bytes:
    """The chart as PNG bytes, drawn in a worker thread (the event loop never waits for matplotlib)."""
    return await asyncio.to_thread(draw_now, chart)


def bars(
    title: str, unit: str, rows: Sequence[tuple[str, float]], *, percent: bool = False, horizontal: bool = False
) -> Bars:
    """A chart with a text alternative naming every bar."""
    listed = "; ".join(f"{label}: {_label(value, percent)}" for label, value in rows) or "nothing yet"
    return Bars(title, unit, tuple(rows), percent, horizontal, f"{title}. {listed}.")
