"""Labels survive the labelling process being killed, and two writers share one store.

A subprocess labels questions one after another and prints ``saved qN`` after each
``record_label`` returns; the test kills it with SIGKILL at seeded random moments and
checks that every label it reported as saved is in the store, which still opens cleanly.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from builders import dialog, open_row, qa, write_run
from memscope.adapters import ReadOptions
from memscope.store import Store
from memscope.usecases.labels.events import current_labels
from memscope.usecases.runs.ingest import ingest_dir

N_QUESTIONS = 40

LABELLER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from memscope.usecases.labels.events import record_label
    from memscope.store import Store

    store = Store(Path(sys.argv[1]), wait_s=30)
    annotator = sys.argv[2]
    for idx in range(1, int(sys.argv[3]) + 1):
        record_label(store, "run", f"q{idx}", codes=["RET-MISS"], annotator=annotator, note=f"note {idx}")
        print(f"saved q{idx}", flush=True)
    """
)


@pytest.fixture
def labelled_store(tmp_path: Path) -> Path:
    data = dialog(
        {"D1": ["D1:1"]},
        [qa(f"Question {i}?", "a", [["X1"], ["Y1"]], ["D1:1"]) for i in range(N_QUESTIONS)],
    )
    run_dir = write_run(
        tmp_path / "runs" / "run", data, [open_row(i, data) for i in range(1, N_QUESTIONS + 1)]
    )
    store_path = tmp_path / "store.duckdb"
    ingest_dir(Store(store_path), run_dir, ReadOptions())
    return store_path


def start_labeller(
    store_path: Path, annotator: str, count: int = N_QUESTIONS
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", LABELLER, str(store_path), annotator, str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, MEMSCOPE_CONFIG=str(store_path.parent / "none.toml")),
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_labels_reported_saved_survive_sigkill(labelled_store: Path, seed: int) -> None:
    process = start_labeller(labelled_store, f"killed-{seed}")
    assert process.stdout is not None
    first = process.stdout.readline()  # labels are flowing once the first is reported
    assert first.startswith("saved "), process.stderr.read() if process.stderr else first
    time.sleep(random.Random(seed).uniform(0.0, 1.5))
    process.send_signal(signal.SIGKILL)
    output, _ = process.communicate()
    reported = {
        line.split()[1] for line in (first + output).splitlines() if line.startswith("saved ")
    }
    stored = current_labels(Store(labelled_store), "run", annotator=f"killed-{seed}")
    assert reported <= set(stored), sorted(reported - set(stored))
    for qid in reported:
        assert list(stored[qid].codes) == ["RET-MISS"]


def test_two_labelling_processes_share_the_store(labelled_store: Path) -> None:
    first = start_labeller(labelled_store, "alice", 15)
    second = start_labeller(labelled_store, "bob", 15)
    for process in (first, second):
        output, errors = process.communicate(timeout=300)
        assert process.returncode == 0, errors
        assert output.count("saved ") == 15
    store = Store(labelled_store)
    assert len(current_labels(store, "run", annotator="alice")) == 15
    assert len(current_labels(store, "run", annotator="bob")) == 15
