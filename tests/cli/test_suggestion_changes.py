"""Suggestions that change because a twin or oracle run was ingested say so, in `suggest`
and in the app (issue 15)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from memscope.cli import app
from memscope.store import Store
from memscope.usecases.loading import load_run
from memscope.usecases.qid_order import qid_sort_key
from memscope.usecases.suggestion_changes import load_suggestions

RUNS = Path(__file__).parents[2] / "runs"
runner = CliRunner()


def ok(*args: str):
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def test_suggest_says_which_questions_an_oracle_run_changed() -> None:
    first = json.loads(ok("suggest", str(RUNS / "srag_t"), "-f", "json").stdout)
    assert first["changes"] == [] and first["twin_runs"] == []
    ok("ingest", str(RUNS / "oracle_v"))
    again = ok("suggest", "srag_t")
    assert "suggestions changed for 4 question(s) (oracle_v now in the store)" in again.stderr
    assert "q4 now uses oracle_v: ENC-PERC instead of USE-EVID" in again.stderr
    data = json.loads(ok("suggest", "srag_t", "-f", "json").stdout)
    assert data["changes"] == []  # said once: nothing changed since


def test_the_app_recomputes_and_says_so_when_a_twin_arrives(store: Store) -> None:
    ok("suggest", str(RUNS / "srag_t"))
    ok("ingest", str(RUNS / "oracle_v"))
    notes: list[str] = []
    found = load_suggestions(store, load_run(store, "srag_t"), notes)
    assert found["q4"].code == "ENC-PERC" and found["q4"].twin_run_id == "oracle_v"
    (note,) = notes
    assert note.startswith("Suggestions changed for 4 question(s) (oracle_v now in the store)")
    assert "q4 now uses oracle_v: ENC-PERC instead of USE-EVID" in note and "(+1 more)" in note
    notes.clear()
    load_suggestions(store, load_run(store, "srag_t"), notes)
    assert notes == []  # no twin came since: nothing recomputed, nothing said


def test_qids_sort_by_their_numbers() -> None:
    assert sorted(["q10", "q2", "q1", "q2b"], key=qid_sort_key) == ["q1", "q2", "q2b", "q10"]
