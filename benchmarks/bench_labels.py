"""Times label commits the way the triage app makes them: key press to durable.

The app turns a label key into an op on its LabelQueue; a writer thread commits it
(``memscope.usecases.labels.events``) and only then posts LabelSaved. This measures, per label,
the time from ``push`` to that post, on a store holding the generated 50,000-question run,
with labels ``--gap`` seconds apart (a person labelling quickly): p50 and p95, plus the
first label (the writer opens the store) on its own. Target: p95 < 20 ms.

    .venv/bin/python benchmarks/bench_labels.py [--questions 50000] [--labels 200] [--gap 0.1]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import generated_run, median, print_table
from figures import Figure, add_figures_option, below, write_script_figures


def measure(store_path: Path, run_id: str, labels: int, gap: float) -> list[float]:
    """Seconds from push to LabelSaved for each label, in order."""
    from memscope.store import Store
    from memscope.triage.label_queue import LabelOp, LabelQueue, LabelSaved

    store = Store(store_path)
    queue = LabelQueue()
    pushed: dict[str, float] = {}
    latencies: list[float] = []
    done = threading.Event()

    def post(message: object) -> None:
        if isinstance(message, LabelSaved):
            latencies.append(time.perf_counter() - pushed[message.qid])
            if len(latencies) == labels:
                done.set()
        else:
            raise SystemExit(f"a label failed: {message}")

    writer: threading.Thread | None = None
    for number in range(1, labels + 1):
        qid = f"q{number}"
        pushed[qid] = time.perf_counter()
        queue.push(LabelOp("set", run_id, qid, "bench", codes=("RET-MISS",)))
        if writer is None or not writer.is_alive():  # the app starts a writer worker per key
            writer = threading.Thread(target=queue.write_pending, args=(store, post))
            writer.start()
        time.sleep(gap)
    done.wait(60)
    queue.stop_lingering()
    if writer is not None:
        writer.join()
    return latencies


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=50_000)
    parser.add_argument("--labels", type=int, default=200)
    parser.add_argument("--gap", type=float, default=0.1)
    parser.add_argument("--repeat", type=int, default=3)
    add_figures_option(parser)
    args = parser.parse_args()
    from memscope.adapters import ReadOptions
    from memscope.store import Store
    from memscope.usecases.runs.ingest import ingest_dir

    scratch = Path(tempfile.mkdtemp(prefix="memscope-bench-labels-"))
    os.environ["MEMSCOPE_CONFIG"] = str(scratch / "config.toml")
    try:
        store_path = scratch / "store.duckdb"
        run_id = ingest_dir(Store(store_path), generated_run(args.questions), ReadOptions()).run_id
        runs = [measure(store_path, run_id, args.labels, args.gap) for _ in range(args.repeat)]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    first = median([run[0] for run in runs])
    p50 = median([percentile(run[1:], 50) for run in runs])
    p95 = median([percentile(run[1:], 95) for run in runs])
    print_table(
        f"label commit, key press to durable ({args.labels} labels {args.gap:.2f} s apart, medians of {args.repeat})",
        ["what", "measured", "target"],
        [
            ["first label (opens the store)", f"{first * 1000:.1f} ms", ""],
            ["next labels p50", f"{p50 * 1000:.1f} ms", ""],
            [
                "next labels p95",
                f"{p95 * 1000:.1f} ms",
                "< 20 ms " + ("met" if p95 < 0.02 else "missed"),
            ],
        ],
    )
    context = {"labels": args.labels, "gap_s": args.gap}
    common = {"group": "labels", "unit": "ms", "size": args.questions, "trials": args.repeat}
    later = f"over labels 2–{args.labels} of each round, median of {args.repeat} rounds"
    write_script_figures(
        args.figures,
        [
            Figure(
                "labels.first",
                name="label commit, first label (opens the store)",
                value=first * 1000,
                statistic=f"median of {args.repeat} rounds",
                context=context,
                **common,
            ),
            Figure(
                "labels.next.p50",
                name="label commit, key press to durable, p50",
                value=p50 * 1000,
                statistic=f"p50 {later}",
                context=context,
                **common,
            ),
            Figure(
                "labels.next.p95",
                name="label commit, key press to durable, p95",
                value=p95 * 1000,
                target=below(20),
                statistic=f"p95 {later}",
                context=context,
                **common,
            ),
        ],
    )


if __name__ == "__main__":
    main()
