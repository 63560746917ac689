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

``--weighted`` runs designs with design weights instead (issue 28): two plan strata inside
one estimate stratum, sampled at different rates (the first is the issue's example: 900
failures with 10 labels + 100 with 20, prevalence 0.2), and reports the coverage of the
adjusted intervals beside ppi-python's plug-in ones in the same draws, with their mean
widths. ``--verdicts`` does the same for ``memscope audit``'s accuracy estimator: a run's
questions in three levels, a grader with given sensitivity and specificity, a verdict
sample stratified by level x grader outcome (memscope's sampler), and the overall
verdict-only and PPI++ intervals (``analysis.grader_audit``, design-weighted).
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


# (name, plan strata as (failures, labels), prevalence of the first code per plan stratum)
WEIGHTED_DESIGNS = (
    ("900/10 + 100/20, p 0.2", ((900, 10), (100, 20)), (0.2, 0.2)),
    ("900/10 + 100/20, p 0.05 / 0.4", ((900, 10), (100, 20)), (0.05, 0.4)),
    ("500/10 + 500/40, p 0.3", ((500, 10), (500, 40)), (0.3, 0.3)),
    ("1800/20 + 200/40, p 0.1 / 0.3", ((1800, 20), (200, 40)), (0.1, 0.3)),
)
TWO_CODES = ("RET-MISS", "SEL-STALE")


def weighted_draw(
    rng: np.random.Generator,
    strata: tuple[tuple[int, int], ...],
    prevalence: tuple[float, ...],
    accuracy: float,
    pseudo: float | None,
    seed: int,
) -> tuple[float, dict]:
    """One weighted design: the true overall share of RET-MISS and the estimates of the
    same draw with adjusted (``pseudo`` None) and plug-in (0) variances."""
    from memscope.usecases.labels.estimate import compute_estimates
    from memscope.usecases.labels.sample import Failures, SamplePlan

    plan_strata = [f"P{index}" for index, (size, _) in enumerate(strata) for _ in range(size)]
    shares = {f"P{index}": p for index, p in enumerate(prevalence)}
    true_codes = [TWO_CODES[0] if rng.random() < shares[h] else TWO_CODES[1] for h in plan_strata]
    suggested = [
        code if rng.random() < accuracy else TWO_CODES[1 - TWO_CODES.index(code)]
        for code in true_codes
    ]
    qids = [f"q{i}" for i in range(len(plan_strata))]
    found = Failures(
        "synthetic",
        "h",
        qids,
        ["X1"] * len(qids),
        ["Y1"] * len(qids),
        ["X1Y1"] * len(qids),
        suggested,
    )
    chosen: list[int] = []
    start = 0
    probability: dict[str, float] = {}
    for size, labels in strata:
        rows = start + rng.choice(size, labels, replace=False)
        chosen += rows.tolist()
        for row in range(start, start + size):
            probability[qids[row]] = labels / size
        start += size
    plan = SamplePlan(
        run_id="synthetic",
        run_hash="h",
        seed=seed,
        strata="cell",
        sample_size=sum(labels for _, labels in strata),
        allocation="fixed",
        per_stratum={f"P{i}": {"failures": n, "planned": k} for i, (n, k) in enumerate(strata)},
        qids=[qids[row] for row in chosen],
        stratum_of=dict(zip(qids, plan_strata, strict=True)),
        inclusion_probability=probability,
        planned={qids[row] for row in chosen},
    )
    labelled = {qids[row]: true_codes[row] for row in chosen}
    truth_share = float(np.mean([code == TWO_CODES[0] for code in true_codes]))
    results = {
        name: compute_estimates(
            found, labelled, by="y", plan=plan, codes=list(TWO_CODES), pseudo=value
        ).overall[TWO_CODES[0]]
        for name, value in (("adjusted", pseudo), ("plug-in", 0.0))
    }
    return truth_share, results


# (name, questions per level, true accuracy per level, grader sensitivity, specificity, verdicts)
VERDICT_DESIGNS = (
    (
        "3 levels, 200 q, 40 verdicts, sens 0.9 spec 0.9",
        (70, 80, 50),
        (0.5, 0.6, 0.9),
        0.9,
        0.9,
        40,
    ),
    (
        "3 levels, 200 q, 40 verdicts, sens 0.95 spec 0.7",
        (70, 80, 50),
        (0.5, 0.6, 0.9),
        0.95,
        0.7,
        40,
    ),
    (
        "3 levels, 2000 q, 100 verdicts, sens 0.9 spec 0.8",
        (700, 800, 500),
        (0.3, 0.6, 0.8),
        0.9,
        0.8,
        100,
    ),
)


def verdict_draw(
    rng: np.random.Generator,
    sizes: tuple[int, ...],
    accuracy: tuple[float, ...],
    sensitivity: float,
    specificity: float,
    n_verdicts: int,
    seed: int,
) -> tuple[float, dict]:
    """One synthetic audit: the true accuracy of the run's answers, and the overall
    verdict-only and PPI++ estimates of the same draw with adjusted and plug-in variances."""
    from memscope.analysis.grader_audit import accuracy_estimates
    from memscope.analysis.ppi import agresti_pseudo
    from memscope.analysis.sampling import sample_order

    levels = [index for index, size in enumerate(sizes) for _ in range(size)]
    truth = np.array([float(rng.random() < accuracy[level]) for level in levels])
    passes = np.where(
        truth == 1.0, rng.random(truth.size) < sensitivity, rng.random(truth.size) >= specificity
    ).astype(float)
    strata = [
        f"L{level}·{'pass' if grade else 'fail'}"
        for level, grade in zip(levels, passes, strict=True)
    ]
    items, _counts = sample_order(strata, n_verdicts, seed=seed)
    planned = [item for item in items if item.planned]
    rows = np.array([item.row for item in planned])
    weights = np.array([1.0 / item.inclusion_probability for item in planned])
    results = {}
    for name, pseudo in (("adjusted", agresti_pseudo()), ("plug-in", 0.0)):
        found = accuracy_estimates(
            passes, truth[rows], passes[rows], pseudo=pseudo, weights=weights
        )
        results[name] = found
    return float(truth.mean()), results


def coverage_rows(args: argparse.Namespace) -> None:
    """``--weighted`` and ``--verdicts``: coverage and widths, adjusted beside plug-in."""
    rows = []
    started = time.perf_counter()
    if args.weighted:
        for name, strata, prevalence in WEIGHTED_DESIGNS:
            for accuracy in args.accuracies:
                rng = np.random.default_rng(args.seed)
                tally = {
                    key: []
                    for key in ("labels adjusted", "labels plug-in", "ppi adjusted", "ppi plug-in")
                }
                for index in range(args.draws):
                    truth_share, found = weighted_draw(
                        rng, strata, prevalence, accuracy, None, args.seed + index
                    )
                    for variance, group in found.items():
                        for side, estimate in (("labels", group.labels), ("ppi", group.ppi)):
                            tally[f"{side} {variance}"].append(
                                (
                                    estimate.ci_low <= truth_share <= estimate.ci_high,
                                    estimate.ci_high - estimate.ci_low,
                                )
                            )
                rows.append(_row(f"{name}, rule accuracy {accuracy:g}", tally))
        title = "weighted designs (two plan strata in one estimate stratum), RET-MISS overall"
    else:
        for name, sizes, accuracy, sensitivity, specificity, n_verdicts in VERDICT_DESIGNS:
            rng = np.random.default_rng(args.seed)
            tally = {
                key: []
                for key in ("labels adjusted", "labels plug-in", "ppi adjusted", "ppi plug-in")
            }
            for index in range(args.draws):
                truth, found = verdict_draw(
                    rng, sizes, accuracy, sensitivity, specificity, n_verdicts, args.seed + index
                )
                for variance, result in found.items():
                    for side, estimate in (("labels", result.verdict_only), ("ppi", result.ppi)):
                        tally[f"{side} {variance}"].append(
                            (
                                estimate.ci_low <= truth <= estimate.ci_high,
                                estimate.ci_high - estimate.ci_low,
                            )
                        )
            rows.append(_row(name, tally))
        title = "the verdict estimator (memscope audit), true accuracy overall"
    print_table(
        f"{args.draws} draws · {title} · 95 % intervals: coverage (mean width), "
        f"memscope's adjusted variance beside ppi-python's plug-in · {time.perf_counter() - started:.0f} s",
        [
            "design",
            "labels only, adjusted",
            "labels only, plug-in",
            "PPI++, adjusted",
            "PPI++, plug-in",
        ],
        rows,
    )


def _row(name: str, tally: dict[str, list[tuple[bool, float]]]) -> list[str]:
    cells = [name]
    for key in ("labels adjusted", "labels plug-in", "ppi adjusted", "ppi plug-in"):
        covered = np.mean([hit for hit, _ in tally[key]])
        width = np.mean([width for _, width in tally[key]])
        cells.append(f"{100 * covered:.1f} % ({width:.3f})")
    return cells


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
    parser.add_argument(
        "--weighted",
        action="store_true",
        help="designs with design weights (two plan strata in one estimate stratum)",
    )
    parser.add_argument(
        "--verdicts", action="store_true", help="the verdict estimator of memscope audit"
    )
    add_figures_option(parser)
    args = parser.parse_args()
    if args.weighted or args.verdicts:
        coverage_rows(args)
        return
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
