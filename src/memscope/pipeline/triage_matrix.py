"""The X×Y matrix of the triage app: one value and its n per cell for a chosen metric.

Metrics: EM and Judge (answers), Any-Clue@K and Latest@K (retrieval, docs/metrics.md §3–§4), the
share of failures labelled, how many questions carry a labelled or suggested failure
code, and in comparison mode the caption-proof gain Δ = score_B − score_A. Values come
from the shared metric code (``pipeline.report.question_metrics``,
``pipeline.compare.compare_runs``); this module only groups them by cell.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from memscope.analysis import aggregate
from memscope.pipeline.loading import RunData
from memscope.pipeline.report import question_metrics
from memscope.pipeline.triage import TriageTable
from memscope.store import Store

RATE_METRICS = {"em": "EM", "judge": "Judge", "any_clue": "Any-Clue@K", "latest_at_k": "Latest@K"}
DELTA_RESAMPLES = 1000


@dataclass(frozen=True)
class MatrixMetric:
    """A metric the matrix can colour by."""

    key: str
    title: str
    kind: str
    """``rate`` (0..1), ``count`` (questions) or ``delta`` (−1..1)."""


@dataclass(frozen=True)
class CellValue:
    """One cell: the value (None: undefined) and how many questions it is over."""

    value: float | None
    n: int


def available_metrics(table: TriageTable, compare: bool, has_retrieval: bool) -> list[MatrixMetric]:
    """The metrics that make sense for this session, in display order."""
    metrics = [MatrixMetric("em", "EM", "rate"), MatrixMetric("judge", "Judge", "rate")]
    if has_retrieval:
        metrics += [
            MatrixMetric("any_clue", "Any-Clue@K", "rate"),
            MatrixMetric("latest_at_k", "Latest@K (Y3)", "rate"),
        ]
    metrics.append(MatrixMetric("labelled", "share of failures labelled", "rate"))
    if compare:
        metrics.append(MatrixMetric("delta", "caption-proof Δ (other − this)", "delta"))
    labelled_codes = sorted({code for codes in table.label.tolist() for code in codes.split()})
    suggested_codes = sorted({code for code in table.suggested.tolist() if code})
    metrics += [
        MatrixMetric(f"label:{code}", f"labelled {code}", "count") for code in labelled_codes
    ]
    metrics += [
        MatrixMetric(f"suggested:{code}", f"suggested {code}", "count") for code in suggested_codes
    ]
    return metrics


def cell_values(
    metric: MatrixMetric,
    table: TriageTable,
    data: RunData,
    k: int,
    other: RunData | None = None,
    store: Store | None = None,
) -> dict[str, CellValue]:
    """``{"X1_Y1": CellValue, ...}`` for ``metric`` (cells without questions are absent).

    The Δ metric needs the store (``memscope compare`` reads both runs from it).
    """
    cells = table.cell
    result: dict[str, CellValue] = {}
    if metric.key in RATE_METRICS:
        values = question_metrics(data, k)[metric.key]
        for cell in aggregate.CELLS:
            mask = cells == cell
            defined = values[mask & ~np.isnan(values)]
            if mask.any():
                result[cell] = CellValue(
                    float(defined.mean()) if defined.size else None, int(defined.size)
                )
    elif metric.key == "labelled":
        failing = table.correct == 0.0
        for cell in aggregate.CELLS:
            mask = (cells == cell) & failing
            if (cells == cell).any():
                n = int(mask.sum())
                result[cell] = CellValue(float(table.labelled[mask].mean()) if n else None, n)
    elif metric.key.startswith(("label:", "suggested:")):
        source, code = metric.key.split(":", 1)
        has = (
            np.array([code in codes.split() for codes in table.label.tolist()], dtype=bool)
            if source == "label"
            else table.suggested == code
        )
        for cell in aggregate.CELLS:
            mask = cells == cell
            if mask.any():
                result[cell] = CellValue(float(has[mask].sum()), int(mask.sum()))
    elif metric.key == "delta" and other is not None and store is not None:
        result = _delta_cells(store, str(data.run["run_id"]), str(other.run["run_id"]))
    return result


def _delta_cells(store: Store, run_a: str, run_b: str) -> dict[str, CellValue]:
    from memscope.pipeline.compare import compare_runs

    found: dict[str, Any] = compare_runs(store, run_a, run_b, resamples=DELTA_RESAMPLES)["delta"][
        "by_cell"
    ]
    return {
        cell: CellValue(summary.get("delta"), int(summary.get("n") or 0))
        for cell, summary in found.items()
    }
