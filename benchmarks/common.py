"""Shared helpers for the benchmark scripts: generated runs (cached), timing, tables.

Benchmarks measure; they never assert. Each reports medians over repetitions and, where a
baseline exists, the ratio to it measured in the same run, because these machines are noisy.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Generated runs are cached here; MEMSCOPE_BENCH_WORK moves the cache (the smoke test does).
WORK = Path(os.environ.get("MEMSCOPE_BENCH_WORK") or HERE / "_work")
VENV_BIN = Path(sys.executable).parent


def generated_run(n_questions: int) -> Path:
    """A generated MemEye-layout run of ``n_questions`` (made once, then reused)."""
    from generate_run import generate  # benchmarks/ is on sys.path when scripts run from it

    out = WORK / f"memeye_{n_questions}"
    run_dir = out / "runs" / "bench_task" / "srag_bench"
    if not (run_dir / "predictions.jsonl").is_file():
        print(f"generating a {n_questions:,}-question run in {out} …", file=sys.stderr)
        started = time.perf_counter()
        generate(out, n_questions)
        # How long it took, for the benchmarks that report it (bench_app.py).
        seconds = time.perf_counter() - started
        (out / "generated.json").write_text(json.dumps({"seconds": seconds}) + "\n")
    return run_dir


def generation_seconds(n_questions: int) -> float | None:
    """How long generating the cached run took, where that was recorded."""
    record = WORK / f"memeye_{n_questions}" / "generated.json"
    if not record.is_file():
        return None
    return float(json.loads(record.read_text())["seconds"])


def bytecode_env(**extra: str) -> dict[str, str]:
    """This process's environment for a timed child that imports from compiled bytecode,
    as an installed memscope does: the shared environment sets PYTHONDONTWRITEBYTECODE
    (every import would compile its module from source again), so children get a bytecode
    cache of the benchmarks' own. ``extra``: more variables. Time a child only after one
    untimed run has filled the cache."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return env | {"PYTHONPYCACHEPREFIX": str(WORK / "pycache")} | extra


def time_command(argv: list[str], env: dict[str, str] | None = None) -> float:
    """Wall time of one command (it must succeed)."""
    started = time.perf_counter()
    subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def time_call(call: Callable[[], object]) -> float:
    """Wall time of one in-process call."""
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def median(values: list[float]) -> float:
    """The median (the figure quoted everywhere)."""
    return statistics.median(values)


def print_table(title: str, header: list[str], rows: list[list[str]]) -> None:
    """A plain-text table on stdout (pasteable into benchmarks/README.md)."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]
    print(f"\n{title}\n")
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)) + " |")
