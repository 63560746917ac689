"""Terminal figures: the matrix screen's figure pane and the re-rank panel's recency sweep,
drawn with textual-plotext from :mod:`memscope.usecases.figures.data` and from a benchmark's
own chart (``adapters.charts``): the numbers ``memscope plot`` draws with matplotlib.

A :class:`FigureSpec` says what to draw (series with their intervals, axes, a marked x);
the ``*_spec`` functions build one from those numbers (:func:`chart_spec` from any chart,
whoever's it is); :class:`FigureView` shows a
title, a coloured legend, the plot and a note, or one plain line when there is nothing
to draw yet or the space is too small. plotext is imported the first time a figure is
drawn, so the app starts as fast without it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import TYPE_CHECKING, Any, TypeGuard

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from memscope.textsafe import printable
from memscope.usecases.figures.data import OKABE_ITO

if TYPE_CHECKING:
    from memscope.triage.triage_matrix import Grid
    from memscope.usecases.figures.data import Curve, RecencySweep
    from memscope.usecases.figures.own import Chart
    from memscope.usecases.runs.loading import RunData

MIN_WIDTH = 36
"""Columns the plot needs to show its axes and a few points."""
MIN_HEIGHT = 8
"""Rows the plot needs (its frame, ticks and some of the 0–1 range)."""


@dataclass(frozen=True)
class PlotSeries:
    """One drawn series: a line (with optional interval whiskers) or a group of bars."""

    label: str
    xs: list[float]
    values: list[float | None]
    colour: str
    low: list[float | None] | None = None
    high: list[float | None] | None = None


@dataclass(frozen=True)
class FigureSpec:
    """Everything a terminal figure shows."""

    title: str
    series: list[PlotSeries]
    kind: str = "lines"
    """``lines`` (one line per series) or ``bars`` (grouped bars, one group per x tick)."""
    x_label: str = ""
    y_label: str = ""
    x_ticks: list[float] = field(default_factory=list)
    x_tick_labels: list[str] = field(default_factory=list)
    y_range: tuple[float, float] = (0.0, 1.0)
    marker: float | None = None
    """An x marked with a vertical line (the current alpha)."""
    marker_label: str = ""
    note: str = ""
    joined: bool = True
    """Whether a ``lines`` figure joins its points: only along an ordered x (levels in a
    meaningful order, numbers); nominal categories (question categories) are points alone."""


def sanitised(spec: FigureSpec) -> FigureSpec:
    """``spec`` with every text from run files (run ids, task names) made printable: plotext
    writes it into ANSI output that is parsed again, so an escape sequence must not reach it."""

    def clean(text: str) -> str:
        return printable(text, keep_newlines=False)

    return replace(
        spec,
        title=clean(spec.title),
        series=[replace(series, label=clean(series.label)) for series in spec.series],
        x_label=clean(spec.x_label),
        y_label=clean(spec.y_label),
        x_tick_labels=[clean(label) for label in spec.x_tick_labels],
        marker_label=clean(spec.marker_label),
        note=clean(spec.note),
    )


def rgb(colour: str) -> tuple[int, int, int]:
    """``#0072B2`` → ``(0, 114, 178)`` (plotext takes RGB triples)."""
    value = colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


def _colour(index: int) -> str:
    return OKABE_ITO[index % len(OKABE_ITO)]


def grid_lines_spec(
    curves: list[Curve],
    x_levels: tuple[str, ...],
    metric_title: str,
    kind: str = "rate",
    names: tuple[str, str, str] = ("X", "Y", "X (visual granularity)"),
    ordered: bool = True,
) -> FigureSpec:
    """The matrix's metric per level of its rows, one line per column level (MemEye: per
    X level, one line per Y). ``names`` = (rows, columns, x-axis label). Rows that are
    categories in no order (``ordered`` False) get points, one colour per column level,
    never lines between them."""
    rows, columns, x_label = names
    if not ordered:
        return FigureSpec(
            title=f"{metric_title} by {rows}, one colour per {columns}",
            series=[
                PlotSeries(curve.label, curve.xs, curve.values, _colour(index))
                for index, curve in enumerate(curves)
            ],
            x_label=x_label,
            x_ticks=list(curves[0].xs) if curves else [],
            x_tick_labels=list(x_levels),
            y_range=_y_range(curves, kind),
            note="the grid above as points (each point's n: its cell's); the categories "
            "have no order, so no lines join them; equal values overlap",
            joined=False,
        )
    return FigureSpec(
        title=f"{metric_title} by {rows} level, one line per {columns}",
        series=[
            PlotSeries(curve.label, curve.xs, curve.values, _colour(index))
            for index, curve in enumerate(curves)
        ],
        x_label=x_label,
        x_ticks=list(curves[0].xs) if curves else [],
        x_tick_labels=list(x_levels),
        y_range=_y_range(curves, kind),
        note="the grid above as lines (each point's n: its cell's); equal values overlap",
    )


