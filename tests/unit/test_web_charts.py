"""The dashboard's bar charts: their value axis reads as what the bars count."""

from __future__ import annotations

from matplotlib.text import Text

from bot.web.charts import Bars, draw_now, figure


def _ticks(chart: Bars) -> list[float]:
    fig = figure(chart)
    fig.canvas.draw()
    ax = fig.axes[0]
    return list(ax.get_xticks() if chart.horizontal else ax.get_yticks())


def test_a_chart_of_counts_has_whole_number_ticks() -> None:
    weeks = Bars("Participation", "answers", (("01 Dec", 2.0), ("08 Dec", 0.0), ("15 Dec", 1.0)))
    ticks = _ticks(weeks)
    assert ticks and all(float(t).is_integer() for t in ticks), ticks
    assert 2.0 in ticks and min(ticks) == 0.0


def test_a_chart_of_nothing_yet_counts_from_zero_in_whole_numbers() -> None:
    for horizontal in (False, True):
        weeks = Bars("Participation", "answers", (("01 Dec", 0.0), ("08 Dec", 0.0)), horizontal=horizontal)
        ticks = _ticks(weeks)
        assert ticks == [0.0, 1.0], ticks


def test_a_horizontal_chart_of_counts_too() -> None:
    ticks = _ticks(Bars("Asked", "questions", (("autograd", 3.0), ("tensors", 1.0)), horizontal=True))
    assert ticks and all(float(t).is_integer() for t in ticks), ticks


def test_a_chart_of_shares_keeps_its_percent_ticks() -> None:
    shares = Bars("Accuracy", "share right", (("autograd", 0.5), ("tensors", 1.0)), percent=True, horizontal=True)
    assert _ticks(shares) == [0, 0.25, 0.5, 0.75, 1.0]


def test_a_chart_of_fractional_values_keeps_fractional_ticks() -> None:
    ticks = _ticks(Bars("Average", "answers a day", (("mon", 0.4), ("tue", 0.7))))
    assert any(not float(t).is_integer() for t in ticks), ticks


def test_the_chart_draws_as_a_png() -> None:
    assert draw_now(Bars("Participation", "answers", (("01 Dec", 2.0),))).startswith(b"\x89PNG\r\n\x1a\n")


def test_a_long_title_beside_long_topic_names_stays_whole_within_the_picture() -> None:
    title = "Memory by topic in 30 days if you stop (predicted recall)"
    rows = (("Extending PyTorch: custom ops, autograd functions and gradient checks (3/3)", 0.53), ("Autograd", 0.6))
    fig = figure(Bars(title, "predicted recall", rows, percent=True, horizontal=True))
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    picture = fig.bbox
    titles = [t for t in fig.findobj(Text) if "Memory" in t.get_text()]
    assert [" ".join(t.get_text().split()) for t in titles] == [title]
    box = titles[0].get_window_extent(renderer)
    assert picture.x0 <= box.x0 and box.x1 <= picture.x1 and box.y1 <= picture.y1, (box, picture)
