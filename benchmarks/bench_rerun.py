"""Times the run-level recency rerun (11 alphas) on a generated MemEye run, on one core.

The generated run (benchmarks/generate_run.py: seed_round_ids of top_k 10, scores for the
first five) is ingested into a temporary store and loaded once. Then, in alternation:

- ``vectorised``: the re-ranking and temporal metrics of every Y3 question for alpha =
  1.0 and ten more alphas, as ``memscope rerun`` computes them (``recency_order`` on the
  whole run, ``temporal_authority`` on the permuted pool);
- ``loop``: the same values from a plain numpy loop over questions (one row at a time:
  score, stable argsort of the scored slots, metrics), the obvious implementation;
- ``rerun_run``: the whole command's work, ``usecases.rerun.rerun_run``, including the
  paired bootstrap (10,000 resamples) for 4 metrics x 10 alphas.

Prints medians of the repetitions (the slow loop is repeated ``--loop-repeat`` times) and
the loop/vectorised ratio. Target: ``rerun_run``
under one second at 50,000 questions. BLAS threads are pinned to one.

    .venv/bin/python benchmarks/bench_rerun.py [--questions 50000] [--repeat 5]
"""

from __future__ import annotations

import os

for _variable in (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
):
    os.environ[_variable] = "1"

import argparse
import math
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import generated_run, median, print_table, time_call
from figures import Figure, above, add_figures_option, below, write_script_figures

ALPHAS = [round(0.1 * i, 1) for i in range(10)]  # with 1.0 (the original order): 11 alphas
LAMBDA = 0.02


def load(n_questions: int, scratch: Path):
    """Ingest the generated run into a store under ``scratch`` and load it."""
    from memscope.adapters import ReadOptions
    from memscope.store import Store
    from memscope.usecases.runs.ingest import ingest_dir
    from memscope.usecases.runs.loading import load_run

    store = Store(scratch / "store.duckdb")
    run_dir = generated_run(n_questions)
    outcome = ingest_dir(store, run_dir, ReadOptions())
    return load_run(store, outcome.run_id)


def y3_pool(data):
    """The Y3 questions' evidence, similarities, ages and validity (what both variants take)."""
    from memscope.analysis.arrays import PAD
    from memscope.analysis.evidence import EvidenceSet, latest_clue
    from memscope.analysis.rerank import candidate_ages

    ev = data.evidence
    rows = np.flatnonzero(ev.asks_latest & (latest_clue(ev) != PAD))
    subset = EvidenceSet(
        ev.ranked_pos[rows],
        ev.ranked_session[rows],
        ev.gold_pos[rows],
        ev.source_sessions[rows],
        ev.has_ranking[rows],
        ev.asks_latest[rows],
    )
    return (
        subset,
        data.scores[rows],
        candidate_ages(subset.ranked_pos, data.n_rounds),
        subset.ranked_pos != PAD,
    )


def vectorised(ev, sims, ages, valid, k: int) -> dict[float, dict[str, float]]:
    """Means of the four temporal metrics per alpha, the whole run at once."""
    from memscope.analysis.evidence import temporal_authority
    from memscope.analysis.rerank import recency_order

    result = {}
    for alpha in [1.0, *ALPHAS]:
        order = recency_order(sims, ages, valid, alpha, LAMBDA)
        values = temporal_authority(ev.reordered(order), k)
        result[alpha] = {name: float(np.nanmean(v)) for name, v in values.items()}
    return result


