"""``memscope table --repeats``: a row that pools several runs of one configuration
(MIRIX's three ``evaluation_metrics_run<N>.json``, the seeds of a sweep) also shows, per
cell, the mean of the runs' own values ± their spread (the sample standard deviation across
runs), not only the pooled mean of all their questions.

It is the per-run table (``--per-run``) regrouped: each run's cell is computed exactly as
``--per-run`` computes it, and the runs of a pooled row are its repeats.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING

from memscope.usecases.table.result import ResultsTable, TableRow

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memscope.usecases.runs.loading import RunData
    from memscope.usecases.table.build import TableOptions


def add_repeats(
    table: ResultsTable, data: Sequence[RunData], options: TableOptions
) -> ResultsTable:
    """``table`` with, on each row of two or more runs, every cell's repeat mean ± spread."""
    from memscope.usecases.table.build import build_table

    per_run = build_table(
        list(data), dataclasses.replace(options, per_run=True, baseline=None, ci=False)
    )
    by_run = {row.runs[0]: row for row in per_run.rows}
    rows: list[TableRow] = []
    for row in table.rows:
        repeats = [by_run[run] for run in row.runs if run in by_run]
        if len(repeats) < 2:
            rows.append(row)
            continue
        cells = {}
        for key, cell in row.cells.items():
            values = [
                value
                for part in repeats
                if (value := part.cells.get(key) and part.cells[key].value) is not None
                and isinstance(value, float)
            ]
            cells[key] = dataclasses.replace(cell, repeats=_spread(values))
        rows.append(dataclasses.replace(row, cells=cells))
    return dataclasses.replace(table, rows=tuple(rows), repeats=True)


def _spread(values: list[float]) -> tuple[float, float, int] | None:
    """(mean, sample standard deviation, number of runs) of the runs' values."""
    if not values:
        return None
    mean = sum(values) / len(values)
    if len(values) < 2:
        return (mean, math.nan, 1)
    variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return (mean, math.sqrt(variance), len(values))
