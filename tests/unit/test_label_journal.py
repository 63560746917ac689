"""The pending-label journal's bad lines (issue 25, item 12): what makes a line bad, a torn
last line left alone, each bad line set aside once, and no append lost to a quarantine."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from memscope.errors import InputError
from memscope.usecases.labels.journal import LabelJournal, LabelOp, entry_problem, op_problem

OP = {"action": "set", "run_id": "run", "qid": "q1", "annotator": "alice", "codes": ["RET-MISS"]}


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({}, None),
        ({"action": "relabel"}, 'unknown action "relabel"'),
        ({"action": None}, "unknown action null"),
        ({"params": "alpha=0.7"}, "params must be an object, got text"),
        ({"params": [1]}, "params must be an object, got a list"),
        ({"codes": 5}, "codes must be a list of code names, got 5"),
        ({"codes": ["RET-MISS", 3]}, "codes must be a list of code names"),
        ({"codes": []}, "the action 'set' needs at least one code"),
        ({"run_id": 7}, "run_id must be non-empty text, got a number 7"),
        ({"qid": " "}, "qid must be non-empty text"),
        ({"note": 5}, "note must be text or null, got a number 5"),
        ({"primary": ["A"]}, "primary must be text or null"),
        ({"action": "clear", "codes": []}, None),
        ({"action": "note", "codes": None, "note": "x"}, None),
    ],
)
def test_what_makes_an_op_bad(change: dict, problem: str | None) -> None:
    found = op_problem({**OP, **change})
    assert (found is None) if problem is None else (problem in str(found)), found


def test_a_bad_op_cannot_be_built() -> None:
    with pytest.raises(InputError, match="unknown action"):
        LabelOp.from_json({**OP, "action": "relabel"})
    assert entry_problem({"id": "a", "op": OP}) is None and entry_problem({"done": "a"}) is None
    assert "no op" in str(entry_problem({"id": "a"}))


def test_a_torn_last_line_is_left_alone_a_torn_middle_line_is_set_aside(tmp_path: Path) -> None:
    journal = LabelJournal(tmp_path / "s.duckdb")
    journal.add(LabelOp("set", "run", "q1", "alice", codes=("RET-MISS",)))
    with journal.path.open("a") as handle:
        handle.write('{"id": "torn", "op": {"act')  # a crash mid-append (or one being written)
    assert journal.quarantine() == [] and len(journal.pending()) == 1
    journal.add(LabelOp("set", "run", "q2", "alice", codes=("RET-MISS",)))  # terminates it
    (rejected,) = journal.quarantine()
    assert (rejected.line, rejected.reason) == (2, "not a JSON line (truncated?)")
    assert journal.quarantine() == []  # once
    assert [op.qid for op in journal.pending()] == ["q1", "q2"]
    kept = [json.loads(line) for line in journal.rejected_path.read_text().splitlines()]
    assert kept[0]["text"] == '{"id": "torn", "op": {"act' and kept[0]["line"] == 2


def test_no_append_is_lost_to_a_quarantine_running_meanwhile(tmp_path: Path) -> None:
    journal = LabelJournal(tmp_path / "s.duckdb")
    journal.path.write_text("garbage\n" * 50)
    other = LabelJournal(tmp_path / "s.duckdb")  # as another process would, its own lock
    added: list[LabelOp] = []

    def add() -> None:
        for number in range(200):
            added.append(other.add(LabelOp("set", "run", f"q{number}", "alice", codes=("X",))))

    writer = threading.Thread(target=add)
    writer.start()
    while writer.is_alive():
        journal.quarantine()
    writer.join()
    journal.quarantine()
    assert {op.entry_id for op in journal.pending()} == {op.entry_id for op in added}
    assert len(journal.rejected_path.read_text().splitlines()) == 50