def _y_range(curves: list[Curve], kind: str) -> tuple[float, float]:
    """0–1 for rates, −1–1 for a Δ, else from 0 to the largest value."""
    largest = max((v for c in curves for v in c.values if v is not None), default=1.0)
    y_range = (0.0, 1.0) if kind == "rate" else (-1.0, 1.0) if kind == "delta" else (0.0, largest)
    return y_range if y_range[1] > y_range[0] else (0.0, 1.0)


def chart_spec(chart: Chart) -> FigureSpec:
    """A benchmark's own figure (``adapters.charts``), whatever it is: its lines with their
    interval whiskers over the x values, or its bars grouped per category (``_`` read as a
    space). Its y label is left out: the title says what is drawn, and rows are scarce."""
    series = [
        PlotSeries(
            one.label,
            list(one.xs),
            list(one.values),
            _colour(index),
            None if one.low is None else list(one.low),
            None if one.high is None else list(one.high),
        )
        for index, one in enumerate(chart.series)
    ]
    title = f"{chart.title} · {chart.summary}" if chart.summary else chart.title
    if chart.shape == "bars":
        xs = [float(index + 1) for index in range(len(chart.categories))]
        return FigureSpec(
            title=title,
            series=[replace(one, xs=xs) for one in series],
            kind="bars",
            x_label=chart.x_label,
            x_ticks=xs,
            x_tick_labels=[category.replace("_", " ") for category in chart.categories],
            y_range=chart.y_range,
            note=chart.note,
        )
    ticks = sorted({x for one in chart.series for x in one.xs})
    return FigureSpec(
        title=title,
        series=series,
        x_label=chart.x_label,
        x_ticks=ticks,
        x_tick_labels=[f"{x:g}" for x in ticks],
        y_range=chart.y_range,
        note=chart.note,
    )


def sweep_spec(sweep: RecencySweep, alpha: float, word: str = "latest-state") -> FigureSpec:
    """The recency sweep: Latest@K, Rank-Inversion, Stale-Dominance against alpha with the
    paired bootstrap interval, the current ``alpha`` marked (``word``: what the benchmark
    calls its latest-state questions, MemEye's ``Y3``)."""
    return FigureSpec(
        title=f"Run {word} sweep (n={sweep.n}, λ={sweep.lam:.3f}, K={sweep.k})",
        series=[
            PlotSeries(curve.label, curve.xs, curve.values, _colour(index), curve.low, curve.high)
            for index, curve in enumerate(sweep.curves.values())
        ],
        x_label="alpha (1 = similarity only)",
        x_ticks=[0.0, 0.2, 0.4, 0.6, 0.8, 1.0],
        x_tick_labels=["0", "0.2", "0.4", "0.6", "0.8", "1"],
        marker=alpha,
        marker_label=f"grey │: α={alpha:.1f} now",
        note="│ = 95% paired bootstrap interval of the change from α=1",
    )


