"""``select_runs``, the one way references become run ids, and ``RunInfo``, the typed run
row, on a real DuckDB store."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import dialog, open_row, qa, write_run
from memscope.adapters import ReadOptions
from memscope.errors import NotFoundError, RunDirError
from memscope.store import Store
from memscope.usecases.runs.loading import load_run
from memscope.usecases.runs.run_info import RunInfo
from memscope.usecases.runs.selection import SelectOptions, check_refs, select_runs


def small_run(folder: Path) -> Path:
    data = dialog(
        {"D1": ["D1:1", "D1:2"]},
        [
            qa("Which mug?", "red", [["X1"], ["Y1"]], ["D1:1"], ["D1"]),
            qa("Which shelf?", "top", [["X2"], ["Y2"]], ["D1:2"], ["D1"]),
        ],
    )
    rows = [open_row(1, data, judge=0.0, seed=["D1:2"]), open_row(2, data, em=1.0, judge=1.0)]
    return write_run(folder, data, rows)


def test_each_reference_is_one_run_in_order(store: Store, tmp_path: Path) -> None:
    alpha = small_run(tmp_path / "runs" / "alpha")
    small_run(tmp_path / "runs" / "beta")
    selection = select_runs(store, [str(alpha)])  # a directory is ingested on the way
    assert selection.run_ids == ["alpha"] and not selection.defaulted
    select_runs(store, [str(tmp_path / "runs" / "beta")])
    both = select_runs(store, ["beta", "alpha", "beta"])
    assert both.run_ids == ["beta", "alpha", "beta"]  # compare A A keeps both
    assert both.distinct_ids == ["beta", "alpha"]
    assert both.folder is None and both.left_out == []


def test_no_reference_is_the_run_opened_last_and_says_so(store: Store, tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="no store here yet"):
        select_runs(store, [])
    select_runs(store, [str(small_run(tmp_path / "alpha"))])
    for refs in ([], [None]):
        selection = select_runs(store, refs)
        assert selection.run_ids == ["alpha"] and selection.defaulted


def test_a_folder_names_its_runs_only_where_folders_are_allowed(
    store: Store, tmp_path: Path
) -> None:
    small_run(tmp_path / "runs" / "alpha")
    small_run(tmp_path / "runs" / "beta")
    broken = small_run(tmp_path / "runs" / "broken")
    (broken / "predictions.jsonl").write_text("{not json\n")
    folder = str(tmp_path / "runs")
    with pytest.raises(RunDirError):
        select_runs(store, [folder])  # one run each: a folder of runs is not a run
    selection = select_runs(store, [folder], SelectOptions(folders=True))
    assert sorted(selection.run_ids) == ["alpha", "beta"]
    assert selection.folder == folder
    assert [Path(f.path).name for f in selection.left_out] == ["broken"]
    # Without ingesting, a folder is looked up as a run and nothing new is stored.
    with pytest.raises(NotFoundError):
        select_runs(store, [folder], SelectOptions(folders=True, ingest=False))


def test_unknown_and_lookalike_names_are_refused_with_candidates(
    store: Store, tmp_path: Path
) -> None:
    select_runs(store, [str(small_run(tmp_path / "srag_v\u200b"))])
    with pytest.raises(NotFoundError, match="looks the same") as refused:
        select_runs(store, ["srag_v"])
    assert "srag_v\\u200b" in str(refused.value.fix)
    assert select_runs(store, ["srag_v\\u200b"]).run_ids == ["srag_v\u200b"]
    with pytest.raises(NotFoundError, match="Did you mean"):
        select_runs(store, ["srag_x"])


def test_progress_is_told_each_reference(store: Store, tmp_path: Path) -> None:
    said: list[str] = []
    run_dir = str(small_run(tmp_path / "alpha"))
    select_runs(store, [run_dir], SelectOptions(progress=said.append))
    assert said == [f"Reading {run_dir} …"]


def test_check_refs_ingests_nothing(store: Store, tmp_path: Path) -> None:
    run_dir = small_run(tmp_path / "alpha")
    check_refs(store, [str(run_dir)])  # an existing directory passes unread
    assert not store.exists
    with pytest.raises(RunDirError, match="no such run directory"):
        check_refs(store, [str(tmp_path / "missing")])
    with pytest.raises(NotFoundError):
        check_refs(store, ["alpha"])


def test_run_info_reads_the_row_and_gives_it_back(store: Store, tmp_path: Path) -> None:
    run_id = select_runs(store, [str(small_run(tmp_path / "alpha"))]).first
    run = load_run(store, run_id).run
    assert isinstance(run, RunInfo) and run.run_id == "alpha"
    assert run.path == str((tmp_path / "alpha").resolve())
    row = run.as_row()
    assert list(row)[:4] == ["run_id", "benchmark", "dataset_id", "path"]
    assert RunInfo.from_row({**row, "em": 0.5}) == run  # a listing's extra keys are dropped
    assert run.value("model") == run.model and run.value("no such field") is None
    assert run.effective_k(3) == 3
    assert run.effective_k() == (run.top_k or 10)
    with pytest.raises(AttributeError):
        run.model = "other"  # type: ignore[misc]


def test_read_options_reach_the_reader(store: Store, tmp_path: Path) -> None:
    run_dir = small_run(tmp_path / "alpha")
    selection = select_runs(store, [str(run_dir)], SelectOptions(read=ReadOptions(strict=True)))
    assert selection.run_ids == ["alpha"]