def loop(ev, sims, ages, valid, k: int) -> dict[float, dict[str, float]]:
    """The same means from a per-question numpy loop."""
    result = {}
    for alpha in [1.0, *ALPHAS]:
        totals = np.zeros(4)
        for i in range(ev.ranked_pos.shape[0]):
            real = valid[i]
            positions, sessions = ev.ranked_pos[i][real], ev.ranked_session[i][real]
            sim, age = sims[i][real], ages[i][real]
            slots = np.flatnonzero(~np.isnan(sim) & ~np.isnan(age))
            score = alpha * sim[slots] + (1 - alpha) * np.exp(-LAMBDA * age[slots])
            permutation = np.arange(len(positions))
            permutation[slots] = slots[np.argsort(-score, kind="stable")]
            reordered, reordered_sessions = positions[permutation], sessions[permutation]
            latest = ev.gold_pos[i].max()
            sources = ev.source_sessions[i][ev.source_sessions[i] != -1]
            stale = (
                (reordered_sessions[:, None] == sources[None, :]).any(axis=1)
                & (reordered > 0)
                & (reordered < latest)
            )
            is_latest = reordered == latest
            latest_in_k = bool(is_latest[:k].any())
            latest_rank = int(np.argmax(is_latest)) if is_latest.any() else len(reordered)
            inversion = latest_in_k and bool(stale[:latest_rank].any())
            dominance = (bool(stale[:k].any()) and not latest_in_k) or inversion
            totals += (latest_in_k, not latest_in_k, inversion, dominance)
        n = ev.ranked_pos.shape[0]
        result[alpha] = dict(
            zip(
                ("latest_at_k", "latest_miss", "rank_inversion", "stale_dominance"),
                totals / n,
                strict=True,
            )
        )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--loop-repeat", type=int, default=3, help="repetitions of the slow loop baseline"
    )
    parser.add_argument("--resamples", type=int, default=10_000)
    add_figures_option(parser)
    args = parser.parse_args()

    from memscope.usecases.rerun.run_rerank import rerun_run

    scratch = Path(tempfile.mkdtemp(prefix="memscope-bench-rerun-"))
    try:
        data = load(args.questions, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    k = data.run.top_k or 10
    ev, sims, ages, valid = y3_pool(data)
    fast, slow = vectorised(ev, sims, ages, valid, k), loop(ev, sims, ages, valid, k)
    for alpha in fast:  # both variants must agree before either is timed
        for name, value in fast[alpha].items():
            assert math.isclose(value, slow[alpha][name], abs_tol=1e-12), (
                alpha,
                name,
                value,
                slow[alpha][name],
            )
    times: dict[str, list[float]] = {"vectorised": [], "loop": [], "rerun_run": []}
    for repetition in range(args.repeat):
        times["vectorised"].append(time_call(lambda: vectorised(ev, sims, ages, valid, k)))
        if repetition < args.loop_repeat:
            times["loop"].append(time_call(lambda: loop(ev, sims, ages, valid, k)))
        times["rerun_run"].append(
            time_call(lambda: rerun_run(data, ALPHAS, lam=LAMBDA, resamples=args.resamples))
        )
    medians = {name: median(values) for name, values in times.items()}
    n_y3 = ev.ranked_pos.shape[0]
    print_table(
        f"Recency rerun, 11 alphas, {args.questions:,} questions ({n_y3:,} Y3, pool {ev.ranked_pos.shape[1]}, K={k}); "
        f"medians of {args.repeat} (loop: {min(args.repeat, args.loop_repeat)}), one core",
        ["variant", "median", "vs loop"],
        [
            ["per-question numpy loop (re-rank + metrics)", f"{medians['loop']:.3f} s", "1.0×"],
            [
                "vectorised (re-rank + metrics)",
                f"{medians['vectorised']:.3f} s",
                f"{medians['loop'] / medians['vectorised']:.1f}× faster",
            ],
            [
                f"rerun_run (+ paired bootstrap, {args.resamples:,} resamples)",
                f"{medians['rerun_run']:.3f} s",
                "target < 1 s: " + ("met" if medians["rerun_run"] < 1.0 else "missed"),
            ],
        ],
    )
    loop_trials = min(args.repeat, args.loop_repeat)
    common = {
        "group": "rerun",
        "size": args.questions,
        "context": {"y3_questions": n_y3, "pool": int(ev.ranked_pos.shape[1]), "k": k},
    }
    write_script_figures(
        args.figures,
        [
            Figure(
                "rerun.loop",
                name="rerun 11 alphas, per-question numpy loop (re-rank + metrics)",
                value=medians["loop"],
                unit="s",
                statistic=f"median of {loop_trials}, one core",
                trials=loop_trials,
                note="baseline",
                **common,
            ),
            Figure(
                "rerun.vectorised",
                name="rerun 11 alphas, vectorised (re-rank + metrics)",
                value=medians["vectorised"],
                unit="s",
                statistic=f"median of {args.repeat}, one core",
                trials=args.repeat,
                **common,
            ),
            Figure(
                "rerun.speedup",
                name="rerun 11 alphas, vectorised speed-up over the loop",
                value=medians["loop"] / medians["vectorised"],
                unit="×",
                target=above(1),
                statistic="ratio of the medians",
                baseline="a plain numpy loop over questions",
                trials=args.repeat,
                **common,
            ),
            Figure(
                "rerun.rerun_run",
                name=f"`rerun_run` (+ paired bootstrap, {args.resamples:,} resamples)",
                value=medians["rerun_run"],
                unit="s",
                target=below(1),
                statistic=f"median of {args.repeat}, one core",
                trials=args.repeat,
                **common,
            ),
        ],
    )


if __name__ == "__main__":
    main()
