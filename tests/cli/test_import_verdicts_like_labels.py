"""Issue 41 item 7: verdict-only rows are held to the label rows' rules on import: made on
another version of a run they are refused (allowed, they keep their hash); for an unknown
run they are refused; for a question the run lacks they are reported, never dropped silently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memscope.adapters import ReadOptions
from memscope.cli import app as cli
from memscope.errors import InputError, NotFoundError
from memscope.store import Store
from memscope.usecases.labels.export import export_labels
from memscope.usecases.labels.import_file import import_labels
from memscope.usecases.labels.verdicts import record_verdict, verdict_history
from memscope.usecases.runs.ingest import ingest_dir

RUN = Path(__file__).resolve().parents[2] / "runs" / "srag_v"


def _verdict_file(tmp_path: Path, edit) -> tuple[Path, str]:
    """A --history export holding verdicts only, its rows changed by ``edit``."""
    source = Store(tmp_path / "source.duckdb")
    run_id = ingest_dir(source, RUN, ReadOptions()).run_id
    record_verdict(source, run_id, "q3", "correct", annotator="alice")
    record_verdict(source, run_id, "q4", "wrong", annotator="alice")
    out = export_labels(source, run_id, fmt="jsonl", history=True, out=tmp_path / "v.jsonl")
    rows = [json.loads(line) for line in out.path.read_text().splitlines()]
    assert rows and all(row["event_kind"] == "verdict" for row in rows)
    for row in rows:
        edit(row)
    changed = tmp_path / "changed.jsonl"
    changed.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return changed, run_id


def _target(tmp_path: Path) -> Store:
    target = Store(tmp_path / "target.duckdb")
    ingest_dir(target, RUN, ReadOptions())
    return target


def test_verdicts_of_another_version_are_refused_unless_allowed(tmp_path: Path) -> None:
    def other_version(row: dict) -> None:
        row["run_hash"] = "0" * 64
        if row["qid"] == "q4":
            row["question_key"] = "changed0000000000"

    changed, run_id = _verdict_file(tmp_path, other_version)
    target = _target(tmp_path)
    with pytest.raises(InputError, match="another version of run .*questions changed or gone: q4"):
        import_labels(target, [changed])
    assert verdict_history(target, run_id) == []
    result = import_labels(target, [changed], allow_changed_run=True)
    assert result.verdicts_imported == 2
    assert {event.run_hash for event in verdict_history(target, run_id)} == {"0" * 64}


def test_verdicts_for_an_unknown_run_are_refused(tmp_path: Path) -> None:
    def unknown(row: dict) -> None:
        row["run_id"] = "never_ingested"
        row["run_hash"] = "1" * 64

    changed, _run_id = _verdict_file(tmp_path, unknown)
    target = _target(tmp_path)
    with pytest.raises(NotFoundError, match="never_ingested"):
        import_labels(target, [changed])
    done = CliRunner().invoke(cli, ["import-labels", str(changed), "--db", str(target.path)])
    assert done.exit_code != 0 and "never_ingested" in done.output
    assert "imported 0 event(s)" not in done.output


def test_verdicts_for_an_unknown_question_are_reported(tmp_path: Path) -> None:
    def unknown_qid(row: dict) -> None:
        if row["qid"] == "q4":
            row["qid"] = "q999"

    changed, run_id = _verdict_file(tmp_path, unknown_qid)
    target = _target(tmp_path)
    result = import_labels(target, [changed])
    assert result.verdicts_imported == 1
    assert result.verdicts_missing == [f"{run_id}:q999"]
    done = CliRunner().invoke(
        cli, ["import-labels", str(changed), "--db", str(tmp_path / "t2.duckdb")]
    )
    assert done.exit_code != 0  # no run in that store: refused, not dropped
    fresh = _target(tmp_path / "again")
    done = CliRunner().invoke(cli, ["import-labels", str(changed), "--db", str(fresh.path)])
    assert done.exit_code == 0, done.output
    assert "1 on questions the run lacks" in done.output and "q999" in done.output
