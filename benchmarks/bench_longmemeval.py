"""Times LongMemEval at LongMemEval_M's size: ingest of the dataset and one run against
DuckDB's own ``read_json`` of the same dataset file, its peak memory, and re-ingest of the
unchanged run against an empty ``memscope runs``.

The dataset is generated (``scripts/demo/make_longmemeval_demo.py``'s ``write_m_sized``:
6 x 82 + 4 = 496 questions, each over 500 shared filler sessions plus its evidence, as
LongMemEval_M has about 500 sessions a question; ``--turn-chars`` sets the file's size) with
one judged full-history run. Every figure is a whole process, in alternation, into a fresh
store each time, the median of ``--repeat`` after one untimed round. Targets: ingest ≤ 2×
``read_json``; peak memory of the ingest < 2 GiB (it must stream); re-ingest of the unchanged
run ≤ 2× ``memscope runs`` on an empty store.

    .venv/bin/python benchmarks/bench_longmemeval.py [--sessions 500] [--turn-chars 600] [--repeat 3]
    .venv/bin/python benchmarks/bench_longmemeval.py --questions-per-type 10 --sessions 100  # smaller

The defaults are LongMemEval_M's size (82 questions a type, 500 sessions a question);
``run_all.py`` runs it at that size with shorter turns (``--turn-chars 300``, about 520 MB)
in its full suite and smaller in ``--quick`` / ``--smoke``. ``--figures FILE`` writes the
figures as records (group ``longmemeval``) for ``run_all.py --json``.

The child processes register the ``longmemeval`` entry point when the installed package
metadata predates it (a checkout run with ``PYTHONPATH=src``), as the tests do.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import WORK, bytecode_env, median, print_table
from figures import Figure, add_figures_option, at_most, below, write_script_figures

ROOT = Path(__file__).resolve().parents[1]
BASELINE = (
    'import duckdb, sys; con = duckdb.connect(); con.execute("CREATE TABLE t AS SELECT * '
    "FROM read_json(?, format='array', maximum_object_size=1000000000)\", [sys.argv[1]])"
)
MEMSCOPE = """
import resource, sys
from importlib import metadata
from memscope.adapters import registry
from memscope.adapters.registry import GROUP
points = list(metadata.entry_points(group=GROUP))
if not any(point.name == "longmemeval" for point in points):
    points.append(metadata.EntryPoint(
        name="longmemeval", value="memscope.adapters.longmemeval:BENCHMARK", group=GROUP))
    registry.reset(points)
from memscope.cli import app
sys.argv = ["memscope", *sys.argv[1:]]
try:
    app()
finally:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(f"PEAK_KIB {peak}", file=sys.stderr)
"""


def _generator():  # type: ignore[no-untyped-def]
    path = ROOT / "scripts" / "demo" / "make_longmemeval_demo.py"
    spec = importlib.util.spec_from_file_location("make_longmemeval_demo", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def generated(sessions: int, turn_chars: int, per_type: int = 82) -> tuple[Path, Path]:
    """The cached M-sized tree: (dataset file, run folder)."""
    size = "" if per_type == 82 else f"_{per_type}q"
    out = WORK / f"longmemeval_m_{sessions}_{turn_chars}{size}"
    dataset = out / "data" / "longmemeval_m.json"
    run_dir = out / "generation_logs" / "full-history-session" / "gpt-4o-mini" / "con"
    if not dataset.is_file() or not run_dir.is_dir():
        print(f"generating an M-sized LongMemEval tree in {out} …", file=sys.stderr)
        shutil.rmtree(out, ignore_errors=True)
        _generator().write_m_sized(
            out,
            questions_per_type=per_type,
            sessions_per_question=sessions,
            turn_chars=turn_chars,
        )
    return dataset, run_dir


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Wall seconds of one command (it must succeed) and its peak KiB where it reports it."""
    started = time.perf_counter()
    done = subprocess.run(
        argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    seconds = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"{argv[:4]} failed:\n{done.stderr[-2000:]}")
    peak = [
        int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("PEAK_KIB")
    ]
    return seconds, peak[-1] if peak else 0


