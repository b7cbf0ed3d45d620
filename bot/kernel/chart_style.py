"""The look every chart of the bot shares (the weekly recap's, the learning report's): the Okabe-Ito palette
(Okabe & Ito 2008, "Color Universal Design": safe for the common colour-vision deficiencies), large fonts,
1200 x 900 PNGs, and text from questions and names drawn literally (no mathtext: a `$` stays a dollar sign).
Plain values: matplotlib is imported by the chart modules themselves, on the drawing thread."""

from __future__ import annotations

from typing import Any

BLUE = "#0072B2"
ORANGE = "#E69F00"
GREEN = "#009E73"
SKY = "#56B4E9"
VERMILLION = "#D55E00"
INK = "#222222"
GRID = "#DDDDDD"

WIDTH, HEIGHT, DPI = 12, 9, 100  # 1200 x 900 pixels
MAX_TOPICS = 8  # topics one panel shows at most

STYLE: dict[str, Any] = {
    "font.size": 14,
    "axes.titlesize": 17,
    "axes.titleweight": "bold",
    "axes.labelsize": 14,
    "xtick.labelsize": 13,
    "ytick.labelsize": 13,
    "legend.fontsize": 13,
    "axes.edgecolor": INK,
    "text.color": INK,
    "axes.labelcolor": INK,
    "xtick.color": INK,
    "ytick.color": INK,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def literal(text: str) -> str:
    """Text for tick labels (which have no parse_math switch): a `$` escaped so mathtext leaves it alone."""
    return text.replace("\\", "\\\\").replace("$", r"\$")


def short(text: str, limit: int) -> str:
    """`text` on one line, cut to `limit` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
