"""Grouping per-question values into run-level tables: overall, per level, per cell.

Means skip NaN (undefined) values; every group reports its ``n``, the number of questions
the mean is over. The levels come from the caller (a benchmark's axes).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np


def mean_or_none(values: np.ndarray) -> float | None:
    """Mean of the defined values, None when there are none."""
    defined = values[~np.isnan(values)]
    return float(defined.mean()) if defined.size else None


def summarize(
    metrics: Mapping[str, np.ndarray],
    mask: np.ndarray | None = None,
    *,
    n_of: str | None = None,
    count: tuple[str, ...] = (),
) -> dict[str, float | int | None]:
    """``{"n": ..., metric: mean}`` over the rows in ``mask``.

    ``n`` counts the rows where metric ``n_of`` is defined (all rows when None); each
    metric named in ``count`` also gets ``n_<metric>``, the rows where it is defined.
    """
    names = list(metrics)
    if mask is None:
        mask = np.ones(len(metrics[names[0]]), dtype=bool)
    n = int(mask.sum()) if n_of is None else int((~np.isnan(metrics[n_of][mask])).sum())
    summary: dict[str, float | int | None] = {"n": n}
    for name in names:
        summary[name] = mean_or_none(metrics[name][mask])
    for name in count:
        summary[f"n_{name}"] = int((~np.isnan(metrics[name][mask])).sum())
    return summary


def by_group(
    metrics: Mapping[str, np.ndarray],
    labels: np.ndarray,
    levels: tuple[str, ...],
    *,
    n_of: str | None = None,
    count: tuple[str, ...] = (),
) -> dict[str, dict[str, float | int | None]]:
    """``summarize`` per label value, for the levels that have rows."""
    groups: dict[str, dict[str, float | int | None]] = {}
    for level in levels:
        mask = labels == level
        if mask.any():
            summary = summarize(metrics, mask, n_of=n_of, count=count)
            if summary["n"]:
                groups[level] = summary
    return groups


def cell_labels(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``"X1_Y1"``-style cell label per question (``""`` when either axis is missing)."""
    x_text = np.where(x == None, "", x).astype(str)  # noqa: E711 - elementwise comparison
    y_text = np.where(y == None, "", y).astype(str)  # noqa: E711
    both = (x_text != "") & (y_text != "")
    return np.where(both, np.char.add(np.char.add(x_text, "_"), y_text), "")


def macro_average(
    groups: Mapping[str, Mapping[str, float | int | None]], metric: str
) -> float | None:
    """Coordinate-balanced macro average: the mean of the cell means (each cell weighs 1)."""
    values = [g[metric] for g in groups.values() if g.get(metric) is not None]
    finite = [float(v) for v in values if not math.isnan(float(v))]  # type: ignore[arg-type]
    return sum(finite) / len(finite) if finite else None
