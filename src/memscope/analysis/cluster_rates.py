"""Success rates over clustered questions (docs/metrics.md §7): the rate, its interval over
clusters, the cluster bootstrap, the cluster sign-flip permutation test and numeric bins.

Questions of one cluster (a benchmark's ``Benchmark.cluster``: DMV-Bench's chain trunk,
whose probes share their encoding sessions) are not independent: intervals resample whole
clusters, and a paired comparison of two runs flips the sign of whole clusters. The names
keep DMV-Bench's words where its report made them public (``TSR``: task success rate, the
mean of the 0/1 outcomes; ``trunks``: the clusters). Pure numpy; every random draw comes
from a fresh ``np.random.default_rng(seed)``, so results are reproducible for a seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memscope.analysis.bootstrap import DEFAULT_LEVEL, DEFAULT_SEED

DEFAULT_RESAMPLES = 1_000
"""Cluster-bootstrap resamples (docs/metrics.md §7: 1,000 by default)."""
DEFAULT_PERMUTATIONS = 1_000
"""Sign-flip permutations (docs/metrics.md §7: 1,000 by default)."""
CHUNK_ELEMENTS = 4_000_000
"""Largest resample-by-trunk index matrix drawn at once (about 32 MB of int64)."""
MAX_EXACT_TRUNKS = 20
"""Up to ``2**this`` sign patterns may be enumerated exactly instead of sampled."""


@dataclass(frozen=True)
class GroupTSR:
    """TSR of one group of probes with its trunk-cluster bootstrap interval."""

    n: int
    tsr: float | None
    ci_low: float | None
    ci_high: float | None
    n_trunks: int

    def as_dict(self) -> dict[str, float | int | None]:
        """JSON-ready ``{"n", "tsr", "ci_low", "ci_high", "n_trunks"}``."""
        return {
            "n": self.n,
            "tsr": self.tsr,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "n_trunks": self.n_trunks,
        }


def tsr(success: np.ndarray) -> float | None:
    """Task success rate: the mean of the defined 0/1 outcomes (None when there are none)."""
    values = np.asarray(success, dtype=float)
    defined = values[~np.isnan(values)]
    return float(defined.mean()) if defined.size else None


def cluster_bootstrap_groups(
    success: np.ndarray,
    trunks: np.ndarray,
    groups: np.ndarray,
    levels: list[str],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> dict[str, GroupTSR]:
    """TSR per group with percentile intervals from one trunk-cluster bootstrap.

    Each resample draws as many trunks as there are, with replacement, and takes every
    probe of every drawn trunk (a trunk drawn twice counts twice). The statistic of a group
    in a resample is the pooled success rate of its probes in the drawn trunks,
    ``sum(successes) / sum(probes)``; resamples in which a group has no probe are left out
    of that group's interval. All groups share the same draws.

    Args:
        success: ``(n,)`` 0/1 outcome per probe (NaN = undefined, ignored).
        trunks: ``(n,)`` trunk label per probe.
        groups: ``(n,)`` group label per probe (e.g. the reach as a string).
        levels: the group labels to report, in order.
        resamples: number of bootstrap resamples.
        seed: seed of the generator.
        level: the interval's coverage (0.95 gives the 2.5 and 97.5 percentiles).

    Returns:
        ``{level: GroupTSR}`` for the levels that have at least one probe.
    """
    values = np.asarray(success, dtype=float)
    keep = ~np.isnan(values)
    values, trunks, groups = values[keep], np.asarray(trunks)[keep], np.asarray(groups)[keep]
    present = [name for name in levels if (groups == name).any()]
    if not present or values.size == 0:
        return {}
    trunk_names, trunk_index = np.unique(trunks.astype(str), return_inverse=True)
    group_index = np.full(values.size, -1)
    for column, name in enumerate(present):
        group_index[groups == name] = column
    selected = group_index >= 0
    n_trunks, n_groups = trunk_names.size, len(present)
    wins = np.zeros((n_trunks, n_groups))
    counts = np.zeros((n_trunks, n_groups))
    np.add.at(wins, (trunk_index[selected], group_index[selected]), values[selected])
    np.add.at(counts, (trunk_index[selected], group_index[selected]), 1.0)
    draws = _resample_sums(wins, counts, resamples=resamples, seed=seed)
    tail = (1.0 - level) / 2.0
    result: dict[str, GroupTSR] = {}
    for column, name in enumerate(present):
        drawn_wins, drawn_counts = draws
        defined = drawn_counts[:, column] > 0
        rates = drawn_wins[defined, column] / drawn_counts[defined, column]
        low, high = (
            (float(q) for q in np.quantile(rates, [tail, 1.0 - tail]))
            if rates.size
            else (None, None)
        )
        total = counts[:, column].sum()
        result[name] = GroupTSR(
            n=int(total),
            tsr=float(wins[:, column].sum() / total),
            ci_low=low,
            ci_high=high,
            n_trunks=int((counts[:, column] > 0).sum()),
        )
    return result


def _resample_sums(
    wins: np.ndarray, counts: np.ndarray, *, resamples: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per resample, the summed wins and probe counts of the drawn trunks, ``(B, G)`` each."""
    rng = np.random.default_rng(seed)
    n_trunks = wins.shape[0]
    drawn_wins = np.empty((resamples, wins.shape[1]))
    drawn_counts = np.empty((resamples, wins.shape[1]))
    rows_per_chunk = max(1, CHUNK_ELEMENTS // max(n_trunks, 1))
    for start in range(0, resamples, rows_per_chunk):
        stop = min(resamples, start + rows_per_chunk)
        # How often each trunk is drawn: the same multiset as drawing trunk ids with
        # replacement, at a cost of trunks (not probes) per resample.
        times = rng.multinomial(n_trunks, np.full(n_trunks, 1.0 / n_trunks), size=stop - start)
        drawn_wins[start:stop] = times @ wins
        drawn_counts[start:stop] = times @ counts
    return drawn_wins, drawn_counts


@dataclass(frozen=True)
class SignFlipResult:
    """A paired comparison of two runs on the same probes."""

    n: int
    n_trunks: int
    tsr_a: float | None
    tsr_b: float | None
    difference: float | None
    p_value: float | None
    permutations: int
    exact: bool

    def as_dict(self) -> dict[str, float | int | bool | None]:
        """JSON-ready fields."""
        return {
            "n": self.n,
            "n_trunks": self.n_trunks,
            "tsr_a": self.tsr_a,
            "tsr_b": self.tsr_b,
            "difference": self.difference,
            "p_value": self.p_value,
            "permutations": self.permutations,
            "exact": self.exact,
        }


def sign_flip_test(
    success_a: np.ndarray,
    success_b: np.ndarray,
    trunks: np.ndarray,
    *,
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = DEFAULT_SEED,
) -> SignFlipResult:
    """Two-sided trunk-level sign-flip permutation test of ``TSR_a - TSR_b``.

    The probes are paired (same probe, two architectures). Per trunk ``c``, ``D_c`` is the
    sum of the paired differences ``y_a - y_b`` of its probes; the statistic is
    ``T = sum_c D_c / n``, which equals ``TSR_a - TSR_b``. Under the null hypothesis the
    two architectures are exchangeable within a trunk, so each ``D_c`` is as likely to have
    the opposite sign: ``T* = sum_c s_c D_c / n`` with independent signs ``s_c = ±1``.
    The p-value is the share of sign patterns with ``|T*| >= |T|``. When ``2**trunks`` is at
    most ``permutations`` every pattern is enumerated (an exact p-value); otherwise
    ``permutations`` patterns are drawn and ``p = (1 + hits) / (1 + permutations)``.

    Args:
        success_a: ``(n,)`` 0/1 outcome per probe in run A (NaN where undefined).
        success_b: ``(n,)`` outcome of the same probe in run B.
        trunks: ``(n,)`` trunk label per probe.
        permutations: sign patterns to draw.
        seed: seed of the generator.
    """
    a = np.asarray(success_a, dtype=float)
    b = np.asarray(success_b, dtype=float)
    keep = ~(np.isnan(a) | np.isnan(b))
    a, b, trunks = a[keep], b[keep], np.asarray(trunks)[keep]
    n = int(a.size)
    if n == 0:
        return SignFlipResult(0, 0, None, None, None, None, 0, False)
    names, index = np.unique(trunks.astype(str), return_inverse=True)
    trunk_diff = np.zeros(names.size)
    np.add.at(trunk_diff, index, a - b)
    observed = trunk_diff.sum() / n
    # Sums of 0/1 differences are integers; compare them as integers so that ties are exact.
    trunk_diff = np.rint(trunk_diff).astype(np.int64)
    target = abs(int(trunk_diff.sum()))
    exact = names.size <= MAX_EXACT_TRUNKS and 2**names.size <= permutations
    if exact:
        patterns = (
            (np.arange(2**names.size)[:, None] >> np.arange(names.size)[None, :]) & 1
        ) * 2 - 1
        hits = int((np.abs(patterns @ trunk_diff) >= target).sum())
        p_value = hits / patterns.shape[0]
        used = int(patterns.shape[0])
    else:
        rng = np.random.default_rng(seed)
        signs = rng.integers(0, 2, size=(permutations, names.size), dtype=np.int64) * 2 - 1
        hits = int((np.abs(signs @ trunk_diff) >= target).sum())
        p_value = (1 + hits) / (1 + permutations)
        used = permutations
    return SignFlipResult(
        n=n,
        n_trunks=int(names.size),
        tsr_a=float(a.mean()),
        tsr_b=float(b.mean()),
        difference=float(observed),
        p_value=float(p_value),
        permutations=used,
        exact=exact,
    )


def bin_labels(values: np.ndarray, *, max_bins: int = 8) -> tuple[np.ndarray, list[str]]:
    """Group an integer attribute (bank size, encoding position) for a stratified table.

    With at most ``max_bins`` distinct values each value is its own group (``"12"``);
    otherwise the values are cut at quantiles into at most ``max_bins`` ranges of roughly
    equal size, labelled ``"lo-hi"``. Missing values (NaN) get the label ``""``.

    Returns:
        ``(labels per probe, levels in increasing order)``.
    """
    numbers = np.asarray(values, dtype=float)
    labels = np.full(numbers.size, "", dtype=object)
    defined = ~np.isnan(numbers)
    if not defined.any():
        return labels, []
    distinct = np.unique(numbers[defined])
    if distinct.size <= max_bins:
        names = [str(int(v)) for v in distinct]
        for value, name in zip(distinct, names, strict=True):
            labels[numbers == value] = name
        return labels, names
    edges = np.unique(
        np.quantile(numbers[defined], np.linspace(0, 1, max_bins + 1), method="nearest")
    )
    # Bin i holds edges[i] <= v < edges[i+1]; the last bin also holds the maximum.
    which = np.clip(np.searchsorted(edges, numbers[defined], side="right") - 1, 0, edges.size - 2)
    names = []
    for i in range(edges.size - 1):
        members = numbers[defined][which == i]
        if members.size:
            names.append(
                f"{int(members.min())}-{int(members.max())}"
                if members.min() != members.max()
                else str(int(members.min()))
            )
        else:
            names.append("")
    labels[np.flatnonzero(defined)] = np.array(names, dtype=object)[which]
    return labels, [name for name in dict.fromkeys(names) if name]


def cluster_interval_groups(
    success: np.ndarray,
    trunks: np.ndarray,
    groups: np.ndarray,
    levels: list[str],
    *,
    level: float = DEFAULT_LEVEL,
) -> dict[str, GroupTSR]:
    """TSR per group with the small-sample trunk interval of ``analysis/clustered.py``
    (Wilson at the trunks' design effect, t with trunks − 1 degrees of freedom): the
    interval ``report`` and ``table`` print, which holds with a handful of trunks where the
    cluster bootstrap (:func:`cluster_bootstrap_groups`) is too narrow.

    Returns:
        ``{level: GroupTSR}`` for the levels that have defined probes, in ``levels`` order.
    """
    from memscope.analysis.clustered import share_interval

    values = np.asarray(success, dtype=float)
    trunks, groups = np.asarray(trunks), np.asarray(groups)
    keep = ~np.isnan(values)
    result: dict[str, GroupTSR] = {}
    for name in levels:
        chosen = keep & (groups == name)
        if not chosen.any():
            continue
        found = share_interval(values[chosen], trunks[chosen], level=level)
        result[name] = GroupTSR(found.n, found.mean, found.ci_low, found.ci_high, found.n_clusters)
    return result
