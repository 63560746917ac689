"""CUE-Mem's results table: task × explicit/implicit cells, Memory Avg. and EI-Gap
(docs/metrics.md §8), rows under the paper's names of the memories and the human baseline."""

from __future__ import annotations

from collections.abc import Mapping

from memscope.adapters.cuemem.names import DISPLAY_NAMES
from memscope.plugin import CellMean, Derived, TableLayout

MEMORY_TASKS = ("entity_recall", "long_pattern", "personalized_recommendation")
"""The tasks Memory Avg. averages (Answer Refusal is reported apart)."""


def _mean_of_present(values: list[CellMean | None]) -> CellMean | None:
    present = [v for v in values if v is not None]
    if not present:
        return None
    total = present[0]
    for value in present[1:]:
        total = total + value
    return total / len(present)


def memory_avg(setting: str) -> Derived:
    """Memory Avg. of one evidence setting: the mean of the memory tasks' cells."""

    def average(cells: Mapping[str, CellMean]) -> CellMean | None:
        return _mean_of_present([cells.get(f"{task}/{setting}") for task in MEMORY_TASKS])

    return average


def ei_gap(cells: Mapping[str, CellMean]) -> CellMean | None:
    """EI-Gap = Memory Avg. explicit − Memory Avg. implicit."""
    explicit, implicit = memory_avg("explicit")(cells), memory_avg("implicit")(cells)
    return None if explicit is None or implicit is None else explicit - implicit


LAYOUT = TableLayout(
    default_by=("cell",),
    default_metric="accuracy",
    default_group=("model", "method"),
    derived=(
        ("memory_avg_explicit", "Mem. Avg. explicit", memory_avg("explicit")),
        ("memory_avg_implicit", "Mem. Avg. implicit", memory_avg("implicit")),
        ("ei_gap", "EI-Gap", ei_gap),
    ),
    display_names=DISPLAY_NAMES,
)
