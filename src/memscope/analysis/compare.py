"""Comparing two runs question by question: the caption-proof gain and the transitions.

Inputs are aligned arrays (row i of run A and row i of run B are the same question).
``Δ = score_B - score_A`` per question (docs/metrics.md §6, the caption-proof gain), then
per X level, Y level and (X, Y) cell with paired bootstrap intervals. The transition of a
question is how its correctness changed from A to B: fixed (A wrong, B right), broken
(A right, B wrong), both right, both wrong.
"""

from __future__ import annotations

from typing import TypeAlias, TypedDict

import numpy as np

from memscope.analysis import aggregate
from memscope.analysis.bootstrap import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Interval,
    percentile_interval,
)
from memscope.analysis.clustered import difference_interval

TRANSITIONS = ("fixed", "broken", "both_right", "both_wrong")


DeltaGroup: TypeAlias = dict[str, float | int | bool | None]
"""Δ over a group: ``n``, ``score_a``, ``score_b``, ``delta``, ``ci_low``, ``ci_high`` (and
over clusters ``n_clusters``, ``approximate``)."""


class DeltaGroups(TypedDict):
    """Δ overall and per x level, y level and (x, y) cell (levels without a question scored
    on both sides left out)."""

    overall: DeltaGroup
    by_x: dict[str, DeltaGroup]
    by_y: dict[str, DeltaGroup]
    by_cell: dict[str, DeltaGroup]


class TransitionIds(TypedDict):
    """The questions of one transition class: how many, and their ids in input order."""

    n: int
    qids: list[str]


def transitions(correct_a: np.ndarray, correct_b: np.ndarray) -> np.ndarray:
    """The transition class per question (``""`` where either side has no answer score)."""
    known = ~np.isnan(correct_a) & ~np.isnan(correct_b)
    right_a = correct_a == 1.0
    right_b = correct_b == 1.0
    classes = np.select(
        [~right_a & right_b, right_a & ~right_b, right_a & right_b],
        ["fixed", "broken", "both_right"],
        default="both_wrong",
    ).astype(object)
    classes[~known] = ""
    return classes


def _summary(
    score_a: np.ndarray, score_b: np.ndarray, interval: Interval, mask: np.ndarray
) -> DeltaGroup:
    both = mask & ~np.isnan(score_a) & ~np.isnan(score_b)
    return {
        "n": interval.n,
        "score_a": float(score_a[both].mean()) if both.any() else None,
        "score_b": float(score_b[both].mean()) if both.any() else None,
        "delta": interval.mean,
        "ci_low": interval.ci_low,
        "ci_high": interval.ci_high,
    }


def delta_table(
    score_a: np.ndarray,
    score_b: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    levels: tuple[tuple[str, ...], tuple[str, ...]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    clusters: np.ndarray | None = None,
) -> DeltaGroups:
    """Δ overall, per x level, per y level and per (x, y) cell, each with its paired interval.

    With ``clusters`` (a label per question: DMV-Bench chain trunks) the interval's unit is
    the cluster (``analysis/clustered.difference_interval``: cluster-robust t with G - 1
    degrees of freedom) and each group also says ``n_clusters`` and ``approximate`` (fewer
    than 30 clusters); without, it resamples questions (percentile bootstrap).

    ``levels`` are the x and the y levels in order (the benchmark's coordinate axes; empty
    for a benchmark that places no question on them).

    Each group resamples its own questions; groups without a question scored on both
    sides are left out.
    """
    delta = score_b - score_a
    cells = aggregate.cell_labels(x, y)
    everything = np.ones(len(delta), dtype=bool)

    def summary(mask: np.ndarray) -> DeltaGroup:
        if clusters is None:
            interval = percentile_interval(delta[mask], resamples=resamples, seed=seed)
            return _summary(score_a, score_b, interval, mask)
        found = difference_interval(delta[mask], clusters[mask], level=DEFAULT_LEVEL)
        interval = Interval(found.mean, found.ci_low, found.ci_high, found.n)
        group = _summary(score_a, score_b, interval, mask)
        group["n_clusters"] = found.n_clusters
        group["approximate"] = found.approximate
        return group

    def grouped(labels: np.ndarray, levels: tuple[str, ...]) -> dict[str, DeltaGroup]:
        groups: dict[str, DeltaGroup] = {}
        for level in levels:
            group = summary(labels == level)
            if group["n"]:
                groups[level] = group
        return groups

    x_levels, y_levels = levels
    return {
        "overall": summary(everything),
        "by_x": grouped(x, x_levels),
        "by_y": grouped(y, y_levels),
        "by_cell": grouped(cells, tuple(f"{a}_{b}" for a in x_levels for b in y_levels)),
    }


def transition_groups(classes: np.ndarray, ids: np.ndarray) -> dict[str, TransitionIds]:
    """``{class: {"n", "qids"}}`` for the four transition classes, ids in input order."""
    return {
        name: {"n": int((classes == name).sum()), "qids": ids[classes == name].tolist()}
        for name in TRANSITIONS
    }
