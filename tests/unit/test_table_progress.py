"""``build_table`` says how far its bootstrap is (``memscope table --ci`` shows it as a
progress line on a terminal) and bootstraps rows on several threads; neither changes a
number."""

from __future__ import annotations

from pathlib import Path

import pytest

from memscope.adapters import ReadOptions
from memscope.store import Store
from memscope.usecases.runs.batch import load_runs
from memscope.usecases.runs.ingest import ingest_paths
from memscope.usecases.runs.loading import RunData
from memscope.usecases.table.build import TableOptions, build_table

DEMO = Path(__file__).parents[2] / "runs"
MEMEYE = ("srag_t", "srag_v", "fc_v", "oracle_v", "qonly")


@pytest.fixture(scope="module")
def memeye_runs(tmp_path_factory: pytest.TempPathFactory) -> list[RunData]:
    store = Store(tmp_path_factory.mktemp("progress") / "store.duckdb")
    outcomes, failures = ingest_paths(store, [DEMO / name for name in MEMEYE], ReadOptions())
    assert not failures
    return load_runs(store, [outcome.run_id for outcome in outcomes], detail=False)


def test_progress_counts_every_bootstrapped_cell(memeye_runs: list[RunData]) -> None:
    told: list[tuple[int, int]] = []
    options = TableOptions(ci=True, per_run=True, baseline=memeye_runs[0].run.run_id)
    table = build_table(
        memeye_runs, options, on_progress=lambda done, total: told.append((done, total))
    )
    rows, columns = len(table.rows), len(table.columns)
    # Intervals for every row, then Δ for every row but the baseline's.
    total = (rows + rows - 1) * columns
    assert len(told) == rows + rows - 1
    assert all(seen_total == total for _, seen_total in told)
    assert [done for done, _ in told] == sorted(done for done, _ in told)
    assert told[-1] == (total, total)
    assert table.to_json() == build_table(memeye_runs, options).to_json()


def test_no_bootstrap_no_progress(memeye_runs: list[RunData]) -> None:
    told: list[tuple[int, int]] = []
    build_table(
        memeye_runs, TableOptions(), on_progress=lambda done, total: told.append((done, total))
    )
    assert told == []


@pytest.mark.parametrize("average", ["questions", "tasks"])
def test_threads_change_no_number(
    memeye_runs: list[RunData], monkeypatch: pytest.MonkeyPatch, average: str
) -> None:
    from memscope.usecases.table import build

    options = TableOptions(ci=True, average=average, baseline="semantic_rag_text_only")
    monkeypatch.setattr(build, "_bootstrap_threads", lambda rows: 1)
    alone = build_table(memeye_runs, options).to_json()
    monkeypatch.setattr(build, "_bootstrap_threads", lambda rows: 4)
    assert build_table(memeye_runs, options).to_json() == alone
    per_run = TableOptions(ci=True, per_run=True)
    threaded = build_table(memeye_runs, per_run).to_json()
    monkeypatch.setattr(build, "_bootstrap_threads", lambda rows: 1)
    assert build_table(memeye_runs, per_run).to_json() == threaded


def test_a_failing_row_stops_the_rows_not_started() -> None:
    import threading
    import time

    from memscope.usecases.table.build import _each_row

    started: list[int] = []
    lock = threading.Lock()

    def compute(index: int) -> int:
        with lock:
            started.append(index)
        if index == 0:
            raise ValueError("row 0 failed")
        time.sleep(0.01)
        return index

    with pytest.raises(ValueError, match="row 0 failed"):
        list(_each_row(compute, 200, 2))
    assert len(started) < 200  # the rest were cancelled, not computed after the failure
    assert list(_each_row(lambda index: index * 2, 5, 2)) == [0, 2, 4, 6, 8]
