"""Runs the whole benchmark suite, one script after another, and prints every table.

    .venv/bin/python benchmarks/run_all.py            # the figures in benchmarks/README.md
    .venv/bin/python benchmarks/run_all.py --quick    # a smoke run on small sizes

Generated runs are cached in benchmarks/_work/ (the first run writes them). Each script can
also run alone; see its docstring for what it measures and against which baseline.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

FULL = [
    ["bench_ingest.py", "--questions", "1000", "10000", "50000", "--repeat", "5"],
    ["bench_report.py", "--repeat", "5"],
    ["bench_rerun.py", "--repeat", "5"],
    ["bench_labels.py", "--labels", "200", "--repeat", "3"],
    ["bench_app.py", "--repeat", "3", "--presses", "100"],
    ["bench_engine.py", "--repeats", "3"],
]
QUICK = [
    ["bench_ingest.py", "--questions", "1000", "--repeat", "2"],
    ["bench_report.py", "--questions", "1000", "--repeat", "2"],
    ["bench_rerun.py", "--questions", "1000", "--repeat", "2", "--loop-repeat", "1"],
    ["bench_labels.py", "--questions", "1000", "--labels", "20", "--repeat", "1"],
    ["bench_app.py", "--questions", "1000", "--repeat", "1", "--presses", "10"],
    ["bench_engine.py", "--quick"],
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="small sizes, to check that everything runs"
    )
    args = parser.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M")
    print(f"memscope benchmarks, {started}, {'quick' if args.quick else 'full'} suite")
    for script in QUICK if args.quick else FULL:
        print(f"\n$ python benchmarks/{' '.join(script)}", flush=True)
        subprocess.run([sys.executable, str(HERE / script[0]), *script[1:]], check=True)


if __name__ == "__main__":
    main()
