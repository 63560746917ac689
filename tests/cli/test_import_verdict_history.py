"""``export-labels --history`` carries the verdict events (sets, clears, undos) beside the
label events, and ``import-labels`` replays them into a fresh store to the same current
verdicts, in every format; importing again adds nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memscope.adapters import ReadOptions
from memscope.cli import app as cli
from memscope.store import Store
from memscope.usecases.labels.events import label_history, record_label
from memscope.usecases.labels.export import export_labels
from memscope.usecases.labels.import_file import import_labels
from memscope.usecases.labels.verdicts import (
    current_from,
    record_verdict,
    undo_verdict,
    verdict_history,
)
from memscope.usecases.runs.ingest import ingest_dir

RUN = Path(__file__).resolve().parents[2] / "runs" / "srag_v"


def _store(path: Path) -> tuple[Store, str]:
    store = Store(path)
    return store, ingest_dir(store, RUN, ReadOptions()).run_id


def _current(store: Store, run_id: str) -> set[tuple[str, str, str, str | None]]:
    return {
        (verdict.qid, verdict.annotator, verdict.verdict, verdict.note)
        for verdict in current_from(verdict_history(store, run_id))
    }


def _judge(store: Store, run_id: str) -> None:
    record_label(store, run_id, "q3", codes=["USE-EVID"], annotator="alice")
    record_verdict(store, run_id, "q3", "correct", annotator="alice", note="=gold is right")
    record_verdict(store, run_id, "q3", "wrong", annotator="alice")
    undo_verdict(store, run_id, "q3", annotator="alice")  # back to correct
    record_verdict(store, run_id, "q4", "wrong", annotator="alice")
    record_verdict(store, run_id, "q4", None, annotator="alice")  # cleared: none
    record_verdict(store, run_id, "q5", "unsure", annotator="alice")
    record_verdict(store, run_id, "q6", "wrong", annotator="bob")
    record_verdict(store, run_id, "q6", None, annotator="bob")
    undo_verdict(store, run_id, "q6", annotator="bob")  # the clear undone: wrong again


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_history_round_trip_rebuilds_the_current_verdicts(tmp_path: Path, fmt: str) -> None:
    source, run_id = _store(tmp_path / "source.duckdb")
    _judge(source, run_id)
    expected = _current(source, run_id)
    assert expected == {
        ("q3", "alice", "correct", "=gold is right"),
        ("q5", "alice", "unsure", None),
        ("q6", "bob", "wrong", None),
    }
    exported = export_labels(source, run_id, fmt=fmt, history=True, out=tmp_path / f"history.{fmt}")
    n_events = len(verdict_history(source, run_id))
    assert exported.rows == len(label_history(source, run_id)) + n_events

    fresh, _ = _store(tmp_path / "fresh.duckdb")
    result = import_labels(fresh, [exported.path])
    assert result.verdicts_imported == n_events and result.verdicts_present == 0
    assert _current(fresh, run_id) == expected
    actions = [event.action for event in verdict_history(fresh, run_id)]
    assert sorted(actions) == sorted(event.action for event in verdict_history(source, run_id))
    # The verdict rows are no label events: the labels are exactly the source's.
    assert [(e.qid, e.codes) for e in label_history(fresh, run_id)] == [
        (e.qid, e.codes) for e in label_history(source, run_id)
    ]
    again = import_labels(fresh, [exported.path])
    assert again.verdicts_imported == 0 and again.verdicts_present == n_events
    assert _current(fresh, run_id) == expected


def test_a_bad_verdict_action_in_a_history_file_is_refused(tmp_path: Path) -> None:
    source, run_id = _store(tmp_path / "source.duckdb")
    record_verdict(source, run_id, "q5", "unsure", annotator="alice")
    exported = export_labels(source, run_id, fmt="jsonl", history=True, out=tmp_path / "h.jsonl")
    text = exported.path.read_text(encoding="utf-8").replace('"action":"set"', '"action":"redo"')
    edited = tmp_path / "edited.jsonl"
    edited.write_text(text, encoding="utf-8")
    fresh, _ = _store(tmp_path / "fresh.duckdb")
    shown = CliRunner().invoke(cli, ["import-labels", str(edited), "--db", str(fresh.path)])
    assert shown.exit_code != 0 and "unknown verdict action redo" in shown.output
    assert "Traceback" not in shown.output
    assert verdict_history(fresh, run_id) == []
