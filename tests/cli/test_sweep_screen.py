"""``benchmarks/sweep_screen.py``: the runs screen over a (small) generated sweep, measured
from start to its first row drawn in fresh child processes, against an empty Textual app.
Checks the plumbing (records in ``figures.py``'s format, the rows the screen drew), not the
numbers."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))


def test_the_runs_screen_of_a_sweep_is_measured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMSCOPE_BENCH_WORK", str(tmp_path / "work"))
    import bench_sweep
    import sweep_screen
    from memscope.adapters import ReadOptions
    from memscope.store import Store
    from memscope.usecases.runs.ingest import ingest_paths

    monkeypatch.setattr(bench_sweep, "WORK", tmp_path / "work")
    root = bench_sweep.generated_sweep(16)
    store_path = tmp_path / "store.duckdb"
    outcomes, failures = ingest_paths(Store(store_path), [root / "runs"], ReadOptions())
    assert not failures and len(outcomes) == 16
    assert sweep_screen.sweep_folder(store_path) == (root / "runs").resolve()

    records = sweep_screen.measure(store_path, 1)
    by_id = {record["id"]: record for record in records}
    assert set(by_id) == {
        "sweep.screen.empty.16",
        "sweep.screen.memscope.16",
        "sweep.ratio.screen.16",
    }
    for record in records:
        assert record["script"] == "sweep_screen.py" and record["group"] == "sweep"
        assert record["size"] == 16 and record["trials"] == 1 and record["value"] > 0
    empty, ours = by_id["sweep.screen.empty.16"], by_id["sweep.screen.memscope.16"]
    assert by_id["sweep.ratio.screen.16"]["value"] == pytest.approx(ours["value"] / empty["value"])
