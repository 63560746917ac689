"""Percentile bootstrap intervals over questions (docs/metrics.md §6), paired where two sides meet.

A paired comparison (two runs, or a rerun against the original order) works on the
per-question difference ``d = after - before``: resampling question ids and recomputing
both sides on the same sample gives exactly ``mean(d[ids])``. The resample mean depends
only on how often each distinct value of ``d`` is drawn, and those counts are multinomial;
drawing the counts directly is the same bootstrap at a cost of resamples x distinct values
instead of resamples x questions (the metrics are 0/1, so ``d`` has at most three values).
When ``d`` has many distinct values the ``resamples x n`` index matrix is drawn instead, in
chunks that bound memory. Every interval uses a fresh ``np.random.default_rng(seed)``, so
it is reproducible for a seed and does not depend on what else was computed alongside.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 20260430
DEFAULT_LEVEL = 0.95
MAX_CATEGORIES = 256
"""Up to this many distinct values, resample counts per value (multinomial); beyond, ids."""
CHUNK_ELEMENTS = 4_000_000
"""Largest index matrix drawn at once (about 32 MB of int64)."""


@dataclass(frozen=True)
class Interval:
    """A mean with its percentile bootstrap interval over ``n`` questions."""

    mean: float | None
    ci_low: float | None
    ci_high: float | None
    n: int

    def as_dict(self) -> dict[str, float | int | None]:
        """JSON-ready ``{"mean", "ci_low", "ci_high", "n"}``."""
        return {"mean": self.mean, "ci_low": self.ci_low, "ci_high": self.ci_high, "n": self.n}


def resample_means(
    values: np.ndarray, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> np.ndarray:
    """The means of ``resamples`` samples of ``values`` drawn with replacement.

    Args:
        values: ``(n,)`` finite per-question values, ``n >= 1``.
        resamples: how many bootstrap samples.
        seed: seed of the generator (a fresh one per call).

    Returns:
        ``(resamples,)`` sample means.
    """
    values = np.asarray(values, dtype=float)
    distinct, counts = np.unique(values, return_counts=True)
    return drawn_means(values, distinct, counts, resamples=resamples, seed=seed)


def drawn_means(
    values: np.ndarray, distinct: np.ndarray, counts: np.ndarray, *, resamples: int, seed: int
) -> np.ndarray:
    """:func:`resample_means` of ``values`` whose ``np.unique(values, return_counts=True)``
    is ``(distinct, counts)``. Up to :data:`MAX_CATEGORIES` distinct values the result
    depends on ``(distinct, counts)`` only, not on the order of ``values``
    (``analysis/bootstrap_batch.py`` relies on it)."""
    n = values.size
    rng = np.random.default_rng(seed)
    if distinct.size <= MAX_CATEGORIES:
        draws = rng.multinomial(n, counts / n, size=resamples)
        return (draws @ distinct) / n
    means = np.empty(resamples)
    rows_per_chunk = max(1, CHUNK_ELEMENTS // n)
    for start in range(0, resamples, rows_per_chunk):
        stop = min(resamples, start + rows_per_chunk)
        ids = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = values[ids].mean(axis=1)
    return means


def percentile_interval(
    values: np.ndarray,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> Interval:
    """Mean of the defined (non-NaN) values with its percentile bootstrap interval.

    The bounds are the ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of the
    resample means (numpy's default linear interpolation).
    """
    values = np.asarray(values, dtype=float)
    defined = values[~np.isnan(values)]
    if defined.size == 0:
        return Interval(None, None, None, 0)
    means = resample_means(defined, resamples=resamples, seed=seed)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return Interval(float(defined.mean()), float(low), float(high), int(defined.size))


def paired_delta(
    before: np.ndarray,
    after: np.ndarray,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> Interval:
    """``mean(after - before)`` over questions where both are defined, with its paired interval."""
    delta = np.asarray(after, dtype=float) - np.asarray(before, dtype=float)
    return percentile_interval(delta, resamples=resamples, seed=seed, level=level)
