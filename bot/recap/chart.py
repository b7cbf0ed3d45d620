"""The weekly recap chart: a RecapCard drawn as a PNG with matplotlib's Agg backend (no display, no pyplot).

Four panels: answers per day (correct and wrong, stacked), accuracy by topic (weakest first), the top five
by points, and the hardest question in words. Large fonts, every axis titled and labelled, and the
Okabe-Ito palette (safe for the common colour-vision deficiencies); wrong answers are hatched as well as
coloured, so the bars read without colour too. Text from questions and names is drawn literally (no
mathtext: a `$` in a prompt stays a dollar sign).
"""

from __future__ import annotations

import io
import textwrap

import matplotlib
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.layout_engine import ConstrainedLayoutEngine  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from bot.kernel.chart_style import (  # noqa: E402
    BLUE,
    DPI,
    GREEN,
    GRID,
    HEIGHT,
    INK,
    MAX_TOPICS,
    ORANGE,
    STYLE,
    VERMILLION,
    WIDTH,
    literal,
    short,
)
from bot.recap.cards import answers_text  # noqa: E402
from bot.recap.values import RecapCard  # noqa: E402

matplotlib.use("Agg")  # before anything else of matplotlib: never a display


def draw_recap(card: RecapCard) -> bytes:
    """The recap chart as PNG bytes (1200 x 900). Raises ValueError for a week without answers: there is
    nothing to chart, and a blank chart is never drawn."""
    if card.empty:
        raise ValueError("nothing to chart yet: the week has no answers")
    with matplotlib.rc_context(STYLE):  # type: ignore[arg-type]
        fig = Figure(
            figsize=(WIDTH, HEIGHT),
            dpi=DPI,
            facecolor="white",
            layout=ConstrainedLayoutEngine(h_pad=0.15, w_pad=0.2, hspace=0.08, wspace=0.08),
        )
        FigureCanvasAgg(fig)
        grid = fig.add_gridspec(2, 2)
        share = round(100 * card.correct / card.answered)
        fig.suptitle(
            f"{card.title}\n{answers_text(card.answered)}, {share}% correct",
            fontsize=22,
            fontweight="bold",
            parse_math=False,
        )
        _per_day(fig.add_subplot(grid[0, 0]), card)
        _by_topic(fig.add_subplot(grid[0, 1]), card)
        _top_five(fig.add_subplot(grid[1, 0]), card)
        _hardest(fig.add_subplot(grid[1, 1]), card)
        out = io.BytesIO()
        fig.savefig(out, format="png", dpi=DPI, facecolor="white")
    return out.getvalue()


def _per_day(ax: Axes, card: RecapCard) -> None:
    labels = [f"{d.day:%a}\n{d.day:%d}" for d in card.days]
    right = [d.correct for d in card.days]
    wrong = [d.answered - d.correct for d in card.days]
    x = range(len(labels))
    ax.bar(x, right, color=BLUE, label="correct", edgecolor=INK, linewidth=0.6)
    ax.bar(x, wrong, bottom=right, color=ORANGE, hatch="//", label="wrong", edgecolor=INK, linewidth=0.6)
    ax.set_xticks(list(x), labels)
    ax.set_title("Answers per day")
    ax.set_ylabel("answers")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(axis="y", color=GRID)
    ax.set_axisbelow(True)
    ax.legend(loc="upper left", frameon=False, ncols=2)
    top = max((d.answered for d in card.days), default=0)
    ax.set_ylim(0, max(1, top) * 1.3)


def _by_topic(ax: Axes, card: RecapCard) -> None:
    topics = list(card.topics[:MAX_TOPICS])[::-1]  # weakest at the top
    ax.set_title("Accuracy by topic")
    ax.set_xlabel("% correct")
    ax.set_xlim(0, 100)
    ax.grid(axis="x", color=GRID)
    ax.set_axisbelow(True)
    if not topics:
        ax.set_yticks([])
        return
    values = [100 * t.accuracy for t in topics]
    y = range(len(topics))
    ax.barh(y, values, color=GREEN, edgecolor=INK, linewidth=0.6)
    ax.set_yticks(list(y), [literal(short(t.topic, 18)) for t in topics])
    for i, (value, t) in enumerate(zip(values, topics, strict=True)):
        inside = value > 75
        ax.text(
            value - 2 if inside else value + 2,
            i,
            f"{round(value)}% of {t.answered}",
            va="center",
            ha="right" if inside else "left",
            fontsize=13,
            color="white" if inside else INK,
            parse_math=False,
        )


def _top_five(ax: Axes, card: RecapCard) -> None:
    ax.set_title("Top five (points)")
    ax.set_xlabel("points this week")
    ax.grid(axis="x", color=GRID)
    ax.set_axisbelow(True)
    top = list(card.top)[::-1]
    if not top:
        ax.set_yticks([])
        ax.text(
            0.5, 0.5, "No points scored this week", transform=ax.transAxes, ha="center", va="center", parse_math=False
        )
        return
    y = range(len(top))
    points = [s.points for s in top]
    ax.barh(y, points, color=BLUE, edgecolor=INK, linewidth=0.6)
    names = [f"{len(top) - i}. {short(card.name(s.user_id), 16)}" for i, s in enumerate(top)]
    ax.set_yticks(list(y), [literal(n) for n in names])
    ax.set_xlim(0, max(points) * 1.25)
    for i, s in enumerate(top):
        ax.text(s.points, i, f"  {s.points}", va="center", ha="left", fontsize=13, parse_math=False)


def _hardest(ax: Axes, card: RecapCard) -> None:
    ax.set_axis_off()
    ax.set_title("Hardest question")
    h = card.hardest
    if h is None:
        return
    code = _code_lines(h.code) if h.code else []
    lines = textwrap.wrap(" ".join(h.prompt.split()), 40, max_lines=3 if code else 7, placeholder=" …")
    ax.text(
        0.0,
        0.98,
        "\n".join(lines),
        transform=ax.transAxes,
        va="top",
        ha="left",
        fontsize=14,
        linespacing=1.35,
        parse_math=False,
    )
    if code:
        top = 0.96 - 0.1 * len(lines)
        ax.text(
            0.0,
            top,
            "\n".join(code),
            transform=ax.transAxes,
            va="top",
            ha="left",
            family="monospace",
            fontsize=12,
            linespacing=1.25,
            parse_math=False,
            bbox={"boxstyle": "round,pad=0.4", "facecolor": "#F2F2F2", "edgecolor": GRID},
        )
    share = round(100 * h.accuracy)
    topic = f" · {h.topic}" if h.topic else ""
    ax.text(
        0.0,
        0.0,
        f"{h.correct} of {h.answered} correct ({share}%) · answer {h.correct_letter}\n"
        f"asked {h.local_date:%a %d %b}{topic}",
        transform=ax.transAxes,
        va="bottom",
        ha="left",
        fontsize=14,
        color=VERMILLION,
        fontweight="bold",
        parse_math=False,
    )


def _code_lines(code: str, width: int = 46, most: int = 8) -> list[str]:
    """The first lines of the question's code, each clipped, tabs as spaces; '…' when some are left out."""
    lines = [line.replace("\t", "    ").rstrip() for line in code.strip("\n").splitlines()]
    shown = [line if len(line) <= width else line[: width - 1] + "…" for line in lines[:most]]
    if len(lines) > most:
        shown[-1] = "…"
    return shown
