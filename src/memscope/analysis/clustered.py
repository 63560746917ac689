"""Intervals over clustered questions that hold with few clusters (docs/metrics.md §6).

Questions of one cluster (DMV-Bench probes of one chain trunk) are not independent, so an
interval must treat the cluster as the unit. With the handful of clusters a benchmark
demo has (6 trunks) the cluster bootstrap is too narrow: it can only recombine the six
clusters it saw and its percentile interval ignores that the spread itself is estimated
from six numbers. These intervals use the cluster totals with a cluster-robust variance
(CR1: ``G / (G - 1)`` times the squared residual totals) and Student's t with ``G - 1``
degrees of freedom, which is what the small-sample literature recommends:

- a **share** (a mean of values in [0, 1], e.g. TSR): the Wilson score interval with the
  effective sample size ``N / deff``, where the design effect ``deff`` (at least 1) is the
  cluster-robust variance over the binomial one, and with the t quantile in place of z.
  It stays inside [0, 1] by construction and does not collapse at 0 % or 100 %.
- a **paired difference** (``B - A`` per question, in [-1, 1]): the ratio estimate
  ``sum(d) / N`` with its cluster-robust standard error and the t quantile, clipped to
  [-1, 1].

Below :data:`MIN_CLUSTERS` clusters every output says "n clusters: interval approximate":
t with ``G - 1`` degrees of freedom is an approximation there, measured in
``benchmarks/bench_cluster_coverage.py`` (coverage >= 93 % at 6, 12 and 30 clusters).
Pure numpy: Student's t quantile comes from its closed-form distribution function for
integer degrees of freedom (Abramowitz & Stegun 26.7.3), checked against scipy in the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

MIN_CLUSTERS = 30
"""Below this many clusters an interval is marked approximate."""


@dataclass(frozen=True)
class ClusterInterval:
    """A mean over clustered questions with its small-sample cluster interval."""

    mean: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    n_clusters: int

    @property
    def approximate(self) -> bool:
        """Fewer than :data:`MIN_CLUSTERS` clusters: the interval is approximate."""
        return self.n_clusters < MIN_CLUSTERS

    def as_dict(self) -> dict[str, float | int | bool | None]:
        """JSON-ready ``{"mean", "ci_low", "ci_high", "n", "n_clusters", "approximate"}``."""
        return {
            "mean": self.mean,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "n": self.n,
            "n_clusters": self.n_clusters,
            "approximate": self.approximate,
        }


def _t_two_sided_mass(t: float, df: int) -> float:
    """``P(|T| < t)`` for Student's t with integer ``df`` (Abramowitz & Stegun 26.7.3)."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2 == 1:
        total, term = 1.0, 1.0
        for k in range(1, (df - 1) // 2):  # (2·4···2k) / (3·5···(2k+1)) cos^(2k)
            term *= (2 * k) / (2 * k + 1) * c2
            total += term
        inner = math.sin(theta) * math.cos(theta) * total if df > 1 else 0.0
        return 2.0 / math.pi * (theta + inner)
    total, term = 1.0, 1.0
    for k in range(1, df // 2):  # (1·3···(2k-1)) / (2·4···2k) cos^(2k)
        term *= (2 * k - 1) / (2 * k) * c2
        total += term
    return math.sin(theta) * total


@lru_cache(maxsize=256)
def t_quantile(level: float, df: int) -> float:
    """The two-sided critical value of Student's t: ``P(|T| < q) = level`` (bisection)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    low, high = 0.0, 1.0
    while _t_two_sided_mass(high, df) < level:
        high *= 2.0
    for _ in range(100):
        middle = (low + high) / 2.0
        if _t_two_sided_mass(middle, df) < level:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def _cluster_totals(
    values: np.ndarray, clusters: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The defined values, and per cluster their sum and count."""
    values = np.asarray(values, dtype=float)
    keep = ~np.isnan(values)
    values, clusters = values[keep], np.asarray(clusters)[keep]
    _, index = np.unique(clusters.astype(str), return_inverse=True)
    sums = np.bincount(index, weights=values) if values.size else np.zeros(0)
    counts = np.bincount(index).astype(float) if values.size else np.zeros(0)
    return values, sums, counts


def _cr1_variance(sums: np.ndarray, counts: np.ndarray, mean: float) -> float:
    """Cluster-robust (CR1) variance of the ratio estimate ``sum / N``."""
    groups, total = sums.size, counts.sum()
    residuals = sums - mean * counts
    return float(groups / (groups - 1) * (residuals**2).sum() / total**2)


def share_interval(values: np.ndarray, clusters: np.ndarray, *, level: float) -> ClusterInterval:
    """Mean of values in [0, 1] (NaN = undefined) over clustered questions, with the Wilson
    interval at the cluster design effect and t(G - 1); no bounds with one cluster."""
    defined, sums, counts = _cluster_totals(values, clusters)
    n, groups = int(defined.size), int(sums.size)
    if n == 0:
        return ClusterInterval(None, None, None, 0, 0)
    mean = float(defined.mean())
    if groups < 2:
        return ClusterInterval(mean, None, None, n, groups)
    binomial = mean * (1.0 - mean) / n
    robust = _cr1_variance(sums, counts, mean)
    deff = max(1.0, robust / binomial) if binomial > 0 else 1.0
    effective = n / deff
    z = t_quantile(level, groups - 1)
    z2 = z * z
    centre = (mean + z2 / (2 * effective)) / (1 + z2 / effective)
    half = (
        z
        / (1 + z2 / effective)
        * math.sqrt(mean * (1 - mean) / effective + z2 / (4 * effective**2))
    )
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    return ClusterInterval(mean, min(low, mean), max(high, mean), n, groups)


def difference_interval(
    differences: np.ndarray,
    clusters: np.ndarray,
    *,
    level: float,
    bounds: tuple[float, float] = (-1.0, 1.0),
) -> ClusterInterval:
    """Mean of paired differences (NaN = undefined) over clustered questions, with the
    cluster-robust t(G - 1) interval clipped to ``bounds`` (a difference of two values in
    [0, 1] lies in [-1, 1]); no bounds with one cluster."""
    defined, sums, counts = _cluster_totals(differences, clusters)
    n, groups = int(defined.size), int(sums.size)
    if n == 0:
        return ClusterInterval(None, None, None, 0, 0)
    mean = float(defined.mean())
    if groups < 2:
        return ClusterInterval(mean, None, None, n, groups)
    half = t_quantile(level, groups - 1) * math.sqrt(_cr1_variance(sums, counts, mean))
    return ClusterInterval(
        mean, max(bounds[0], mean - half), min(bounds[1], mean + half), n, groups
    )


def mean_interval(values: np.ndarray, clusters: np.ndarray, *, level: float) -> ClusterInterval:
    """:func:`share_interval` for values in [0, 1]; otherwise the cluster-robust t(G - 1)
    interval of the mean, kept within the values' own range (a mean cannot leave it)."""
    values = np.asarray(values, dtype=float)
    defined = values[~np.isnan(values)]
    if defined.size == 0 or (defined.min() >= 0.0 and defined.max() <= 1.0):
        return share_interval(values, clusters, level=level)
    return difference_interval(
        values, clusters, level=level, bounds=(float(defined.min()), float(defined.max()))
    )
