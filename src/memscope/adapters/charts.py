"""A benchmark's own figure: code in its package that describes a chart, which memscope draws.

A spec may declare one figure (``Benchmark.figure``), a :class:`BenchmarkFigure` whose hook,
given as a callable or a ``"module:function"`` string imported on first use, computes a
:class:`Chart` from stored runs:

- ``chart(runs: Sequence[SectionRun]) -> Chart``: the runs are what a report section is lent
  (``adapters.sections.SectionRun``); one run, or with ``overlay`` every run drawn together
  (``memscope plot NAME A B``, and in the app the compared run beside the open one).

A chart is plain data in one of two generic shapes, ``lines`` (series over a numeric x,
with optional interval whiskers) or ``bars`` (grouped bars, one group per category). The
app draws it in the terminal, ``memscope plot`` with matplotlib; neither knows whose it is.
DMV-Bench's retention curve and CUE-Mem's explicit/implicit bars are written this way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeAlias

if TYPE_CHECKING:
    from memscope.adapters.sections import SectionRun
    from memscope.adapters.spec import Benchmark

ChartShape = Literal["lines", "bars"]
"""What a chart draws: a line per series over x, or grouped bars per category."""

PLOT_KINDS = ("heatmap", "recency", "codes", "figure")
"""``memscope plot``'s own figures (``figure``: each run's benchmark's own): no benchmark's
figure may take one of these names."""


@dataclass(frozen=True)
class ChartSeries:
    """One series of a chart: a line over ``xs``, or the bars of one setting, one value per
    category. ``low``/``high``: its interval per value; ``n``: what each value is over
    (None where undefined, in every list)."""

    label: str
    values: tuple[float | None, ...]
    xs: tuple[float, ...] = ()
    """A line's x values (a bar chart places its values on its categories instead)."""
    low: tuple[float | None, ...] | None = None
    high: tuple[float | None, ...] | None = None
    n: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Chart:
    """A figure's description, for any front end to draw (see the module's docstring)."""

    title: str
    series: tuple[ChartSeries, ...]
    shape: ChartShape = "lines"
    categories: tuple[str, ...] = ()
    """A bar chart's groups, in order (``_`` read as a word break where a label wraps)."""
    x_label: str = ""
    y_label: str = ""
    """The y axis's name (``plot``; the terminal figure leaves it to the title)."""
    y_range: tuple[float, float] = (0.0, 1.0)
    summary: str = ""
    """One figure about the run said after the title (``EI-Gap 0.12``)."""
    note: str = ""
    """A line under the terminal figure (how many each point is over, what ``│`` marks)."""


ChartHook: TypeAlias = Callable[["Sequence[SectionRun]"], Chart]


@dataclass(frozen=True)
class BenchmarkFigure:
    """A benchmark's own figure (see the module's docstring)."""

    name: str
    """What ``memscope plot NAME`` calls it (``retention``); a plain identifier that is
    none of :data:`PLOT_KINDS` nor another benchmark's figure."""
    chart: ChartHook | str
    """``chart(runs) -> Chart``, or the ``"module:function"`` that is it."""
    overlay: bool = False
    """Whether several runs are drawn in one chart (one hook call); else one chart per run."""

    def charted(self, runs: Sequence[SectionRun]) -> Chart:
        """The chart of ``runs`` (the hook imported on first use)."""
        from memscope.adapters.sections import resolved_hook

        found: Chart = resolved_hook(self.chart)(runs)
        return found


def own_figure(spec: Benchmark) -> BenchmarkFigure | None:
    """The benchmark's own figure; None for the default (also a spec written for API 1.2
    saying ``figure="grid_lines"``, the name the default had then)."""
    found: object = spec.figure
    return found if isinstance(found, BenchmarkFigure) else None
