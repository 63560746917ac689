"""Label changes decided from the label the store holds (issue 25, items 3 and 5): codes
added and removed, a note that keeps the provenance of an accepted suggestion, and the
current label found by replaying events in time order."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from memscope.adapters import ReadOptions
from memscope.errors import InputError
from memscope.store import Store
from memscope.usecases.labels.events import (
    LabelEvent,
    accept_suggestion,
    current_labels,
    edit_codes,
    label_history,
    note_label,
    record_label,
    replay,
    undo_label,
)
from memscope.usecases.labels.export import export_labels
from memscope.usecases.labels.import_file import import_labels
from memscope.usecases.labels.journal import LabelOp, apply_op
from memscope.usecases.runs.ingest import ingest_dir

SRAG_V = Path(__file__).parents[2] / "runs" / "srag_v"
VIEW = {"alpha": 0.7, "lambda": 0.02, "k": 10}


@pytest.fixture
def run_id(store: Store, ingested_store) -> str:
    return ingested_store(SRAG_V)[0]


def _row(store: Store, run_id: str, qid: str) -> dict:
    content = export_labels(store, run_id, fmt="jsonl").content
    assert content is not None
    return next(row for row in map(json.loads, content.decode().splitlines()) if row["qid"] == qid)


def test_a_note_keeps_the_accepted_suggestion_and_the_view(store: Store, run_id: str) -> None:
    accept_suggestion(store, run_id, "q37", annotator="alice", params=VIEW)
    note_label(store, run_id, "q37", note="stale clue won", annotator="alice")
    row = _row(store, run_id, "q37")
    assert (row["codes"], row["note"], row["source"]) == (["SEL-STALE"], "stale clue won", "human")
    assert row["accepted_from"] == "rank-inversion" and row["params"] == VIEW
    assert row["accepted_suggestion"]["code"] == "SEL-STALE"
    note_label(store, run_id, "q37", note="", annotator="alice")  # removing it keeps them too
    row = _row(store, run_id, "q37")
    assert row["note"] is None and row["accepted_from"] == "rank-inversion"


def test_the_same_codes_again_with_a_note_keep_provenance_other_codes_drop_it(
    store: Store, run_id: str
) -> None:
    accept_suggestion(store, run_id, "q37", annotator="alice", params=VIEW)
    record_label(store, run_id, "q37", codes=["SEL-STALE"], note="sure", annotator="alice")
    assert _row(store, run_id, "q37")["accepted_from"] == "rank-inversion"
    record_label(store, run_id, "q37", codes=["RET-MISS"], annotator="alice")
    assert _row(store, run_id, "q37")["accepted_from"] is None


def test_accepting_with_a_note_keeps_the_note(store: Store, run_id: str) -> None:
    accept_suggestion(store, run_id, "q37", annotator="alice", note="obvious")
    row = _row(store, run_id, "q37")
    assert (row["note"], row["accepted_from"]) == ("obvious", "rank-inversion")


def test_a_note_needs_a_label(store: Store, run_id: str) -> None:
    with pytest.raises(InputError, match="has no label by .* yet: a note goes with a label"):
        note_label(store, run_id, "q37", note="x", annotator="alice")
    assert label_history(store, run_id) == []


def test_codes_are_added_and_removed_on_the_stored_label(store: Store, run_id: str) -> None:
    record_label(store, run_id, "q3", codes=["RET-MISS"], note="n", annotator="alice")
    edit_codes(store, run_id, "q3", add=["USE-EVID"], annotator="alice", params=VIEW)
    label = current_labels(store, run_id, annotator="alice")["q3"]
    assert (label.codes, label.primary, label.note) == (("RET-MISS", "USE-EVID"), "RET-MISS", "n")
    assert (
        edit_codes(store, run_id, "q3", add=["USE-EVID"], annotator="alice") is None
    )  # twice: once
    edit_codes(store, run_id, "q3", remove=["RET-MISS"], annotator="alice")
    label = current_labels(store, run_id, annotator="alice")["q3"]
    assert (label.codes, label.primary) == (("USE-EVID",), "USE-EVID")
    cleared = edit_codes(store, run_id, "q3", remove=["USE-EVID"], annotator="alice")
    assert cleared is not None and cleared.action == "clear"
    assert "q3" not in current_labels(store, run_id, annotator="alice")
    undo_label(store, run_id, "q3", annotator="alice")
    assert current_labels(store, run_id, annotator="alice")["q3"].codes == ("USE-EVID",)


def test_the_app_ops_apply_to_what_another_writer_stored(store: Store, run_id: str) -> None:
    """The app saw SEL-STALE; the CLI stored RET-MISS meanwhile; the app adds USE-EVID."""
    record_label(store, run_id, "q37", codes=["SEL-STALE"], annotator="alice")
    record_label(store, run_id, "q37", codes=["RET-MISS"], annotator="alice")  # the other writer
    label = apply_op(store, LabelOp("add", run_id, "q37", "alice", codes=("USE-EVID",)))
    assert label.codes == ("RET-MISS", "USE-EVID")
    label = apply_op(store, LabelOp("note", run_id, "q37", "alice", note="both"))
    assert (label.codes, label.note) == (("RET-MISS", "USE-EVID"), "both")
    label = apply_op(store, LabelOp("remove", run_id, "q37", "alice", codes=("SEL-STALE",)))
    assert label.codes == ("RET-MISS", "USE-EVID")  # nothing to remove: nothing changed


def _event(event_id: int, when: datetime, action: str = "set", codes=("A",)) -> LabelEvent:
    return LabelEvent(
        event_id,
        "run",
        None,
        "q1",
        None,
        action,
        codes,
        codes[0] if codes else None,
        None,
        "alice",
        "human",
        "1",
        None,
        when,
        None,
    )


def test_replay_follows_time_not_arrival() -> None:
    start = datetime(2026, 3, 1, 6, 0)
    later, earlier = _event(1, start, codes=("LATER",)), _event(2, start - timedelta(hours=1))
    assert replay([later, earlier])[("q1", "alice")] == [earlier, later]
    undo = _event(3, start - timedelta(minutes=30), action="undo", codes=())
    assert replay([later, earlier, undo])[("q1", "alice")] == [later]  # it undid the earlier


def test_an_imported_accepted_label_keeps_accepted_from(
    tmp_path: Path, store: Store, run_id: str
) -> None:
    accept_suggestion(store, run_id, "q37", annotator="alice", params=VIEW)
    for fmt in ("jsonl", "csv", "parquet"):
        out = export_labels(store, run_id, fmt=fmt, history=True, out=tmp_path / f"a.{fmt}").path
        assert out is not None
        other = Store(tmp_path / f"other-{fmt}.duckdb")
        ingest_dir(other, SRAG_V, ReadOptions())
        import_labels(other, [out])
        row = _row(other, run_id, "q37")
        assert row["accepted_from"] == "rank-inversion", fmt
        assert row["accepted_suggestion"]["code"] == "SEL-STALE" and row["params"] == VIEW


def test_the_cli_note_keeps_the_accepted_suggestion(store: Store, run_id: str) -> None:
    from typer.testing import CliRunner

    from memscope.cli import app

    runner = CliRunner()
    accepted = runner.invoke(app, ["label", run_id, "-q", "q37", "--accept", "--note", "first"])
    assert accepted.exit_code == 0, accepted.output
    assert _row(store, run_id, "q37")["note"] == "first"
    noted = runner.invoke(
        app, ["label", run_id, "-q", "q37", "--code", "SEL-STALE", "--note", "second"]
    )
    assert noted.exit_code == 0, noted.output
    row = _row(store, run_id, "q37")
    assert (row["note"], row["accepted_from"]) == ("second", "rank-inversion")
