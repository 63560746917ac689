"""CUE-Mem's figure (``f`` on the matrix, ``memscope plot cue``): a run's accuracy per task,
explicit beside implicit, with its EI-Gap.

:func:`settings_chart` is the figure's ``chart`` hook; its numbers are the report section's
(``cuemem.report.cue_section``), so the figure and ``report`` never disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memscope.adapters.cuemem.report import SETTINGS, cue_section
from memscope.plugin import Chart, ChartSeries, MemscopeError

if TYPE_CHECKING:
    from memscope.plugin import SectionRun


def settings_chart(runs: Sequence[SectionRun]) -> Chart:
    """Explicit and implicit accuracy per task of the one run in ``runs`` (the figure does
    not overlay runs: each gets its own chart).

    Raises:
        MemscopeError: the run has no CUE-Mem task.
    """
    (run,) = runs
    section = cue_section(run)
    by_task = section["by_task"]
    tasks = list(by_task)
    if not tasks:
        raise MemscopeError(f"run {run.run_id} has no CUE-Mem tasks")
    series = tuple(
        ChartSeries(
            setting,
            tuple(_rate(by_task[task].get(setting)) for task in tasks),
            n=tuple(int(by_task[task].get(f"n_{setting}") or 0) for task in tasks),
        )
        for setting in SETTINGS
    )
    explicit, implicit = (one.n or () for one in series)
    counts = " · ".join(
        f"{task.split('_')[0]} n={ne}/{ni}"
        for task, ne, ni in zip(tasks, explicit, implicit, strict=True)
    )
    gap = section["ei_gap"]
    return Chart(
        title="Explicit vs implicit accuracy per task",
        series=series,
        shape="bars",
        categories=tuple(tasks),
        y_label="accuracy",
        summary="" if gap is None else f"EI-Gap {gap:.2f}",
        note=f"n explicit/implicit: {counts}",
    )


def _rate(value: float | int | None) -> float | None:
    return None if value is None else float(value)