def draw(plt: Any, spec: FigureSpec) -> None:
    """Draw ``spec`` on a plotext plot object (textual-plotext's ``PlotextPlot.plt``)."""
    plt.clear_figure()
    plt.title(spec.title)
    if spec.kind == "bars":
        values = [[v if _finite(v) else 0.0 for v in series.values] for series in spec.series]
        plt.multiple_bar(
            spec.x_tick_labels or [str(x) for x in spec.series[0].xs],
            values,
            color=[rgb(series.colour) for series in spec.series],
            width=0.8,
        )
    else:
        span = (max(spec.x_ticks) - min(spec.x_ticks)) if len(spec.x_ticks) > 1 else 1.0
        middle = (len(spec.series) - 1) / 2
        for index, series in enumerate(spec.series):
            colour = rgb(series.colour)
            if series.low is not None and series.high is not None:
                # Whiskers side by side, so the intervals of several series stay apart.
                shift = (index - middle) * span * 0.012
                for x, low, high in zip(series.xs, series.low, series.high, strict=True):
                    if _finite(low) and _finite(high):
                        plt.plot([x + shift, x + shift], [low, high], color=colour, marker="│")
        drawn = [
            (
                rgb(series.colour),
                [(x, v) for x, v in zip(series.xs, series.values, strict=True) if _finite(v)],
            )
            for series in spec.series
        ]
        for colour, points in drawn:
            # The line as dense small dots, placed as the points are: plotext's own lines
            # round rows differently and can run a row beside their points (and braille
            # shifts text in fonts without it, the SVG export's among them).
            line = _densified(points) if spec.joined else []
            if line:
                plt.scatter([x for x, _ in line], [v for _, v in line], color=colour, marker="·")
        for colour, points in drawn:  # the points over every line, so none hides one
            if points:
                plt.scatter(
                    [x for x, _ in points], [v for _, v in points], color=colour, marker="●"
                )
        if spec.x_ticks:
            # Room either side, so the first and last whiskers are not drawn on the frame.
            plt.xlim(min(spec.x_ticks) - span * 0.04, max(spec.x_ticks) + span * 0.04)
            plt.xticks(spec.x_ticks, spec.x_tick_labels or None)
    if spec.marker is not None:
        plt.vline(spec.marker, "gray")
    plt.ylim(*spec.y_range)
    if spec.x_label:
        plt.xlabel(spec.x_label)
    if spec.y_label:
        plt.ylabel(spec.y_label)


def _finite(value: float | None) -> TypeGuard[float]:
    """Whether ``value`` can be drawn (None and NaN / inf are left out, never plotted)."""
    return value is not None and math.isfinite(value)


LINE_STEPS = 120
"""Dots per segment of a line (more than any terminal has columns between two points)."""


