"""A run's suggestions keep the twin runs they were first made with (issue 25, item 2):
a run ingested later is named, never used behind the user's back; `--twin` on `suggest`,
`estimate` and `sample` changes them, says which questions changed, and is kept."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from memscope.cli import app
from memscope.store import Store
from memscope.usecases.labels.events import record_label
from memscope.usecases.runs.loading import load_run
from memscope.usecases.runs.qid_order import qid_sort_key
from memscope.usecases.suggest.changes import load_suggestions
from memscope.usecases.suggest.rules import load_suggestions as stored_suggestions
from memscope.usecases.suggest.twins import TWIN_MEANING

RUNS = Path(__file__).parents[2] / "runs"
CHANGED = ["q4", "q21", "q31", "q44"]
"""srag_v's USE-EVID suggestions that the oracle turns into ENC-PERC (it fails them too)."""
runner = CliRunner()


def ok(*args: str):
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return result


def codes(store: Store, run_id: str) -> dict[str, str]:
    return {qid: item.code for qid, item in stored_suggestions(store, run_id).items()}


def test_a_run_ingested_later_changes_no_suggestion(store: Store) -> None:
    first = json.loads(ok("suggest", str(RUNS / "srag_v"), "-f", "json").stdout)
    assert first["twin_runs"] == [] and first["unused_twin_runs"] == []
    before = codes(store, "srag_v")
    assert all(before[qid] == "USE-EVID" for qid in CHANGED)
    ok("ingest", str(RUNS / "oracle_v"))
    again = ok("suggest", "srag_v")
    assert codes(store, "srag_v") == before  # pinned: nothing changed silently
    assert (
        "note: twin run oracle_v is in the store but not used by the suggestions of srag_v, "
        "which keep their pinned twin runs (none); `--twin oracle_v` uses it"
    ) in again.stderr
    assert "no twin run used" in again.stderr and "suggestions changed" not in again.stderr
    data = json.loads(ok("suggest", "srag_v", "-f", "json").stdout)
    assert data["twin_runs"] == [] and data["unused_twin_runs"] == ["oracle_v"]


def test_twin_names_the_twin_lists_the_changes_and_is_kept(store: Store) -> None:
    ok("suggest", str(RUNS / "srag_v"))
    ok("ingest", str(RUNS / "oracle_v"))
    changed = ok("suggest", "srag_v", "--twin", "oracle_v")
    assert "suggestions changed for 4 question(s) (now using oracle_v):" in changed.stderr
    for qid in CHANGED:
        assert f"  {qid} now uses oracle_v: ENC-PERC instead of USE-EVID" in changed.stderr
    assert "twin runs used: oracle_v" in changed.stderr
    found = stored_suggestions(store, "srag_v")
    assert all(found[qid].code == "ENC-PERC" for qid in CHANGED)
    assert found["q4"].twin_run_id == "oracle_v" and "oracle_v" in found["q4"].explanation
    kept = ok("suggest", "srag_v")  # later commands keep the new choice, and say nothing more
    assert "twin runs used: oracle_v" in kept.stderr and "changed" not in kept.stderr
    back = ok("suggest", "srag_v", "--twin", "none")
    assert "suggestions changed for 4 question(s) (no longer using oracle_v):" in back.stderr
    assert "q4 is now USE-EVID instead of ENC-PERC" in back.stderr
    auto = json.loads(ok("suggest", "srag_v", "--twin", "auto", "-f", "json").stdout)
    assert auto["twin_runs"] == ["oracle_v"]  # auto: the best twin in the store now
    assert [change["qid"] for change in auto["changes"]] == CHANGED


def test_a_run_that_is_no_twin_is_refused_with_what_a_twin_is(store: Store) -> None:
    ok("ingest", str(RUNS / "srag_v"), str(RUNS / "fc_v"), str(RUNS / "oracle_v"))
    result = runner.invoke(app, ["suggest", "srag_v", "--twin", "fc_v"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"error: run fc_v cannot be a twin run of srag_v: {TWIN_MEANING}" in result.stderr
    assert "Twin runs of it in the store: oracle_v (or --twin none)." in result.stderr
    both = runner.invoke(app, ["suggest", "srag_v", "--twin", "none", "--twin", "oracle_v"])
    assert both.exit_code == 1 and "--twin none stands alone" in both.stderr
    assert not stored_suggestions(store, "srag_v")  # nothing was made of the refused commands


def test_no_twin_says_what_a_twin_is(store: Store) -> None:
    result = ok("suggest", str(RUNS / "srag_v"))
    assert f"no twin run in the store; {TWIN_MEANING}" in result.stderr
    help_text = " ".join(ok("suggest", "--help").stdout.split())
    assert "A twin run is another run over the same questions" in help_text
    assert "runs ingested later never change them" in help_text


def test_estimate_and_sample_take_twin(store: Store) -> None:
    ok("ingest", str(RUNS / "srag_v"))
    ok("sample", "srag_v", "--sample-size", "10", "--seed", "7")  # suggestions made: no twin
    ok("ingest", str(RUNS / "oracle_v"))
    for qid in ("q4", "q8", "q33", "q37"):
        record_label(store, "srag_v", qid, codes=["USE-EVID"], annotator="alice")
    pinned = json.loads(ok("estimate", "srag_v", "--format", "json").stdout)
    assert pinned["twin_runs"] == []
    assert any(
        n.startswith("Twin run oracle_v is in the store but not used") for n in pinned["notes"]
    )
    text = ok("estimate", "srag_v")
    assert "note: the rule suggestions use no twin run (`--twin` to change)" in text.stderr
    with_oracle = ok("estimate", "srag_v", "--twin", "oracle_v", "--format", "json")
    result = json.loads(with_oracle.stdout)
    assert result["twin_runs"] == ["oracle_v"]
    assert "Suggestions changed for 4 question(s) (now using oracle_v)" in " ".join(result["notes"])
    assert codes(store, "srag_v")["q4"] == "ENC-PERC"  # the choice is kept for later commands
    sample = ok("sample", "srag_v", "--twin", "none")
    assert "suggestions changed for 4 question(s) (no longer using oracle_v):" in sample.stderr
    assert "stored sample: 10 of 17 failures planned" in sample.stderr  # the plan stays


def test_the_app_names_a_twin_it_does_not_use(store: Store) -> None:
    ok("suggest", str(RUNS / "srag_v"))
    ok("ingest", str(RUNS / "oracle_v"))
    notes: list[str] = []
    found = load_suggestions(store, load_run(store, "srag_v"), notes)
    assert found["q4"].code == "USE-EVID" and found["q4"].twin_run_id is None
    assert notes == [
        "Twin run oracle_v is in the store but not used by the suggestions of srag_v, which "
        "keep their pinned twin runs (none); `--twin oracle_v` uses it"
    ]


def test_qids_sort_by_their_numbers() -> None:
    assert sorted(["q10", "q2", "q1", "q2b"], key=qid_sort_key) == ["q1", "q2", "q2b", "q10"]
