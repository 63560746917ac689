"""A benchmark's own figure over stored runs, for both front ends (the app's matrix and
``memscope plot``): which figure a run has, and its charts, computed by the benchmark's
code (``adapters.charts``). Nothing here knows whose figure it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memscope.adapters.charts import BenchmarkFigure, Chart, own_figure
from memscope.errors import InputError, PluginError, benchmark_code

if TYPE_CHECKING:
    from memscope.usecases.runs.loading import RunData

__all__ = ["OWN", "Chart", "charts_of", "figure_for", "own_figure", "registered_figures"]
# Chart and own_figure are re-exported: the front ends reach adapters through usecases.

OWN = "figure"
"""``memscope plot figure``: each run's benchmark's own figure, whatever its name."""


def registered_figures() -> dict[str, str]:
    """Every installed benchmark's own figure: ``{name: the benchmark's title}``."""
    from memscope.adapters.registry import benchmarks

    return {
        figure.name: spec.title for spec in benchmarks() if (figure := own_figure(spec)) is not None
    }


def figure_for(
    kind: str, runs: Sequence[RunData], memscope_kinds: Sequence[str] = ()
) -> BenchmarkFigure:
    """The figure ``memscope plot KIND`` draws of ``runs``: :data:`OWN` for their
    benchmark's own, else the figure named ``kind``, which every run's benchmark must have
    (``memscope_kinds``: plot's own figures, listed when ``kind`` is nobody's).

    Raises:
        InputError: an unknown kind, a run whose benchmark has no such figure, or runs of
            different figures.
    """
    found: list[BenchmarkFigure] = []
    for data in runs:
        figure = own_figure(data.spec)
        if figure is None or (kind != OWN and figure.name != kind):
            registered = {} if kind == OWN else registered_figures()
            if kind != OWN and kind not in registered:
                named = [*memscope_kinds, *sorted(registered)]
                raise InputError(
                    f"unknown figure {kind!r}",
                    fix=f"Figures: {', '.join(named)}; {OWN}: each run's benchmark's own.",
                )
            raise _not_its_figure(kind, data, figure, registered)
        found.append(figure)
    names = sorted({figure.name for figure in found})
    if len(names) > 1:
        raise InputError(
            f"the runs have different figures ({', '.join(names)})",
            fix="Draw the runs of one benchmark at a time.",
        )
    return found[0]


def _not_its_figure(
    kind: str, data: RunData, figure: BenchmarkFigure | None, registered: dict[str, str]
) -> InputError:
    run, title = data.run.run_id, data.spec.title
    if figure is None:
        where = f"{title} declares no figure of its own"
        fix = "Try the heatmap figure."
    else:
        where = f"it is a {title} run, whose figure is {figure.name}"
        fix = f"Try the {figure.name} figure (or figure: each run's own)."
    if kind == OWN:
        return InputError(f"run {run} has no figure of its own: {where}", fix=fix)
    named = f"the {kind} figure is {registered[kind]}'s; "
    return InputError(f"run {run} has no {kind} figure: {named}{where}", fix=fix)


def charts_of(figure: BenchmarkFigure, runs: Sequence[RunData]) -> list[Chart]:
    """``figure``'s charts of ``runs``: one of them all when it overlays runs, else one each.

    Raises:
        MemscopeError: what the benchmark's code said was missing.
        PluginError: its code failed (naming the benchmark and the figure).
    """
    groups = [list(runs)] if figure.overlay else [[data] for data in runs]
    return [_charted(figure, group) for group in groups]


def _charted(figure: BenchmarkFigure, runs: list[RunData]) -> Chart:
    from memscope.usecases.report.section_run import StoredSectionRun

    with benchmark_code(f"benchmark {runs[0].benchmark!r}: its figure {figure.name!r}"):
        chart = figure.charted([StoredSectionRun(data) for data in runs])
    if not isinstance(chart, Chart):
        raise PluginError(
            f"benchmark {runs[0].benchmark!r}: its figure {figure.name!r} returned "
            f"{type(chart).__name__}, not a Chart"
        )
    return chart
