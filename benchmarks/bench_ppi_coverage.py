"""Coverage of ``memscope estimate``'s intervals on synthetic runs with a known prevalence.

Each draw makes a run of ``--failures`` failures in three Y strata (40 / 25 / 35 %) whose
true failure codes come from known per-stratum prevalences, and rule suggestions that
are right with probability ``accuracy`` (else another code at random). A stratified
proportional sample of ``--labels`` failures is drawn with memscope's own sampler, the
labels are the true codes, and ``usecases.estimate.compute_estimates`` (the code behind
the command) gives the overall 95 % intervals, labels only and PPI++. Per accuracy it
reports how often the intervals cover the true overall prevalence of every code, and the
mean width of PPI++ relative to labels only. Target: coverage in 93-97 % over 1,000
draws; PPI++ narrower than labels only for accuracy >= 0.7.

    .venv/bin/python benchmarks/bench_ppi_coverage.py [--draws 1000] [--failures 2000] [--labels 200]
        [--plugin]   # ppi-python's plug-in variances, for comparison
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np

from common import print_table
from figures import Figure, add_figures_option, at_least, at_most, below, write_script_figures

CODES = ("RET-MISS", "SEL-STALE", "USE-EVID", "RET-PART")
STRATA = {"Y1": 0.40, "Y2": 0.25, "Y3": 0.35}
PREVALENCE = {  # per stratum, over CODES
    "Y1": (0.45, 0.05, 0.35, 0.15),
    "Y2": (0.30, 0.10, 0.30, 0.30),
    "Y3": (0.15, 0.45, 0.20, 0.20),
}


def truth() -> np.ndarray:
    """The overall prevalence of each code (the strata's shares are fixed)."""
    return sum(share * np.array(PREVALENCE[h]) for h, share in STRATA.items())


def draw(
    rng: np.random.Generator,
    n_failures: int,
    n_labels: int,
    accuracy: float,
    seed: int,
    pseudo: float | None = None,
):
    """One synthetic run's estimates (overall, per code): labels-only and PPI++ intervals."""
    from memscope.analysis.sampling import sample_order
    from memscope.usecases.labels.estimate import compute_estimates
    from memscope.usecases.labels.sample import Failures, SamplePlan

    sizes = {h: round(share * n_failures) for h, share in STRATA.items()}
    strata = [h for h, size in sizes.items() for _ in range(size)]
    true_codes = [CODES[rng.choice(len(CODES), p=PREVALENCE[h])] for h in strata]
    suggested = []
    for code in true_codes:
        if rng.random() < accuracy:
            suggested.append(code)
        else:
            others = [c for c in CODES if c != code]
            suggested.append(others[rng.integers(len(others))])
    qids = [f"q{i}" for i in range(len(strata))]
    found = Failures("synthetic", "h", qids, ["X1"] * len(qids), strata, strata, suggested)
    items, counts = sample_order(strata, n_labels, seed=seed)
    planned = [item for item in items if item.planned]
    plan = SamplePlan(
        run_id="synthetic",
        run_hash="h",
        seed=seed,
        strata="y",
        sample_size=n_labels,
        allocation="proportional",
        per_stratum={h: {"failures": sizes[h], "planned": counts[h]} for h in sizes},
        qids=[qids[item.row] for item in items],
        stratum_of={qids[item.row]: item.stratum for item in items},
        inclusion_probability={qids[item.row]: item.inclusion_probability for item in items},
        planned={qids[item.row] for item in planned},
    )
    labelled = {qids[item.row]: true_codes[item.row] for item in planned}
    return compute_estimates(found, labelled, by="y", plan=plan, codes=list(CODES), pseudo=pseudo)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--failures", type=int, default=2000)
    parser.add_argument("--labels", type=int, default=200)
    parser.add_argument("--accuracies", type=float, nargs="+", default=[0.5, 0.7, 0.9])
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument(
        "--plugin",
        action="store_true",
        help="plug-in variances (ppi-python's) instead of the pseudo-count adjusted ones",
    )
    add_figures_option(parser)
    args = parser.parse_args()
    target = truth()
    rows = []
    figures: list[Figure] = []
    for accuracy in args.accuracies:
        rng = np.random.default_rng(args.seed)
        covered = {"labels": np.zeros(len(CODES)), "ppi": np.zeros(len(CODES))}
        widths = {"labels": [], "ppi": []}
        started = time.perf_counter()
        for index in range(args.draws):
            result = draw(
                rng,
                args.failures,
                args.labels,
                accuracy,
                seed=args.seed + index,
                pseudo=0.0 if args.plugin else None,
            )
            for position, code in enumerate(CODES):
                group = result.overall[code]
                for side, found in (("labels", group.labels), ("ppi", group.ppi)):
                    covered[side][position] += found.ci_low <= target[position] <= found.ci_high
                    widths[side].append(found.ci_high - found.ci_low)
        seconds = time.perf_counter() - started
        labels_cov = covered["labels"] / args.draws
        ppi_cov = covered["ppi"] / args.draws
        ratio = float(np.mean(widths["ppi"]) / np.mean(widths["labels"]))
        figures += coverage_figures(args, accuracy, labels_cov, ppi_cov, ratio)
        rows.append(
            [
                f"{accuracy:.1f}",
                f"{100 * labels_cov.min():.1f}–{100 * labels_cov.max():.1f} %",
                f"{100 * ppi_cov.min():.1f}–{100 * ppi_cov.max():.1f} %",
                f"{ratio:.2f}",
                f"{seconds:.0f} s",
            ]
        )
    print_table(
        f"{args.draws} draws · {args.failures} failures · {args.labels} labels (stratified by Y) · "
        f"{'plug-in' if args.plugin else 'adjusted'} variances · "
        f"coverage of the 95 % intervals, lowest–highest over {len(CODES)} codes",
        ["rule accuracy", "labels only", "PPI++", "PPI++ width / labels-only", "time"],
        rows,
    )
    write_script_figures(args.figures, figures)


def coverage_figures(
    args: argparse.Namespace,
    accuracy: float,
    labels_cov: np.ndarray,
    ppi_cov: np.ndarray,
    ratio: float,
) -> list[Figure]:
    """One accuracy's records: each interval's lowest and highest coverage, the width ratio."""
    variances = "plug-in" if args.plugin else "adjusted"
    key = f"coverage.{variances}.accuracy_{accuracy:g}.labels_{args.labels}"
    setting = f"rule accuracy {accuracy:g}, {args.labels} labels"
    common = {
        "group": "coverage",
        "size": args.failures,
        "trials": args.draws,
        "context": {"seed": args.seed, "variances": variances, "codes": list(CODES)},
    }
    figures = []
    for side, label, covered in (("labels", "labels only", labels_cov), ("ppi", "PPI++", ppi_cov)):
        for end, value, bound in (
            ("min", covered.min(), at_least(93)),
            ("max", covered.max(), at_most(97)),
        ):
            figures.append(
                Figure(
                    f"{key}.{side}.{end}",
                    name=f"{label} 95 % interval coverage, {'lowest' if end == 'min' else 'highest'} of {len(CODES)} codes; {setting}",
                    value=100 * float(value),
                    unit="%",
                    target=bound,
                    statistic=f"over {args.draws:,} draws",
                    **common,
                )
            )
    figures.append(
        Figure(
            f"{key}.width_ratio",
            name=f"PPI++ interval width / labels only; {setting}",
            value=ratio,
            unit="×",
            # PPI++ must only be narrower where the rule is good enough to help
            target=below(1) if accuracy >= 0.7 else None,
            statistic=f"ratio of mean widths over {args.draws:,} draws",
            baseline="the labels-only interval of the same draws",
            **common,
        )
    )
    return figures


if __name__ == "__main__":
    main()
