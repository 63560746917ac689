"""``memscope import-labels``: merging exports from other stores, stable ids, changed runs."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memscope.adapters import ReadOptions
from memscope.cli import app as cli
from memscope.errors import InputError
from memscope.store import Store
from memscope.usecases.labels.events import (
    agreement,
    clear_label,
    current_labels,
    label_history,
    record_label,
    undo_label,
)
from memscope.usecases.labels.export import export_labels
from memscope.usecases.labels.import_file import event_uid, import_labels
from memscope.usecases.runs.ingest import ingest_dir

RUN = Path(__file__).resolve().parents[2] / "runs" / "srag_v"
ALICE = {
    "q3": "SEL-NOISE",
    "q4": "USE-EVID",
    "q6": "USE-EVID",
    "q8": "RET-PART",
    "q10": "SEL-STALE",
}
BOB = {"q3": "USE-EVID", "q4": "USE-EVID", "q6": "USE-EVID", "q8": "RET-PART", "q12": "RET-LATEST"}
runner = CliRunner()


def _store(path: Path) -> tuple[Store, str]:
    store = Store(path)
    return store, ingest_dir(store, RUN, ReadOptions()).run_id


def _label(store: Store, run_id: str, who: str, plan: dict[str, str]) -> None:
    for qid, code in plan.items():
        record_label(store, run_id, qid, codes=["RET-MISS"], annotator=who)  # changed later
        record_label(store, run_id, qid, codes=[code], annotator=who)
    clear_label(store, run_id, "q47", annotator=who)
    undo_label(store, run_id, "q47", annotator=who)


def test_round_trip_agreement_equals_the_single_store_one(tmp_path: Path) -> None:
    single, run_id = _store(tmp_path / "single.duckdb")
    _label(single, run_id, "alice", ALICE)
    _label(single, run_id, "bob", BOB)
    expected = agreement(single, run_id, "alice", "bob")

    first, _ = _store(tmp_path / "alice.duckdb")
    _label(first, run_id, "alice", ALICE)
    second, _ = _store(tmp_path / "bob.duckdb")
    _label(second, run_id, "bob", BOB)
    alice_file = export_labels(first, run_id, fmt="jsonl", history=True, out=tmp_path / "a.jsonl")
    bob_file = export_labels(
        second, run_id, fmt="parquet", history=True, out=tmp_path / "b.parquet"
    )
    merged, _ = _store(tmp_path / "merged.duckdb")
    result = import_labels(merged, [alice_file.path, bob_file.path])
    assert result.imported == alice_file.rows + bob_file.rows and result.skipped_present == 0
    assert agreement(merged, run_id, "alice", "bob") == expected

    # Annotator, source and time survive; importing again (or the current-label csv) adds nothing.
    original = {(e.qid, e.annotator, e.created_at) for e in label_history(first, run_id)}
    imported = {(e.qid, e.annotator, e.created_at) for e in label_history(merged, run_id)}
    assert original <= imported
    assert {e.source for e in label_history(merged, run_id)} == {"human"}
    current_csv = export_labels(second, run_id, fmt="csv", out=tmp_path / "b.csv")
    again = import_labels(merged, [alice_file.path, current_csv.path])
    assert again.imported == 0 and again.skipped_present == alice_file.rows + current_csv.rows
    assert current_labels(merged, run_id, annotator="bob").keys() == BOB.keys()


def test_export_carries_the_stable_event_id(tmp_path: Path, store: Store) -> None:
    run_id = ingest_dir(store, RUN, ReadOptions()).run_id
    event = record_label(store, run_id, "q3", codes=["USE-EVID"], annotator="alice")
    out = export_labels(store, run_id, fmt="csv", out=tmp_path / "l.csv")
    row = next(csv.DictReader(out.path.open()))
    assert row["event_uid"] == event_uid(
        event.run_hash, "q3", "alice", "set", event.created_at, ["USE-EVID"]
    )
    assert event_uid("h", "q3", "alice", "set", event.created_at, ["A"]) != event_uid(
        "h", "q3", "bob", "set", event.created_at, ["A"]
    )


def test_a_changed_run_is_refused_unless_allowed(tmp_path: Path) -> None:
    first, run_id = _store(tmp_path / "alice.duckdb")
    _label(first, run_id, "alice", ALICE)
    out = export_labels(first, run_id, fmt="csv", out=tmp_path / "a.csv")
    rows = list(csv.DictReader(out.path.open()))
    for row in rows:
        row["run_hash"] = "0" * 64
        if row["qid"] == "q8":
            row["question_key"] = "changed0000000000"
    changed = tmp_path / "changed.csv"
    with changed.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    target, _ = _store(tmp_path / "target.duckdb")
    with pytest.raises(InputError, match="questions changed or gone: q8"):
        import_labels(target, [changed])
    assert label_history(target, run_id) == []  # nothing half-written
    result = import_labels(target, [changed], allow_changed_run=True)
    assert result.imported == len(rows)
    assert {e.run_hash for e in label_history(target, run_id)} == {"0" * 64}


def test_cli_import_and_disagreements(tmp_path: Path, store: Store) -> None:
    run_id = ingest_dir(store, RUN, ReadOptions()).run_id
    other, _ = _store(tmp_path / "bob.duckdb")
    _label(other, run_id, "bob", BOB)
    _label(store, run_id, "alice", ALICE)
    exported = export_labels(other, run_id, fmt="jsonl", history=True, out=tmp_path / "b.jsonl")
    result = runner.invoke(cli, ["import-labels", str(exported.path)])
    assert result.exit_code == 0, result.output
    assert f"{exported.rows} event(s) imported, 0 already present" in result.output
    shown = runner.invoke(
        cli, ["agreement", run_id, "--annotators", "alice", "bob", "--disagreements"]
    )
    assert shown.exit_code == 0, shown.output
    assert "1 disagreement(s)" in shown.output and "SEL-NOISE" in shown.output
    broken = tmp_path / "broken.csv"
    broken.write_text("a,b\n1,2\n")
    bad = runner.invoke(cli, ["import-labels", str(broken)])
    assert bad.exit_code == 1 and "lacks the column(s) run_id, qid, codes, annotator" in bad.output
    assert "Traceback" not in bad.output


def test_csv_round_trip_keeps_formula_like_text_exactly(tmp_path: Path) -> None:
    """export-labels defuses `=…` cells for spreadsheets; import-labels gives the text back."""
    first, run_id = _store(tmp_path / "first.duckdb")
    record_label(first, run_id, "q3", codes=["USE-EVID"], annotator="alice", note="=SUM(A1)")
    record_label(first, run_id, "q4", codes=["USE-EVID"], annotator="alice", note="-1 off")
    out = export_labels(first, run_id, fmt="csv", history=True, out=tmp_path / "a.csv")
    assert "'=SUM(A1)" in out.path.read_text()  # defused on disk
    merged, _ = _store(tmp_path / "merged.duckdb")
    import_labels(merged, [out.path])
    notes = {qid: label.note for qid, label in current_labels(merged, run_id).items()}
    assert notes == {"q3": "=SUM(A1)", "q4": "-1 off"}