def _densified(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Points along the straight segments between consecutive ``points``."""
    line: list[tuple[float, float]] = []
    for (x0, y0), (x1, y1) in pairwise(points):
        line.extend(
            (x0 + (x1 - x0) * step / LINE_STEPS, y0 + (y1 - y0) * step / LINE_STEPS)
            for step in range(1, LINE_STEPS)
        )
    return line


def legend(spec: FigureSpec) -> Text:
    """The series names in their colours (drawn outside the plot: inside, it hides points)."""
    text = Text()
    for series in spec.series:
        text.append("● ", series.colour)
        text.append(series.label + "  ")
    if spec.marker_label:
        text.append(spec.marker_label, "dim")
    return text


class FigureView(Vertical):
    """Title and legend, the plot, a note; or one plain line (computing, too small, why not)."""

    DEFAULT_CSS = """
    FigureView {
        height: 1fr;
        min-height: 3;
        padding: 0 1;
    }
    FigureView > .figure-legend, FigureView > .figure-note, FigureView > .figure-message {
        height: auto;
    }
    FigureView > .figure-note, FigureView > .figure-message {
        color: $text-muted;
    }
    FigureView > PlotextPlot {
        height: 1fr;
        min-height: 1;
    }
    """

    def __init__(self, *, hint: str = "", id: str | None = None) -> None:
        super().__init__(id=id)
        self.spec: FigureSpec | None = None
        self.hint = hint
        """What to press to hide the figure (said when it is too small)."""
        self.message = ""
        self._plot: Any = None

    def compose(self) -> ComposeResult:
        yield Static(classes="figure-message")
        yield Static(classes="figure-legend")
        yield Static(classes="figure-note")

    def show_message(self, message: str) -> None:
        """A plain line instead of the figure ("computing …", why there is none)."""
        self.spec, self.message = None, printable(message)
        self._layout()

    def show(self, spec: FigureSpec) -> None:
        """Draw ``spec`` (textual-plotext is imported and mounted the first time)."""
        spec = sanitised(spec)
        self.spec, self.message = spec, ""
        if self._plot is None:
            from textual_plotext import PlotextPlot

            self._plot = PlotextPlot()
            self.mount(self._plot, before=self.query_one(".figure-note"))
        draw(self._plot.plt, spec)
        self._plot.refresh()
        self._layout()

    @property
    def too_small(self) -> bool:
        """Whether the plot area is below :data:`MIN_WIDTH` × :data:`MIN_HEIGHT` (known
        once laid out; before that, assume it fits)."""
        width, height = self.content_size
        if not width or not height:
            return False
        return width < MIN_WIDTH or height - 2 < MIN_HEIGHT  # the legend and note lines

    def on_resize(self) -> None:
        self._layout()

    def _layout(self) -> None:
        spec = self.spec
        message = self.query_one(".figure-message", Static)
        legend_line = self.query_one(".figure-legend", Static)
        note = self.query_one(".figure-note", Static)
        small = spec is not None and self.too_small
        if spec is None or small:
            width, height = self.content_size
            text = self.message
            if small:
                text = (
                    f"The figure needs {MIN_WIDTH}×{MIN_HEIGHT + 2} cells; this pane has "
                    f"{width}×{height}. Enlarge the terminal"
                    + (f", or press {self.hint} to hide it." if self.hint else ".")
                )
            message.update(Text(text))
            message.display = True
            legend_line.display = note.display = False
            if self._plot is not None:
                self._plot.display = False
            return
        message.display = False
        legend_line.update(legend(spec))
        note.update(Text(spec.note))
        legend_line.display = note.display = True
        if self._plot is not None:
            self._plot.display = True


def matrix_figure(
    data: RunData,
    other: RunData | None,
    metric_key: str,
    metric_title: str,
    metric_kind: str,
    grid: Grid | None,
) -> FigureSpec:
    """The matrix screen's figure for the run's benchmark (run it in a worker: it computes).

    The benchmark's own (``Benchmark.figure``): its chart of the run, and of the compared
    run ``other`` when the figure overlays runs. Else the metric per row level, one line
    per column level (MemEye: per X, one line per Y, from the same numbers as ``memscope
    plot heatmap`` for EM and Judge), else from the matrix's ``grid``.

    Raises:
        MemscopeError: the run lacks the data (e.g. no per-cell Judge).
    """
    from memscope.usecases.figures import data as figure_data
    from memscope.usecases.figures.own import charts_of, own_figure

    own = own_figure(data.spec)  # the run's benchmark says which figure is its own
    if own is not None:
        runs = [data] if other is None or not own.overlay else [data, other]
        return chart_spec(charts_of(own, runs)[0])
    from memscope.usecases.benchmarks import coordinate_levels

    if metric_key in ("em", "judge") and any(coordinate_levels(data.spec)):
        # On the x × y coordinates: the same numbers as `memscope plot heatmap`.
        heatmap = figure_data.heatmap_grid(data, metric_key)
        return grid_lines_spec(
            figure_data.memeye_lines(heatmap), heatmap.x_levels, metric_title, metric_kind
        )
    from memscope.usecases.figures.data import Curve

    # Only a grid-lines figure reads the grid; the matrix asks for it once the grid is in.
    assert grid is not None, "the matrix figure needs the matrix's grid"
    axes = data.spec.axes
    row_axis = next(a for a in axes.axes if a.title == grid.row_title)
    column_axis = next(a for a in axes.axes if a.title == grid.column_title)

    xs = [float(index + 1) for index in range(len(grid.rows))]
    curves = []
    for y, _label in grid.columns:
        cells = [grid.cells.get((x, y)) for x, _ in grid.rows]
        curves.append(
            Curve(
                y,
                xs,
                [None if cell is None else cell.value for cell in cells],
                n=[0 if cell is None else cell.n for cell in cells],
            )
        )
    return grid_lines_spec(
        curves,
        tuple(row_axis.short(x) for x, _ in grid.rows),
        metric_title,
        metric_kind,
        (_axis_name(row_axis), _axis_name(column_axis), _axis_label(row_axis)),
        ordered=_ordered(row_axis),
    )


def _ordered(axis: Any) -> bool:
    """Whether an axis's levels have an order a line may follow: numbers (DMV-Bench's
    reach), or a coordinate of the question table (MemEye's X1–X4, Y1–Y3)."""
    return bool(axis.numeric) or any(
        kind == "column" and name in ("x", "y") for kind, name in axis.sources()
    )


def _axis_name(axis: Any) -> str:
    """How a figure names an axis: its letter when it has one (MemEye's X, Y), else its title."""
    return str(axis.key.upper() if len(axis.key) == 1 else axis.title)


def _axis_label(axis: Any) -> str:
    """An x-axis label: ``X (visual granularity)``, or the title alone."""
    name = _axis_name(axis)
    return f"{name} ({axis.title})" if name != axis.title else axis.title
