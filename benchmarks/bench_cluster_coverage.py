"""Coverage of the clustered intervals ``memscope table`` / ``report`` / ``compare`` print.

Each replication makes a DMV-Bench-like paired design: ``G`` clusters (chain trunks) of
``1 + Poisson(19)`` questions each, two systems A and B answering every question. A
question is right when a probit latent ``alpha + u_c (+ v_c for B) + e_q + eps > 0``
is: ``u_c`` a cluster effect both systems share, ``v_c`` one only B has, ``e_q`` the
question's difficulty (shared: the pairing), ``eps`` the system's own noise. The latent
intra-cluster correlation is ``var(u) / (1 + var(u) + var(e))``; the true success rates
are ``Phi(alpha / sqrt(1 + total variance))``, so the truth is known exactly.

Per replication it computes, with memscope's own functions (``analysis.clustered``), the
single-system intervals of A and B (Wilson at the cluster design effect, t(G-1)) and the
paired Δ = B - A interval (cluster-robust t(G-1)), and, for comparison, what memscope
printed before: the probe-level percentile bootstrap and the cluster (trunk) percentile
bootstrap of the share. It reports how often each covers the truth. Target: every
interval memscope prints covers >= 93 %.

    .venv/bin/python benchmarks/bench_cluster_coverage.py [--replications 400] [--seed 41]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from statistics import NormalDist

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np

from common import print_table
from memscope.analysis.clustered import difference_interval, share_interval

CLUSTERS = (6, 12, 30)
ICCS = (0.05, 0.2)
DESIGNS = {  # true success rates of A and B (the demo's NoMemory/TextOnly, TextOnly/DualMem)
    "low": (0.07, 0.48),
    "mid": (0.48, 0.74),
}
QUESTION_VARIANCE = 0.5
RESAMPLES = 1000
LEVEL = 0.95


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _alpha(share: float, variance: float) -> float:
    """The latent intercept giving success rate ``share`` at total latent ``variance``."""
    return NormalDist().inv_cdf(share) * math.sqrt(1.0 + variance)


def _percentile(draws: np.ndarray) -> tuple[float, float]:
    low, high = np.quantile(draws, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    return float(low), float(high)


def replicate(
    rng: np.random.Generator, groups: int, icc: float, design: tuple[float, float]
) -> dict[str, bool]:
    """One paired design; which intervals cover the truth."""
    cluster_var = icc * (1 + QUESTION_VARIANCE) / (1 - icc)
    own_var = cluster_var / 2
    share_a, share_b = design
    alpha_a = _alpha(share_a, cluster_var + QUESTION_VARIANCE)
    alpha_b = _alpha(share_b, cluster_var + own_var + QUESTION_VARIANCE)
    sizes = 1 + rng.poisson(19, size=groups)
    cluster = np.repeat(np.arange(groups), sizes)
    u = rng.normal(0, math.sqrt(cluster_var), groups)[cluster]
    v = rng.normal(0, math.sqrt(own_var), groups)[cluster]
    e = rng.normal(0, math.sqrt(QUESTION_VARIANCE), cluster.size)
    a = (alpha_a + u + e + rng.normal(size=cluster.size) > 0).astype(float)
    b = (alpha_b + u + v + e + rng.normal(size=cluster.size) > 0).astype(float)
    # The truth, exactly: the latent is normal with the stated variance.
    true_a = _phi(alpha_a / math.sqrt(1 + cluster_var + QUESTION_VARIANCE))
    true_b = _phi(alpha_b / math.sqrt(1 + cluster_var + own_var + QUESTION_VARIANCE))
    covered: dict[str, bool] = {}

    def covers(name: str, low: float | None, high: float | None, truth: float) -> None:
        covered[name] = low is not None and high is not None and low <= truth <= high

    for side, values, truth in (("A", a, true_a), ("B", b, true_b)):
        found = share_interval(values, cluster, level=LEVEL)
        covers(f"share {side}", found.ci_low, found.ci_high, truth)
        # Before: probes resampled independently (binomial draws of the pooled share) ...
        n = values.size
        probe = rng.binomial(n, values.mean(), size=RESAMPLES) / n
        covers(f"probe bootstrap {side}", *_percentile(probe), truth)
        # ... and whole trunks resampled (the percentile cluster bootstrap).
        sums = np.bincount(cluster, weights=values)
        times = rng.multinomial(groups, np.full(groups, 1 / groups), size=RESAMPLES)
        covers(f"trunk bootstrap {side}", *_percentile((times @ sums) / (times @ sizes)), truth)
    found = difference_interval(b - a, cluster, level=LEVEL)
    covers("delta", found.ci_low, found.ci_high, true_b - true_a)
    return covered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=400)
    parser.add_argument("--seed", type=int, default=41)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    rows = []
    started = time.perf_counter()
    worst = 1.0
    for groups in CLUSTERS:
        for icc in ICCS:
            for design_name, design in DESIGNS.items():
                hits: dict[str, int] = {}
                for _ in range(args.replications):
                    for name, ok in replicate(rng, groups, icc, design).items():
                        hits[name] = hits.get(name, 0) + ok
                share = {name: hit / args.replications for name, hit in hits.items()}
                printed = min(share["share A"], share["share B"], share["delta"])
                worst = min(worst, printed)
                rows.append(
                    [
                        str(groups),
                        f"{icc:.2f}",
                        f"{design[0]:.2f} / {design[1]:.2f}",
                        f"{share['share A']:.1%}",
                        f"{share['share B']:.1%}",
                        f"{share['delta']:.1%}",
                        f"{share['probe bootstrap A']:.1%} / {share['probe bootstrap B']:.1%}",
                        f"{share['trunk bootstrap A']:.1%} / {share['trunk bootstrap B']:.1%}",
                        "met" if printed >= 0.93 else "NOT met",
                    ]
                )
                del design_name
    print_table(
        f"95 % interval coverage over {args.replications} replications per design "
        f"(seed {args.seed}, {time.perf_counter() - started:.0f} s)",
        [
            "clusters",
            "ICC",
            "true A / B",
            "share A",
            "share B",
            "Δ B − A",
            "before: probe bootstrap A / B",
            "before: trunk bootstrap A / B",
            "≥ 93 %",
        ],
        rows,
    )
    print(f"\nlowest coverage of an interval memscope prints: {worst:.1%}")


if __name__ == "__main__":
    main()
