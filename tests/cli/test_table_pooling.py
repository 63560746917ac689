"""``memscope table`` never counts a question twice unsaid (issue 41 item 3): a row pools
disjoint parts or repeats of one configuration (said in the caption); runs that overlap
otherwise are split into rows with a warning; a lone row's label names the system."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_locomo import layout, run_output, small_dataset, write_json
from memscope.cli import app
from memscope.usecases.table.pooling import Pooling, classify

runner = CliRunner()


def _answers(conversations: list[str], f1: float) -> dict:
    return {
        c: {f"q{i}": {"m_prediction": "x", "m_f1": f1} for i in range(1, 8)} for c in conversations
    }


def _runs(root: Path, files: dict[str, tuple[list[str], float]]) -> Path:
    data = small_dataset()
    first, *rest = files.items()
    folder = layout(root, data, run_output(data, _answers(*first[1])), name=f"{first[0]}.json")
    for name, (conversations, f1) in rest:
        write_json(folder / f"{name}.json", run_output(data, _answers(conversations, f1)))
    return folder


def _table(folder: Path, *args: str):
    result = runner.invoke(app, ["table", str(folder), "--metric", "f1", *args])
    assert result.exit_code == 0, result.output
    return result


def test_classify() -> None:
    assert classify([["a", "b"]]) == Pooling("single")
    assert classify([["a", "b"], ["c"]]) == Pooling("disjoint")
    assert classify([["a", "b"], ["b", "a"], ["c"], ["c"]]) == Pooling("repeats", repeats=(2, 2))
    assert classify([["a", "b"], ["a"]]) == Pooling("overlap", shared=1)
    # A run that asks a question twice is not a repeat of one that asks it once.
    assert classify([["a", "a"], ["a"]]).kind == "overlap"


def test_overlapping_runs_are_split_with_a_warning(tmp_path: Path, store) -> None:
    # One run is both conversations, another conv-a alone: conv-a's 7 questions would be
    # counted twice in one row (issue 41: rsr_0612:honcho + honcho:honcho, n 2,185).
    folder = _runs(tmp_path, {"full": (["conv-a", "conv-b"], 1.0), "part": (["conv-a"], 0.5)})
    result = _table(folder, "--format", "json")
    table = json.loads(result.stdout)
    assert [row["n_questions"] for row in table["rows"]] == [9, 7]
    assert [row["label"] for row in table["rows"]] == [
        "m · no_rag · model:full:m",
        "m · no_rag · model:part:m",
    ]
    assert "share 7 question(s)" in table["notes"][0]
    assert "share 7 question(s)" in " ".join(result.stderr.split())


def test_disjoint_parts_pool_into_one_row_named_by_model_and_method(tmp_path: Path, store) -> None:
    folder = _runs(tmp_path, {"a": (["conv-a"], 1.0), "b": (["conv-b"], 0.5)})
    result = _table(folder, "--format", "json")
    [row] = json.loads(result.stdout)["rows"]
    assert row["n_questions"] == 9 and "repeats" not in row
    assert row["label"] == "m · no_rag"  # never only "no_rag"
    assert "warning" not in result.stderr


@pytest.mark.parametrize("copies", [2, 3])
def test_repeats_pool_and_the_caption_says_how_many(tmp_path: Path, store, copies: int) -> None:
    folder = _runs(
        tmp_path, {f"r{i}": (["conv-a", "conv-b"], 0.5 + 0.1 * i) for i in range(copies)}
    )
    [row] = json.loads(_table(folder, "--format", "json").stdout)["rows"]
    assert row["repeats"] == [copies] and row["n_questions"] == 9 * copies
    text = _table(folder, "--format", "markdown").stdout.splitlines()[0]
    assert f"pooling {copies} repeats of one configuration per row" in text
