"""``memscope plot`` of a benchmark's own figure: any :class:`~memscope.adapters.charts.Chart`
drawn with matplotlib, lines (with their interval as a band) or grouped bars (each bar's n
written in it), one panel per chart.

pyplot is passed in by :mod:`memscope.usecases.figures.plots`, the one module that imports
matplotlib (only when a figure is drawn).
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

from memscope.usecases.figures.data import OKABE_ITO

if TYPE_CHECKING:
    from memscope.adapters.charts import Chart, ChartSeries

PANEL_WIDTH = {"lines": 4.2, "bars": 4.6}
"""Inches per panel: bars need room for their categories' names."""
BAR_GROUP = 0.76
"""The width of one category's bars together (of the 1 between categories)."""


def draw_charts(plt: ModuleType, charts: list[Chart], titles: list[str]) -> Any:
    """A matplotlib figure of ``charts`` side by side, each titled by ``titles``'s entry."""
    width = PANEL_WIDTH.get(charts[0].shape, 4.2) * len(charts)
    fig, axes = plt.subplots(1, len(charts), figsize=(width, 3.0), squeeze=False)
    for ax, chart, title in zip(axes[0], charts, titles, strict=True):
        if chart.shape == "bars":
            _bars(ax, chart)
        else:
            _lines(ax, chart)
        if chart.x_label:
            ax.set_xlabel(chart.x_label)
        if chart.y_label:
            ax.set_ylabel(chart.y_label)
        ax.set_title(title)
        ax.legend(frameon=False, fontsize=7)
    return fig


def _number(value: float) -> float | int:
    """Whole numbers as ints, so ticks read ``2``, not ``2.0``."""
    return int(value) if float(value).is_integer() else value


def _lines(ax: Any, chart: Chart) -> None:
    for index, series in enumerate(chart.series):
        xs = [_number(x) for x in series.xs]
        colour = OKABE_ITO[index % len(OKABE_ITO)]
        ax.plot(xs, list(series.values), marker="o", markersize=3, color=colour, label=series.label)
        if series.low is not None and series.high is not None:
            ax.fill_between(
                xs, list(series.low), list(series.high), color=colour, alpha=0.2, linewidth=0
            )
        ax.set_xticks(xs)
    low, high = chart.y_range
    margin = (high - low) * 0.02
    ax.set_ylim(low - margin, high + margin)


def _bars(ax: Any, chart: Chart) -> None:
    width = BAR_GROUP / max(len(chart.series), 1)
    middle = (len(chart.series) - 1) / 2
    for offset, series in enumerate(chart.series):
        xs = [i + (offset - middle) * width for i in range(len(chart.categories))]
        heights = [0.0 if v is None else v for v in series.values]
        colour = OKABE_ITO[offset % len(OKABE_ITO)]
        ax.bar(xs, heights, width, color=colour, label=series.label)
        _counts(ax, xs, series, chart.y_range[0])
    labels = [category.replace("_", "\n") for category in chart.categories]
    ax.set_xticks(range(len(chart.categories)), labels, fontsize=7)
    low, high = chart.y_range
    ax.set_ylim(low, high + (high - low) * 0.05)


def _counts(ax: Any, xs: list[float], series: ChartSeries, bottom: float) -> None:
    """Each bar's n, written upwards at its foot."""
    for x, n in zip(xs, series.n or (), strict=False):
        ax.text(x, bottom + 0.02, f"n={n}", ha="center", va="bottom", fontsize=6, rotation=90)
