"""MemEye's results table: X × Y columns headed X1 … Y3, and the coordinate-balanced macro."""

from __future__ import annotations

from collections.abc import Mapping

from memscope.adapters.memeye.axes import X_AXIS, Y_AXIS
from memscope.plugin import CellMean, TableLayout

CELL_SEPARATOR = "_"
CELLS = tuple(f"{x.value}{CELL_SEPARATOR}{y.value}" for x in X_AXIS.levels for y in Y_AXIS.levels)
"""The twelve X×Y cells as the table names them (``X1_Y1`` …)."""


def macro(cells: Mapping[str, CellMean]) -> CellMean | None:
    """The coordinate-balanced macro average: the mean of the X×Y cell means present
    (docs/metrics.md §2; each non-empty cell weighs the same)."""
    present = [cells[cell] for cell in CELLS if cells.get(cell) is not None]
    if not present:
        return None
    total = present[0]
    for value in present[1:]:
        total = total + value
    return total / len(present)


LAYOUT = TableLayout(
    default_by=("x", "y"),
    default_metric="em",
    default_group=("model", "method", "mode"),
    derived=(("macro", "macro", macro),),
    cell_separator=CELL_SEPARATOR,
    heads_by_value=True,
    run_task_axis=True,
    multi_label_axes=("x", "y", "cell"),
)
