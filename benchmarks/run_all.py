"""Runs the whole benchmark suite, one script after another, and prints every table.

    .venv/bin/python benchmarks/run_all.py            # the figures in benchmarks/README.md
    .venv/bin/python benchmarks/run_all.py --quick    # a smoke run on small sizes
    .venv/bin/python benchmarks/run_all.py --smoke    # tiny sizes, seconds (what the test runs)
    .venv/bin/python benchmarks/run_all.py --json figures.json   # also every figure as records
    .venv/bin/python benchmarks/render_table.py figures.json --readme benchmarks/README.md

``--json FILE`` writes one document (schema in benchmarks/figures.py) with every figure of
every script: name, value, unit, target, met, and how it was taken. It is written once, at
the end, atomically: a failed script leaves no file. ``render_table.py`` turns it into the
README's tables. ``--only`` / ``--skip`` pick scripts by name (``app``, ``engine``, …).

Generated runs are cached in benchmarks/_work/ (the first run writes them;
``MEMSCOPE_BENCH_WORK`` moves the cache). Each script can also run alone; see its
docstring for what it measures and against which baseline.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from figures import SCHEMA, FiguresError, atomic_write_text, dump, now, read_document

SUITES: dict[str, list[list[str]]] = {
    "full": [
        ["bench_ingest.py", "--questions", "1000", "10000", "50000", "--repeat", "5"],
        ["bench_sweep.py", "--sizes", "192", "1280", "--tiny", "5000", "--repeat", "3"],
        ["bench_report.py", "--repeat", "5"],
        ["bench_rerun.py", "--repeat", "5"],
        ["bench_labels.py", "--labels", "200", "--repeat", "3"],
        ["bench_import_labels.py", "--rows", "1000000", "--repeat", "3"],
        ["bench_app.py", "--repeat", "3", "--presses", "100"],
        ["bench_engine.py", "--repeats", "3"],
        # LongMemEval_M's 496 questions x 500 sessions, shorter turns (about 520 MB); the
        # several-GB file of the README's second row is `--turn-chars 1500`, run alone
        ["bench_longmemeval.py", "--turn-chars", "300", "--repeat", "1"],
        ["bench_ppi_coverage.py", "--draws", "1000"],
        ["bench_ppi_coverage.py", "--draws", "1000", "--labels", "600", "--accuracies", "0.9"],
    ],
    "quick": [
        ["bench_ingest.py", "--questions", "1000", "--repeat", "2"],
        ["bench_sweep.py", "--sizes", "16", "--tiny", "200", "--repeat", "2"],
        ["bench_report.py", "--questions", "1000", "--repeat", "2"],
        ["bench_rerun.py", "--questions", "1000", "--repeat", "2", "--loop-repeat", "1"],
        ["bench_labels.py", "--questions", "1000", "--labels", "20", "--repeat", "1"],
        ["bench_import_labels.py", "--rows", "100000", "--repeat", "1"],
        ["bench_app.py", "--questions", "1000", "--repeat", "1", "--presses", "10"],
        ["bench_engine.py", "--quick"],
        [
            "bench_longmemeval.py",
            "--questions-per-type",
            "10",
            "--sessions",
            "100",
            "--repeat",
            "1",
        ],
        ["bench_ppi_coverage.py", "--draws", "50"],
    ],
    # Every script once at the smallest sizes that still measure something: for the test
    # that checks the plumbing, not for figures anyone should quote.
    "smoke": [
        ["bench_ingest.py", "--questions", "100", "--repeat", "1"],
        ["bench_sweep.py", "--sizes", "16", "--tiny", "20", "--repeat", "1"],
        ["bench_report.py", "--questions", "100", "--repeat", "1"],
        ["bench_rerun.py", "--questions", "100", "--repeat", "1", "--loop-repeat", "1"],
        ["bench_labels.py", "--questions", "100", "--labels", "3", "--gap", "0", "--repeat", "1"],
        ["bench_import_labels.py", "--questions", "100", "--rows", "1000", "--repeat", "1"],
        ["bench_app.py", "--questions", "100", "--repeat", "1", "--presses", "2"],
        [
            "bench_engine.py",
            "--devices",
            "cpu",
            "--threads",
            "1",
            "--text-items",
            "8",
            "--text-batch",
            "4",
            "--skip-images",
            "--banks",
            "1000",
            "--queries",
            "1",
            "--ivf-bank",
            "0",
            "--repeats",
            "1",
        ],
        [
            "bench_longmemeval.py",
            "--questions-per-type",
            "1",
            "--sessions",
            "5",
            "--turn-chars",
            "50",
            "--repeat",
            "1",
        ],
        ["bench_ppi_coverage.py", "--draws", "5", "--accuracies", "0.9"],
    ],
}


def script_name(script: list[str]) -> str:
    """``bench_app.py`` → ``app`` (what --only and --skip take)."""
    return script[0].removeprefix("bench_").removesuffix(".py")


def merge(suite: str, started: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One document from every script's own."""
    return {
        "schema": SCHEMA,
        "suite": suite,
        "started": started,
        "finished": now(),
        "source": "measured",
        "scripts": [entry for part in parts for entry in part["scripts"]],
        "figures": [record for part in parts for record in part["figures"]],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument(
        "--quick", action="store_true", help="small sizes, to check that everything runs"
    )
    size.add_argument(
        "--smoke", action="store_true", help="tiny sizes, seconds: checks the plumbing only"
    )
    parser.add_argument(
        "--json", type=Path, metavar="FILE", help="write every figure as JSON records to FILE"
    )
    names = sorted({script_name(script) for script in SUITES["full"]})
    parser.add_argument("--only", nargs="+", choices=names, metavar="NAME", help=", ".join(names))
    parser.add_argument("--skip", nargs="+", choices=names, metavar="NAME", default=[])
    args = parser.parse_args(argv)
    suite = "quick" if args.quick else "smoke" if args.smoke else "full"
    scripts = [
        script
        for script in SUITES[suite]
        if (args.only is None or script_name(script) in args.only)
        and script_name(script) not in args.skip
    ]
    started = now()
    print(f"memscope benchmarks, {time.strftime('%Y-%m-%d %H:%M')}, {suite} suite", flush=True)
    parts: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="memscope-bench-figures-") as scratch:
        for number, script in enumerate(scripts):
            print(f"\n$ python benchmarks/{' '.join(script)}", flush=True)
            figures_file = Path(scratch) / f"{number}.json"
            extra = ["--figures", str(figures_file)] if args.json else []
            done = subprocess.run([sys.executable, str(HERE / script[0]), *script[1:], *extra])
            if done.returncode:
                written = f"; nothing written to {args.json}" if args.json else ""
                print(
                    f"run_all: {script[0]} failed (exit status {done.returncode}){written}",
                    file=sys.stderr,
                )
                return 1
            if args.json:
                try:
                    parts.append(read_document(figures_file))
                except FiguresError as error:
                    print(f"run_all: {script[0]} wrote no usable figures: {error}", file=sys.stderr)
                    return 1
    if args.json:
        document = merge(suite, started, parts)
        atomic_write_text(args.json, dump(document))
        print(f"\n{len(document['figures'])} figures written to {args.json}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
