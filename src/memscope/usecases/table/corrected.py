"""``table --corrected``: each cell of a run with people's verdicts also carries the run's
accuracy corrected with them (PPI++, as ``memscope audit`` computes it per axis level),
and a Δ vs the baseline whose sign the correction flips is marked.

The grader is the run's own correctness (what ``table`` counts as accuracy). A row that
pools several runs gets no corrected value: the verdicts estimate one run's accuracy, and
pooling estimates of different runs is not what ``audit`` checks. Derived columns get none.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from memscope.errors import InputError
from memscope.usecases.table.result import CorrectedCell, ResultsTable, TableCell, TableRow

if TYPE_CHECKING:
    from memscope.analysis.ppi import MeanEstimate
    from memscope.store import Store

NONE = CorrectedCell(None, None, None, 0)
"""A cell without a corrected value (no verdicts, a pooled row, a derived column)."""


def _estimates(
    store: Store, run_id: str, axes: tuple[str, ...], annotator: str | None
) -> dict[str, CorrectedCell]:
    """The run's corrected accuracy by table column key (``axis:level`` and ``all``)."""
    from memscope.usecases.labels.audit import OVERALL, audit_run

    found: dict[str, CorrectedCell] = {}
    for axis in axes or (None,):
        try:
            audit = audit_run(store, run_id, annotator=annotator, by=axis)
        except InputError:  # no correct/wrong verdicts on the run
            return {}
        for level in audit.levels:
            key = "all" if level.level == OVERALL else f"{axis}:{level.level}"
            found[key] = corrected_cell(level.ppi, level.n_verdicts)
    return found


def corrected_cell(estimate: MeanEstimate | None, n_verdicts: int) -> CorrectedCell:
    if estimate is None:
        return dataclasses.replace(NONE, n_verdicts=n_verdicts)
    # Clipped to [0, 1] as ``audit`` reports the same verdicts (``MeanEstimate.as_share``):
    # a normal interval of a share can pass its bounds, a share cannot.
    value, low, high = estimate.as_share
    return CorrectedCell(value, low, high, n_verdicts)


def flips(delta: float | None, corrected_delta: float | None) -> bool:
    """Whether the correction turns Δ's sign around (a zero on either side flips nothing)."""
    if delta is None or corrected_delta is None:
        return False
    return (delta > 0 and corrected_delta < 0) or (delta < 0 and corrected_delta > 0)


def with_delta(cell: TableCell, base: CorrectedCell | None) -> CorrectedCell:
    """The cell's corrected value with its Δ vs the baseline row's and the flip mark."""
    own = cell.corrected or NONE
    if base is None or base.estimate is None or own.estimate is None or cell.delta is None:
        return own
    corrected_delta = own.estimate - base.estimate
    return dataclasses.replace(
        own,
        delta=corrected_delta,
        flipped=flips(cell.delta.delta, corrected_delta),
    )


def add_corrected(
    table: ResultsTable, store: Store, *, annotator: str | None = None
) -> ResultsTable:
    """``table`` with every cell carrying its corrected accuracy (see the module docstring).

    Raises:
        InputError: an axis the audit does not know (never for the table's own axes).
    """
    rows: list[TableRow] = []
    for row in table.rows:
        found = _estimates(store, row.runs[0], table.by, annotator) if len(row.runs) == 1 else {}
        cells = {
            key: dataclasses.replace(cell, corrected=found.get(key, NONE))
            for key, cell in row.cells.items()
        }
        rows.append(dataclasses.replace(row, cells=cells))
    base_row = next((row for row in rows if row.label == table.baseline), None)
    if base_row is not None:
        rows = [
            dataclasses.replace(
                row,
                cells={
                    key: dataclasses.replace(
                        cell, corrected=with_delta(cell, base_row.cells[key].corrected)
                    )
                    for key, cell in row.cells.items()
                },
            )
            for row in rows
        ]
    return dataclasses.replace(table, rows=tuple(rows), corrected=True)
