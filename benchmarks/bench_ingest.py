"""Times ``memscope ingest`` of a generated MemEye run against DuckDB's own ``read_json``.

Both are timed as whole commands (a fresh process each, so both pay their start-up), in
alternation, into a fresh store each time. The baseline materialises the same
predictions.jsonl with ``CREATE TABLE … AS SELECT * FROM read_json(…)``. Target: ingest
within 2× of the baseline.

    .venv/bin/python benchmarks/bench_ingest.py [--questions 50000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import VENV_BIN, bytecode_env, generated_run, median, print_table, time_command
from figures import Figure, add_figures_option, at_most, write_script_figures

BASELINE = (
    "import duckdb, sys; con = duckdb.connect(); "
    "con.execute('CREATE TABLE t AS SELECT * FROM read_json(?)', [sys.argv[1]])"
)


def measure(n_questions: int, repeat: int) -> dict[str, float]:
    """Median seconds of memscope ingest and of the read_json baseline."""
    run_dir = generated_run(n_questions)
    predictions = run_dir / "predictions.jsonl"
    ingest_times: list[float] = []
    baseline_times: list[float] = []
    for trial in range(repeat + 1):  # the first, untimed, fills the bytecode cache
        scratch = Path(tempfile.mkdtemp(prefix="memscope-bench-"))
        env = bytecode_env(MEMSCOPE_DB=str(scratch / "store.duckdb"))
        try:
            baseline = time_command([sys.executable, "-c", BASELINE, str(predictions)], env=env)
            ingest = time_command([str(VENV_BIN / "memscope"), "ingest", str(run_dir)], env=env)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        if trial:
            baseline_times.append(baseline)
            ingest_times.append(ingest)
    return {"ingest": median(ingest_times), "baseline": median(baseline_times)}


def figures_of(n_questions: int, result: dict[str, float], repeat: int) -> list[Figure]:
    """The records of one size: both sides and their ratio (target ≤ 2×)."""
    common = {"group": "ingest", "size": n_questions, "trials": repeat}
    statistic = f"median of {repeat} whole processes"
    return [
        Figure(
            f"ingest.memscope.{n_questions}",
            name=f"`memscope ingest`, {n_questions:,} questions",
            value=result["ingest"],
            unit="s",
            statistic=statistic,
            **common,
        ),
        Figure(
            f"ingest.read_json.{n_questions}",
            name=f"DuckDB `read_json` of the same predictions, {n_questions:,} questions",
            value=result["baseline"],
            unit="s",
            statistic=statistic,
            note="baseline",
            **common,
        ),
        Figure(
            f"ingest.ratio.{n_questions}",
            name=f"`memscope ingest` / `read_json`, {n_questions:,} questions",
            value=result["ingest"] / result["baseline"],
            unit="×",
            target=at_most(2),
            statistic="ratio of the medians",
            baseline="DuckDB read_json of the same predictions file",
            **common,
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, nargs="+", default=[50_000])
    parser.add_argument("--repeat", type=int, default=5)
    add_figures_option(parser)
    args = parser.parse_args()
    rows = []
    figures: list[Figure] = []
    for n in args.questions:
        result = measure(n, args.repeat)
        figures += figures_of(n, result, args.repeat)
        ratio = result["ingest"] / result["baseline"]
        rows.append(
            [
                f"{n:,}",
                f"{result['ingest']:.2f} s",
                f"{result['baseline']:.2f} s",
                f"{ratio:.2f}×",
                "met" if ratio <= 2 else "missed",
            ]
        )
    print_table(
        f"memscope ingest vs DuckDB read_json (medians of {args.repeat})",
        ["questions", "memscope ingest", "read_json baseline", "ratio", "target ≤ 2×"],
        rows,
    )
    write_script_figures(args.figures, figures)


if __name__ == "__main__":
    main()
