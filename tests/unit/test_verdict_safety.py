"""Issue 41, items 8 and 9: the audit's "latest verdict of anyone" is the latest in time,
and ``audit`` refuses a threshold that is no score and names why a judge audit is empty."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders import dialog, open_row, qa, write_run
from memscope.adapters import ReadOptions
from memscope.cli import app
from memscope.store import Store
from memscope.store import labels as stored
from memscope.usecases.labels.events import current_labels, record_label
from memscope.usecases.labels.verdicts import current_verdicts, record_verdict
from memscope.usecases.runs.ingest import ingest_dir

SESSIONS = {"D1": ["D1:1", "D1:2"]}


def _run(tmp_path: Path, judged: set[int], n: int = 12) -> Path:
    data = dialog(
        SESSIONS,
        [qa(f"Question {i}?", "gold", [["X1"], ["Y1"]], ["D1:1"], ["D1"]) for i in range(1, n + 1)],
    )
    rows = [
        open_row(i, data, judge=(1.0 if i % 2 else 0.0) if i in judged else None, seed=["D1:1"])
        for i in range(1, n + 1)
    ]
    return write_run(tmp_path / "runs" / "judged", data, rows, top_k=1)


@pytest.fixture
def run_id(tmp_path: Path, store: Store) -> str:
    return ingest_dir(store, _run(tmp_path, set(range(1, 13))), ReadOptions()).run_id


def _old_event(store: Store, run_id: str, *, annotator: str, verdict: str, when: datetime) -> None:
    """An event inserted now but made long ago (as an imported one is)."""
    with store.write() as con:
        stored.insert_verdict_event(
            con,
            {
                "run_id": run_id,
                "run_hash": None,
                "qid": "q1",
                "question_key": None,
                "action": "set",
                "verdict": verdict,
                "note": None,
                "annotator": annotator,
                "source": "human",
                "supersedes": None,
            },
            when,
        )


def test_latest_verdict_of_anyone_is_the_latest_in_time(store: Store, run_id: str) -> None:
    record_verdict(store, run_id, "q1", "correct", annotator="today")
    _old_event(store, run_id, annotator="old", verdict="wrong", when=datetime(2020, 1, 1))
    assert current_verdicts(store, run_id)["q1"].verdict == "correct"
    assert current_verdicts(store, run_id, annotator="old")["q1"].verdict == "wrong"


def test_latest_label_of_anyone_is_the_latest_in_time(store: Store, run_id: str) -> None:
    record_label(store, run_id, "q1", codes=["RET-MISS"], annotator="today")
    with store.write() as con:
        con.execute(
            "INSERT INTO label_events SELECT nextval('label_event_ids'), run_id, run_hash, qid, "
            "question_key, action, ['USE-EVID'], 'USE-EVID', note, 'old', source, "
            "taxonomy_version, params, TIMESTAMP '2020-01-01', NULL FROM label_events"
        )
    assert current_labels(store, run_id)["q1"].annotator == "today"


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf", "-1", "2"])
def test_audit_refuses_a_threshold_that_is_no_score(store: Store, run_id: str, bad: str) -> None:
    record_verdict(store, run_id, "q1", "correct", annotator="a")
    for extra in ([], ["--raters"]):
        result = CliRunner().invoke(
            app,
            ["audit", run_id, "--metric", "judge", f"--threshold={bad}", *extra],
        )
        assert result.exit_code != 0, result.output
        assert "--threshold" in result.output and "between 0 and 1" in result.output
        assert "Traceback" not in result.output and "agreement" not in result.output


def test_audit_judge_names_verdicts_on_unscored_questions(tmp_path: Path, store: Store) -> None:
    run = ingest_dir(store, _run(tmp_path, {1, 2, 3, 4}), ReadOptions()).run_id
    for qid in ("q5", "q6", "q7", "q8", "q9", "q10", "q11", "q12"):
        record_verdict(store, run, qid, "correct", annotator="a")
    result = CliRunner().invoke(app, ["audit", run, "--metric", "judge"])
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert "8 verdict(s)" in text and "no judge score" in text, text
    assert "no correct/wrong verdicts yet" not in text
