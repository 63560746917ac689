"""DMV-Bench's figure (``f`` on the matrix, ``memscope plot retention``): the retention
curve, TSR by reach with its trunk-cluster interval, one line per run (the compared run's
beside the open one's in the app).

:func:`retention_chart` is the figure's ``chart`` hook; its numbers are the report
section's (``dmv.report.tsr_section``), so the figure and ``report`` never disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memscope.adapters.dmv.report import tsr_section
from memscope.plugin import Chart, ChartSeries, MemscopeError

if TYPE_CHECKING:
    from memscope.plugin import SectionRun

TITLE = "Retention: TSR by reach (95% trunk-cluster CI)"


def retention_chart(runs: Sequence[SectionRun]) -> Chart:
    """TSR by reach (ascending) of every run, with its interval; each line is named by its
    system (the run id after its last ``:``: one directory holds a run per system).

    Raises:
        MemscopeError: a run has no TSR by reach.
    """
    curves = [_curve(run) for run in runs]
    counts = "; ".join(
        f"{curve.label} " + ", ".join(str(n) for n in (curve.n or ())) for curve in curves
    )
    return Chart(
        title=TITLE,
        series=tuple(curves),
        x_label="reach (sessions back)",
        y_label="TSR",
        note=f"│ = 95% interval · n per reach: {counts}",
    )


def _curve(run: SectionRun) -> ChartSeries:
    by_reach = tsr_section(run)["by_reach"]
    reach = sorted(by_reach, key=int)
    if not reach:
        raise MemscopeError(f"run {run.run_id} has no TSR by reach (no probe has a reach)")
    return ChartSeries(
        run.run_id.split(":")[-1],
        tuple(by_reach[r]["tsr"] for r in reach),
        xs=tuple(float(int(r)) for r in reach),
        low=tuple(by_reach[r]["ci_low"] for r in reach),
        high=tuple(by_reach[r]["ci_high"] for r in reach),
        n=tuple(int(by_reach[r]["n"]) for r in reach),
    )