def measure(sessions: int, turn_chars: int, repeat: int, per_type: int = 82) -> dict[str, float]:
    dataset, run_dir = generated(sessions, turn_chars, per_type)
    memscope = [sys.executable, "-c", MEMSCOPE]
    got: dict[str, list[float]] = {
        "ingest": [],
        "read_json": [],
        "peak": [],
        "again": [],
        "runs": [],
    }
    for trial in range(repeat + 1):  # the first, untimed, fills the bytecode cache
        scratch = Path(tempfile.mkdtemp(prefix="memscope-bench-"))
        empty = Path(tempfile.mkdtemp(prefix="memscope-bench-"))
        env = bytecode_env(MEMSCOPE_DB=str(scratch / "store.duckdb"), PYTHONPATH=str(ROOT / "src"))
        empty_env = env | {"MEMSCOPE_DB": str(empty / "store.duckdb")}
        try:
            baseline, _ = timed([sys.executable, "-c", BASELINE, str(dataset)], env)
            ingest, peak = timed([*memscope, "ingest", str(run_dir)], env)
            again, _ = timed([*memscope, "ingest", str(run_dir)], env)
            runs, _ = timed([*memscope, "runs"], empty_env)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
            shutil.rmtree(empty, ignore_errors=True)
        if trial:
            for key, value in (
                ("ingest", ingest),
                ("read_json", baseline),
                ("peak", peak / 1024),
                ("again", again),
                ("runs", runs),
            ):
                got[key].append(value)
    result = {key: median(values) for key, values in got.items()}
    result["size_mb"] = dataset.stat().st_size / 1e6
    result["questions"] = float(
        sum(1 for line in (run_dir.glob("*.eval-results-*")).__next__().open())
    )
    return result


def figures(r: dict[str, float], args: argparse.Namespace) -> list[Figure]:
    """The measured figures as records (``--figures``)."""
    questions = int(r["questions"])
    common = {
        "statistic": f"median of {args.repeat} whole processes, in alternation",
        "size": questions,
        "trials": args.repeat,
    }
    shape = {
        "questions": questions,
        "sessions_per_question": args.sessions,
        "turn_chars": args.turn_chars,
        "dataset_mb": round(r["size_mb"], 1),
    }
    ingest = {"ingest_s": r["ingest"], "read_json_s": r["read_json"]}
    again = {"reingest_s": r["again"], "runs_s": r["runs"]}
    return [
        Figure("longmemeval.ingest", "longmemeval", "LongMemEval ingest (dataset + 1 run)", r["ingest"], "s", context=shape, **common),  # type: ignore[arg-type]
        Figure("longmemeval.read_json", "longmemeval", "DuckDB read_json of the same dataset", r["read_json"], "s", context=shape, **common),  # type: ignore[arg-type]
        Figure("longmemeval.ratio.ingest", "longmemeval", "LongMemEval ingest / read_json", r["ingest"] / r["read_json"], "×", target=at_most(2), baseline="DuckDB read_json of the same file", context=shape | ingest, **common),  # type: ignore[arg-type]
        Figure("longmemeval.peak", "longmemeval", "LongMemEval ingest, peak memory", r["peak"], "MiB", target=below(2048), context=shape, **common),  # type: ignore[arg-type]
        Figure("longmemeval.ratio.reingest", "longmemeval", "LongMemEval re-ingest unchanged / empty `memscope runs`", r["again"] / r["runs"], "×", target=at_most(2), baseline="memscope runs on an empty store", context=shape | again, **common),  # type: ignore[arg-type]
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=500)
    parser.add_argument("--turn-chars", type=int, default=600)
    parser.add_argument(
        "--questions-per-type",
        type=int,
        default=82,
        help="questions of each of the six types (82: LongMemEval_M's 496 with 4 abstention)",
    )
    parser.add_argument("--repeat", type=int, default=3)
    add_figures_option(parser)
    args = parser.parse_args()
    r = measure(args.sessions, args.turn_chars, args.repeat, args.questions_per_type)
    ratio, again = r["ingest"] / r["read_json"], r["again"] / r["runs"]
    print_table(
        f"LongMemEval: {int(r['questions'])} questions x {args.sessions} sessions, "
        f"{r['size_mb']:,.0f} MB (medians of {args.repeat})",
        ["figure", "value", "target", ""],
        [
            ["memscope ingest (dataset + 1 run)", f"{r['ingest']:.2f} s", "", ""],
            ["DuckDB read_json of the dataset", f"{r['read_json']:.2f} s", "", ""],
            ["ingest / read_json", f"{ratio:.2f}x", "≤ 2x", "met" if ratio <= 2 else "missed"],
            ["peak memory of the ingest", f"{r['peak']:,.0f} MiB", "< 2048 MiB", "met" if r["peak"] < 2048 else "missed"],
            ["re-ingest, unchanged", f"{r['again']:.2f} s", "", ""],
            ["memscope runs, empty store", f"{r['runs']:.2f} s", "", ""],
            ["re-ingest / empty runs", f"{again:.2f}x", "≤ 2x", "met" if again <= 2 else "missed"],
        ],
    )  # fmt: skip
    write_script_figures(args.figures, figures(r, args))


if __name__ == "__main__":
    main()
