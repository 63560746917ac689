"""Times ``memscope report --format json`` on an ingested generated MemEye run.

The run (benchmarks/generate_run.py, cached in benchmarks/_work) is ingested once into a
temporary store; the report command then runs ``--repeat`` times as a whole process (start-up
included: what a user waits for). Target: under 2 s at 50,000 questions.

    .venv/bin/python benchmarks/bench_report.py [--questions 50000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import VENV_BIN, generated_run, median, print_table, time_command
from figures import Figure, add_figures_option, below, write_script_figures


def measure(n_questions: int, repeat: int) -> float:
    """Median seconds of ``memscope report RUN --format json`` on an ingested run."""
    run_dir = generated_run(n_questions)
    scratch = Path(tempfile.mkdtemp(prefix="memscope-bench-"))
    env = dict(os.environ, MEMSCOPE_DB=str(scratch / "store.duckdb"))
    memscope = str(VENV_BIN / "memscope")
    try:
        time_command([memscope, "ingest", str(run_dir)], env=env)
        return median(
            [
                time_command([memscope, "report", "srag_bench", "--format", "json"], env=env)
                for _ in range(repeat)
            ]
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, nargs="+", default=[50_000])
    parser.add_argument("--repeat", type=int, default=5)
    add_figures_option(parser)
    args = parser.parse_args()
    rows = []
    figures: list[Figure] = []
    for n in args.questions:
        seconds = measure(n, args.repeat)
        figures.append(
            Figure(
                f"report.json.{n}",
                group="report",
                name=f"`memscope report --format json`, {n:,} questions",
                value=seconds,
                unit="s",
                target=below(2),
                statistic=f"median of {args.repeat} whole processes",
                size=n,
                trials=args.repeat,
            )
        )
        rows.append([f"{n:,}", f"{seconds:.2f} s", "met" if seconds < 2 else "missed"])
    print_table(
        f"memscope report --format json (medians of {args.repeat})",
        ["questions", "time", "target < 2 s"],
        rows,
    )
    write_script_figures(args.figures, figures)


if __name__ == "__main__":
    main()
