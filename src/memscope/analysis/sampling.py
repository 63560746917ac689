"""Stratified random samples of failures to label: allocation, draw order, inclusion probabilities.

A plan splits ``sample_size`` labels over the strata, proportionally to each stratum's
size ``N_h`` or by Neyman allocation (``N_h * S_h``, with ``S_h`` the spread the rule
suggestions predict in the stratum), with at least two labels in every stratum that has
two failures (one is not enough to estimate a variance). Within a stratum the items are
a uniform random permutation; the queue interleaves the strata so that any prefix of it
is close to the planned proportions. Every planned item has inclusion probability
``n_h / N_h`` (recorded on every item of the stratum); after the plan the queue goes on with the rest of the failures, still in
random order. Everything is a function of the seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

ALLOCATIONS = ("proportional", "neyman")
MIN_PER_STRATUM = 2


@dataclass(frozen=True)
class SampleItem:
    """One failure in the sampled queue."""

    position: int
    row: int
    stratum: str
    inclusion_probability: float
    planned: bool


def stratum_spread(codes: Sequence[str]) -> float:
    """``S_h`` for Neyman allocation: the root Gini impurity of the suggested codes.

    That is the average standard deviation of the code indicators, if the suggestions
    were the labels; 0 when every item has the same suggestion.
    """
    if not codes:
        return 0.0
    _, counts = np.unique(np.asarray(codes, dtype=object).astype(str), return_counts=True)
    shares = counts / counts.sum()
    return float(np.sqrt(max(1.0 - float((shares**2).sum()), 0.0)))


def allocate(
    sizes: dict[str, int],
    sample_size: int,
    *,
    method: str = "proportional",
    spreads: dict[str, float] | None = None,
) -> dict[str, int]:
    """Labels per stratum: a minimum of two (or ``N_h``), the rest toward the ideal shares.

    Neyman weights ``N_h * S_h``; a stratum whose suggestions all agree still gets a
    quarter of the largest spread, since the rules are not the labels. With a sample
    smaller than two per stratum the minimum drops to one, and then to none.
    """
    if method not in ALLOCATIONS:
        raise ValueError(f"unknown allocation {method!r}")
    total = sum(sizes.values())
    target = max(0, min(sample_size, total))
    strata = sorted(sizes)
    floor = MIN_PER_STRATUM
    while floor and sum(min(floor, sizes[h]) for h in strata) > target:
        floor -= 1
    counts = {h: min(floor, sizes[h]) for h in strata}
    if method == "neyman":
        spread = dict(spreads or {})
        top = max((spread.get(h, 0.0) for h in strata), default=0.0) or 1.0
        weights = {h: sizes[h] * max(spread.get(h, 0.0), top / 4.0) for h in strata}
    else:
        weights = {h: float(sizes[h]) for h in strata}
    weight_sum = sum(weights.values())
    ideal = {
        h: target * weights[h] / weight_sum if weight_sum > 0 else target / len(strata)
        for h in strata
    }
    # One label at a time to the stratum furthest below its ideal share (largest remainder).
    for _ in range(target - sum(counts.values())):
        room = [h for h in strata if counts[h] < sizes[h]]
        if not room:
            break
        best = max(room, key=lambda h: (ideal[h] - counts[h], weights[h], h))
        counts[best] += 1
    return counts


def sample_order(
    strata: Sequence[str],
    sample_size: int,
    *,
    seed: int,
    method: str = "proportional",
    spreads: dict[str, float] | None = None,
) -> tuple[list[SampleItem], dict[str, int]]:
    """The sampled queue over items with the given strata: every item once, planned first.

    Returns the items in queue order and the allocation per stratum.
    """
    labels = [str(s) for s in strata]
    sizes: dict[str, int] = {}
    for label in labels:
        sizes[label] = sizes.get(label, 0) + 1
    allocation = allocate(sizes, sample_size, method=method, spreads=spreads)
    rng = np.random.default_rng(seed)
    rows_of = {h: np.flatnonzero(np.asarray(labels, dtype=object) == h) for h in sorted(sizes)}
    keyed: list[tuple[int, float, float, int, str, bool]] = []
    for h, rows in rows_of.items():
        permuted = rows[rng.permutation(rows.size)]
        jitter = rng.random(rows.size)
        planned_n = allocation[h]
        rest_n = rows.size - planned_n
        for rank, row in enumerate(permuted.tolist()):
            planned = rank < planned_n
            if planned:
                # Systematic interleave: the k-th of n_h sits at (k + u) / n_h of the plan.
                key = (rank + jitter[rank]) / planned_n
            else:
                key = (rank - planned_n + jitter[rank]) / max(rest_n, 1)
            keyed.append((0 if planned else 1, key, float(jitter[rank]), row, h, planned))
    keyed.sort()
    items = [
        SampleItem(
            position=position,
            row=row,
            stratum=h,
            inclusion_probability=allocation[h] / sizes[h],
            planned=planned,
        )
        for position, (_, _, _, row, h, planned) in enumerate(keyed)
    ]
    return items, allocation
