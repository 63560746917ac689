"""Times one step's opening of the store: ``Store.read()`` / ``Store.write()`` around a
one-row query, against a DuckDB connection of its own doing the same (the baseline).

memscope opens the store for every step (another process may want it between steps), so
this is paid by every command and by every app action that reads or saves. The store
attaches its file to one DuckDB instance per process (``memscope.store.attached``); the
baseline is what a step cost before, ``duckdb.connect`` on the file (a database instance
built each time). The store holds the demo run ``runs/srag_v``, ingested once into a
temporary folder. Ratios are of medians taken in the same run, alternating the two.

    .venv/bin/python benchmarks/bench_store_open.py [--repeat 200]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import median, print_table, time_call

QUERY = "SELECT count(*) FROM predictions"


def measure(repeat: int) -> list[list[str]]:
    """One row per kind of step: the store's median, the baseline's, and their ratio."""
    from memscope.adapters import ReadOptions
    from memscope.store import Store
    from memscope.store.attached import connect_offline
    from memscope.usecases.runs.ingest import ingest_dir_runs

    scratch = Path(tempfile.mkdtemp(prefix="memscope-bench-"))
    try:
        store = Store(scratch / "store.duckdb")
        ingest_dir_runs(store, HERE.parent / "runs" / "srag_v", ReadOptions())

        def store_read() -> None:
            with store.read() as con:
                con.execute(QUERY).fetchall()

        def store_write() -> None:
            with store.write() as con:
                con.execute("UPDATE runs SET opened_at = opened_at")

        def own_instance(read_only: bool) -> None:
            con = connect_offline(str(store.path), read_only=read_only)
            try:
                if read_only:
                    con.execute(QUERY).fetchall()
                else:
                    con.execute("UPDATE runs SET opened_at = opened_at")
            finally:
                con.close()

        rows = []
        for kind, ours, baseline in (
            ("read (read-only, one query)", store_read, lambda: own_instance(True)),
            ("write (read-write, one update)", store_write, lambda: own_instance(False)),
        ):
            ours(), baseline()  # warm: imports, the process's instance, the schema check
            times: tuple[list[float], list[float]] = ([], [])
            for _ in range(repeat):
                times[0].append(time_call(ours))
                times[1].append(time_call(baseline))
            mine, theirs = median(times[0]), median(times[1])
            rows.append(
                [kind, f"{mine * 1000:.1f} ms", f"{theirs * 1000:.1f} ms", f"{theirs / mine:.1f}×"]
            )
        return rows
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    print_table(
        f"One step's opening of the store (medians of {args.repeat}, alternated)",
        ["step", "Store (attached)", "duckdb.connect", "speed-up"],
        measure(args.repeat),
    )


if __name__ == "__main__":
    main()
