"""Issue 39, item 2: one row builder (``memscope.plugin.RunRows``, ``DatasetRows``,
``run_record``) for predictions, retrievals and skip notices, and ToyBench written on it."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from memscope.errors import RunDirError
from memscope.plugin import DatasetRows, RunRows, run_record

ROOT = Path(__file__).resolve().parents[2]
TOY_SOURCE = ROOT / "examples" / "benchmark-plugin" / "src" / "memscope_toybench"
TOY_LIMIT = 250
"""Issue 39: ToyBench on the new contract in at most 250 lines of source (597 before)."""


def _dataset(tmp_path: Path):
    rows = DatasetRows("toy", "mini")
    rows.session("s1", "2024-01-01")
    rows.round("r1", "A: hello")
    rows.round("r2", "B: hi")
    rows.session("s2")
    rows.round("r3", "A: moved")
    rows.question("Where?", "home", clue_ids=["r1", "r3", "nope"], extra={"kind": "fact"})
    rows.question("Who?", "B", mode="mc")
    path = tmp_path / "data.json"
    path.write_text("{}", encoding="utf-8")
    return rows.record(path)


def test_dataset_rows_count_positions_orders_and_qids(tmp_path: Path) -> None:
    dataset = _dataset(tmp_path)
    assert [(r.round_id, r.session_id, r.position, r.round_order) for r in dataset.rounds] == [
        ("r1", "s1", 1, 1),
        ("r2", "s1", 2, 2),
        ("r3", "s2", 3, 1),
    ]
    first, second = dataset.questions
    assert (first.qid, first.idx, first.mode, second.qid, second.mode) == (
        "q1",
        1,
        "open",
        "q2",
        "mc",
    )
    assert first.clue_ids == ["r1", "r3", "nope"] and first.clue_rounds == ["r1", "r3"]
    assert first.source_sessions == ["s1", "s2"] and first.extra == {"kind": "fact"}
    assert first.question_key != second.question_key
    assert dataset.dataset_id == f"toy-{dataset.content_hash[:12]}"
    with pytest.raises(ValueError, match="repeated"):
        DatasetRows("toy", "mini").round("r1")


def test_predictions_default_to_the_datasets_question_and_type_their_columns(
    tmp_path: Path,
) -> None:
    rows = RunRows(_dataset(tmp_path), source="answers.csv")
    assert rows.prediction("q1", pred="home", em=1.0, line_no=2, extra={"n": 1})
    rows.retrieval("q1", 1, "r3")
    rows.retrieval("q1", 2, "r1", score=0.5)
    predictions, retrievals = rows.tables()
    found = predictions.to_pylist()
    assert found == [
        {
            "qid": "q1",
            "line_no": 2,
            "mode": "open",
            "question": "Where?",
            "gold": "home",
            "pred": "home",
            "em": 1.0,
            "extra": json.dumps({"n": 1}),
        }
    ]
    assert predictions.schema.field("line_no").type == pa.int32()
    assert retrievals.to_pydict() == {
        "qid": ["q1", "q1"],
        "rank": [1, 2],
        "round_id": ["r3", "r1"],
        "score": [None, 0.5],
        "origin": ["logged", "logged"],
    }
    assert rows.notices == []


def test_judge_and_f1_columns_appear_only_where_given() -> None:
    rows = RunRows(mode="open")
    rows.prediction("a", pred="x", gold="x", em=1.0)
    rows.prediction("b", pred="y", gold="x", em=0.0, judge=1.0, f1=0.5)
    predictions, _ = rows.tables()
    assert predictions.column("judge").to_pylist() == [None, 1.0]
    assert predictions.column("f1").to_pylist() == [None, 0.5]
    assert "judge_reasoning" not in predictions.column_names
    plain, _ = RunRows().tables(require_rows=False)
    assert "judge" not in plain.column_names and plain.num_rows == 0


def test_unknown_repeated_and_skipped_rows_become_notices(tmp_path: Path) -> None:
    rows = RunRows(_dataset(tmp_path), source="answers.csv")
    assert rows.prediction("q1", pred="a", line_no=2)
    assert not rows.prediction("q1", pred="b", line_no=3)
    assert not rows.prediction("q9", pred="c", line_no=4)
    rows.skip("answers.csv:5", "correct is not 0 or 1")
    predictions, _ = rows.tables()
    assert predictions.column("pred").to_pylist() == ["a"]
    said = {notice.what: notice.examples for notice in rows.notices}
    assert said == {
        "1 row(s) skipped: a qid given twice": ("answers.csv:3",),
        "1 row(s) skipped: a qid the dataset does not have": ("answers.csv:4",),
        "1 row(s) skipped: correct is not 0 or 1": ("answers.csv:5",),
    }
    rows.tables()  # asked twice, said once
    assert len(rows.notices) == 3


def test_strict_refuses_a_run_with_any_skipped_row(tmp_path: Path) -> None:
    rows = RunRows(_dataset(tmp_path), strict=True, source="answers.csv")
    rows.prediction("q1", pred="a", line_no=2)
    rows.skip("answers.csv:3", "correct is not 0 or 1")
    with pytest.raises(RunDirError, match=r"1 bad row\(s\).*--strict") as raised:
        rows.tables()
    assert raised.value.where == "answers.csv:3"


def test_no_usable_row_is_one_clear_error() -> None:
    with pytest.raises(RunDirError, match="no usable prediction row"):
        RunRows(source="answers.csv").tables()


def test_run_record_defaults_what_a_simple_benchmark_need_not_say(tmp_path: Path) -> None:
    dataset = _dataset(tmp_path)
    run_dir = tmp_path / "my_run"
    run_dir.mkdir()
    answers = run_dir / "answers.csv"
    answers.write_text("x", encoding="utf-8")
    rows = RunRows(dataset, source=str(answers), mode="open")
    rows.prediction("q1", pred="a", em=1.0)
    rows.prediction("q9", pred="b")
    rows.retrieval("q1", 1, "r1")
    record = run_record(
        run_dir,
        benchmark="toy",
        dataset=dataset,
        rows=rows,
        files=[answers, run_dir / "absent.json"],
        inputs=[tmp_path / "data.json"],
        method="bm25",
    )
    assert (record.run_id, record.task, record.base_method, record.mode) == (
        "my_run",
        "mini",
        "bm25",
        "open",
    )
    assert record.retrieval_kind == "ranked" and record.config == {} and record.metrics == {}
    assert set(record.file_stats) == {"answers.csv"}
    assert record.predictions.num_rows == 1 and len(record.notices) == 1
    other = run_record(
        run_dir, benchmark="toy", dataset=dataset, rows=rows, files=[answers], method="bm25"
    )
    assert other.content_hash != record.content_hash  # the dataset file is part of the hash


def test_toybench_is_at_most_250_lines_of_source() -> None:
    lines = sum(
        len(path.read_text(encoding="utf-8").splitlines()) for path in TOY_SOURCE.rglob("*.py")
    )
    assert lines <= TOY_LIMIT, f"ToyBench is {lines} lines of source (at most {TOY_LIMIT})"
