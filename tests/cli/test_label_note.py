"""``memscope label RUN --question qN --note TEXT`` alone (issue 25, item 24).

A note without codes was refused ("give exactly one of --code, --accept, --clear or
--undo"). Now, as the app's ``n`` does, it goes on the question's current label: the
codes, the primary code and an accepted suggestion's provenance stay. A question without a
label refuses the note with one message saying how to label it with the note at once,
as the app says "pick a failure code first".
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from memscope.cli import app
from memscope.store import Store
from memscope.usecases.labels.events import current_labels, label_history

RUNS = Path(__file__).resolve().parents[2] / "runs"
runner = CliRunner()


def label(*args: str):
    return runner.invoke(app, ["label", "srag_v", *args, "--annotator", "alice"])


def exported(tmp_path: Path) -> dict[str, dict]:
    out = tmp_path / "labels.jsonl"
    result = runner.invoke(app, ["export-labels", "srag_v", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return {row["qid"]: row for row in map(json.loads, out.read_text().splitlines())}


def test_a_note_alone_goes_on_the_current_label(store: Store, tmp_path: Path) -> None:
    assert runner.invoke(app, ["ingest", str(RUNS / "srag_v")]).exit_code == 0
    accepted = label("--question", "q37", "--accept")
    assert accepted.exit_code == 0, accepted.output
    rule = exported(tmp_path)["q37"]["accepted_from"]
    assert rule
    noted = label("--question", "q37", "--note", "the bin moved in D5")
    assert noted.exit_code == 0, noted.output
    assert "labelled q37 of srag_v: SEL-STALE · note: the bin moved in D5" in noted.stderr
    current = current_labels(store, "srag_v", annotator="alice")["q37"]
    assert current.codes == ("SEL-STALE",) and current.note == "the bin moved in D5"
    row = exported(tmp_path)["q37"]
    assert row["accepted_from"] == rule  # the suggestion it came from is kept
    assert row["codes"] == ["SEL-STALE"] and row["note"] == "the bin moved in D5"

    two = label(
        "--question", "q8", "--code", "RET-PART", "--code", "USE-EVID", "--primary", "USE-EVID"
    )
    assert two.exit_code == 0, two.output
    assert label("--question", "q8", "--note", "two clues").exit_code == 0
    current = current_labels(store, "srag_v", annotator="alice")["q8"]
    assert (current.codes, current.primary, current.note) == (
        ("RET-PART", "USE-EVID"),
        "USE-EVID",
        "two clues",
    )
    assert label("--question", "q8", "--note", "").exit_code == 0  # an empty note removes it
    assert current_labels(store, "srag_v", annotator="alice")["q8"].note is None
    undone = label("--question", "q8", "--undo")  # a note is a change like any other
    assert undone.exit_code == 0
    assert current_labels(store, "srag_v", annotator="alice")["q8"].note == "two clues"


def test_a_note_on_an_unlabelled_question_says_how_to_label_it(store: Store) -> None:
    assert runner.invoke(app, ["ingest", str(RUNS / "srag_v")]).exit_code == 0
    before = len(label_history(store, "srag_v"))
    result = label("--question", "q4", "--note", "lot number unreadable")
    assert result.exit_code == 1
    assert "q4 of srag_v has no label by alice yet: a note goes with a label" in result.stderr
    assert "--code CODE --note TEXT" in result.stderr
    assert "Traceback" not in result.output
    assert len(label_history(store, "srag_v")) == before  # nothing written
    both = label("--question", "q4", "--code", "ENC-PERC", "--note", "lot number unreadable")
    assert both.exit_code == 0, both.output
    assert current_labels(store, "srag_v", annotator="alice")["q4"].note == (
        "lot number unreadable"
    )
    accepted = label("--question", "q37", "--accept", "--note", "stale clue won")
    assert accepted.exit_code == 0, accepted.output
    assert current_labels(store, "srag_v", annotator="alice")["q37"].note == "stale clue won"


def test_undo_with_a_note_and_no_action_at_all_are_refused(store: Store) -> None:
    assert runner.invoke(app, ["ingest", str(RUNS / "srag_v")]).exit_code == 0
    nothing = label("--question", "q4")
    assert nothing.exit_code == 1 and "(or --note alone)" in nothing.stderr
    mixed = label("--question", "q4", "--undo", "--note", "x")
    assert mixed.exit_code == 1 and "--undo takes no --note" in mixed.stderr
