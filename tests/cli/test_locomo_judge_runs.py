"""Each judge run of a harness that judges every answer several times (EverMemOS, MemOS),
and their majority vote, as ``table`` metrics (issue 38 items 4 and 7); ``judge`` stays
the mean. The expected values are the harness's own per-run scores in its summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from builders_locomo import small_dataset, write_json
from builders_locomo_harness import evermemos_file, mem0_file, memos_file
from memscope.cli import app

runner = CliRunner()


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def table_json(runs: Path, metric: str) -> dict[str, Any]:
    return json.loads(invoke("table", str(runs), "--metric", metric, "-f", "json"))


def all_cells(runs: Path, metric: str) -> dict[str, tuple[float | None, int]]:
    """Per system (the row label's last part), its ``all`` cell: value and n."""
    return {
        row["label"].split(" · ")[-1]: (row["cells"]["all"]["value"], row["cells"]["all"]["n"])
        for row in table_json(runs, metric)["rows"]
    }


def test_each_judge_run_and_the_majority_are_metrics(tmp_path: Path) -> None:
    dataset = write_json(tmp_path / "dataset.json", small_dataset())
    evermemos = evermemos_file(
        small_dataset(), judged={"conv-a:q1": False}, third_wrong={"conv-a:q2", "conv-b:q1"}
    )
    write_json(tmp_path / "runs" / "evermemos" / "eval_results.json", evermemos)
    write_json(tmp_path / "runs" / "memobase" / "memobase_results.json", mem0_file(small_dataset()))
    invoke("ingest", str(tmp_path / "runs"), "--dataset", str(dataset))
    runs = tmp_path / "runs"

    run_scores = evermemos["metadata"]["run_scores"]  # the harness's own, per judge run
    assert run_scores[2] < run_scores[0]  # the third judge run disagrees on two answers
    for number, expected in enumerate(run_scores, start=1):
        value, n = all_cells(runs, f"judge_run_{number}")["evermemos"]
        assert value == pytest.approx(expected) and n == 8
    # Majority of three: the third run alone never outvotes the first two.
    assert all_cells(runs, "judge_majority")["evermemos"][0] == pytest.approx(7 / 8)
    # The default judge metric stays the mean over the judge runs (the harness's accuracy).
    judge = all_cells(runs, "judge")["evermemos"][0]
    assert judge == pytest.approx(evermemos["accuracy"])
    # A harness with one judge per answer has no judge runs: its cell is empty, not 0.
    assert all_cells(runs, "judge_run_1")["memobase"][0] is None
    notes = table_json(runs, "judge_run_1")["notes"]
    assert any("no judge_run_1 in the files of: memobase" in note for note in notes)


def test_memos_two_judge_runs(tmp_path: Path) -> None:
    dataset = write_json(tmp_path / "dataset.json", small_dataset())
    judged = memos_file(small_dataset(), judged={"conv-a:q1": False})
    write_json(tmp_path / "runs" / "memos" / "memos_locomo_judged.json", judged)
    invoke("ingest", str(tmp_path / "runs"), "--dataset", str(dataset))
    runs = tmp_path / "runs"
    assert all_cells(runs, "judge_run_2")["memos"] == (pytest.approx(7 / 8), 8)
    assert all_cells(runs, "judge_run_3")["memos"][0] is None  # MemOS judged twice
    assert all_cells(runs, "judge_majority")["memos"][0] == pytest.approx(7 / 8)


def test_the_table_help_names_the_judge_run_metrics() -> None:
    result = runner.invoke(app, ["table", "--help"], env={"COLUMNS": "400"})
    assert "judge_run_N" in result.output and "judge_majority" in result.output
