"""People's verdicts on answers (issue 28): events with history and undo, and the audit over them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from builders import dialog, open_row, qa, write_run
from memscope.adapters import ReadOptions
from memscope.cli import app
from memscope.errors import InputError, NotFoundError
from memscope.store import Store
from memscope.store.check import check_store
from memscope.usecases.labels.audit import audit_run, audit_to_json
from memscope.usecases.labels.events import current_labels
from memscope.usecases.labels.raters import audit_raters
from memscope.usecases.labels.verdicts import (
    current_verdicts,
    next_verdict,
    record_verdict,
    undo_verdict,
    verdict_history,
)
from memscope.usecases.runs.ingest import ingest_dir
from reference import cohen_kappa_score, ppi

pytestmark = pytest.mark.reference  # tests/reference.py
SESSIONS = {"D1": ["D1:1", "D1:2"], "D2": ["D2:1", "D2:2"]}
N_QUESTIONS = 24
# the judge passes every third question and q2..q4 (so each X level has both outcomes)
PASSED = {i for i in range(1, N_QUESTIONS + 1) if i % 3 == 0} | {2, 4}


def make_run(tmp_path: Path) -> Path:
    data = dialog(
        SESSIONS,
        [
            qa(
                f"Question number {i}?",
                "gold",
                [["X1" if i % 2 else "X2"], ["Y1"]],
                ["D1:1"],
                ["D1"],
            )
            for i in range(1, N_QUESTIONS + 1)
        ],
    )
    rows = [
        open_row(i, data, judge=1.0 if i in PASSED else 0.0, seed=["D2:1", "D1:1"])
        for i in range(1, N_QUESTIONS + 1)
    ]
    return write_run(tmp_path / "runs" / "judged", data, rows, top_k=1)


@pytest.fixture
def run_id(tmp_path: Path, store: Store) -> str:
    return ingest_dir(store, make_run(tmp_path), ReadOptions()).run_id


def test_verdict_history_undo_and_annotators(store: Store, run_id: str) -> None:
    first = record_verdict(store, run_id, "q1", "correct", annotator="alice", note="reads fine")
    assert first is not None and first.action == "set" and first.verdict == "correct"
    assert (
        record_verdict(store, run_id, "q1", "correct", annotator="alice", note="reads fine") is None
    )
    second = record_verdict(store, run_id, "q1", "wrong", annotator="alice")
    assert second is not None and second.supersedes == first.event_id
    record_verdict(store, run_id, "q1", "unsure", annotator="bob")
    assert current_verdicts(store, run_id, annotator="alice")["q1"].verdict == "wrong"
    assert current_verdicts(store, run_id)["q1"].verdict == "unsure"  # the latest of anyone's
    undone = undo_verdict(store, run_id, "q1", annotator="alice")
    assert undone is not None and undone.supersedes == second.event_id
    assert current_verdicts(store, run_id, annotator="alice")["q1"].verdict == "correct"
    cleared = record_verdict(store, run_id, "q1", None, annotator="alice")
    assert cleared is not None and cleared.action == "clear"
    assert "q1" not in current_verdicts(store, run_id, annotator="alice")
    assert [event.action for event in verdict_history(store, run_id)] == [
        "set",
        "set",
        "set",
        "undo",
        "clear",
    ]
    # a verdict is not a failure label
    assert current_labels(store, run_id) == {}
    assert check_store(store).sound


def test_bad_verdicts(store: Store, run_id: str) -> None:
    with pytest.raises(InputError, match="unknown verdict"):
        record_verdict(store, run_id, "q1", "maybe", annotator="alice")
    with pytest.raises(NotFoundError):
        record_verdict(store, run_id, "q999", "correct", annotator="alice")
    assert undo_verdict(store, run_id, "q2", annotator="alice") is None
    assert [next_verdict(v) for v in (None, "correct", "wrong", "unsure")] == [
        "correct",
        "wrong",
        "unsure",
        None,
    ]


# People's verdicts: the judge is wrong on q1 (people: correct) and q3 (people: wrong).
VERDICTS = {f"q{i}": ("correct" if i in PASSED else "wrong") for i in range(1, 13)}
VERDICTS |= {"q1": "correct", "q3": "wrong", "q5": "unsure"}


def _give(store: Store, run_id: str) -> None:
    for qid, verdict in VERDICTS.items():
        record_verdict(store, run_id, qid, verdict, annotator="alice")


def test_audit_agreement_and_plugin_intervals_match_the_references(
    store: Store, run_id: str
) -> None:
    _give(store, run_id)
    found = audit_run(store, run_id, variance="plugin", by="x")
    judged = [qid for qid, verdict in VERDICTS.items() if verdict != "unsure"]
    people = np.array([1.0 if VERDICTS[q] == "correct" else 0.0 for q in judged])
    grader = np.array([1.0 if int(q[1:]) in PASSED else 0.0 for q in judged])
    assert found.n_unsure == 1
    assert found.agreement is not None and found.agreement.n == len(judged)
    assert found.agreement.kappa == pytest.approx(cohen_kappa_score(people, grader))
    assert {item.qid for item in found.disagreements} == {"q1", "q3"}
    overall = found.levels[0]
    assert overall.level == "all" and overall.n_questions == N_QUESTIONS
    everyone = np.array([1.0 if i in PASSED else 0.0 for i in range(1, N_QUESTIONS + 1)])
    assert overall.metric_mean == pytest.approx(everyone.mean())
    low, high = ppi().ppi_mean_ci(people, grader, everyone, alpha=0.05)
    assert overall.ppi is not None
    assert overall.ppi.ci_low == pytest.approx(float(np.ravel(low)[0]), abs=1e-12)
    assert overall.ppi.ci_high == pytest.approx(float(np.ravel(high)[0]), abs=1e-12)
    # per level of X: the same, on that level's questions only
    x1 = found.levels[[level.level for level in found.levels].index("X1")]
    odd = [q for q in judged if int(q[1:]) % 2]
    everyone_x1 = np.array([1.0 if i in PASSED else 0.0 for i in range(1, N_QUESTIONS + 1, 2)])
    low, high = ppi().ppi_mean_ci(
        np.array([1.0 if VERDICTS[q] == "correct" else 0.0 for q in odd]),
        np.array([1.0 if int(q[1:]) in PASSED else 0.0 for q in odd]),
        everyone_x1,
        alpha=0.05,
    )
    assert x1.n_verdicts == len(odd) and x1.ppi is not None
    assert x1.ppi.ci_low == pytest.approx(float(np.ravel(low)[0]), abs=1e-12)
    adjusted = audit_run(store, run_id, by="x")
    assert adjusted.levels[0].ppi is not None
    assert adjusted.levels[0].ppi.estimate == pytest.approx(overall.ppi.estimate)
    assert adjusted.stratified is not None  # both X levels have verdicts


def test_audit_json_keys_and_levels_without_verdicts(store: Store, run_id: str) -> None:
    record_verdict(store, run_id, "q1", "correct", annotator="alice")
    record_verdict(store, run_id, "q3", "wrong", annotator="alice")
    data = audit_to_json(audit_run(store, run_id, by="x", metric="judge", threshold=0.5))
    assert set(data["agreement"]) >= {"n", "accuracy", "sensitivity", "specificity", "kappa"}
    x2 = next(level for level in data["levels"] if level["level"] == "X2")
    assert x2["n_verdicts"] == 0 and x2["verdict_only"] is None and x2["ppi"] is None
    level = data["levels"][0]
    assert level["level"] == "all"
    assert set(level) >= {"axis", "level", "n_verdicts", "metric_mean", "verdict_only", "ppi"}
    assert set(level["verdict_only"]) >= {"estimate", "low", "high"}
    assert set(level["ppi"]) >= {"estimate", "low", "high", "lambda"}
    assert data["stratified"] is None


def test_audit_without_verdicts_and_bad_options(store: Store, run_id: str) -> None:
    with pytest.raises(InputError, match="no correct/wrong verdicts"):
        audit_run(store, run_id)
    record_verdict(store, run_id, "q1", "correct", annotator="alice")
    with pytest.raises(InputError, match="unknown metric"):
        audit_run(store, run_id, metric="bleu")
    with pytest.raises(InputError, match="no axis"):
        audit_run(store, run_id, by="colour")
    with pytest.raises(InputError, match="--threshold"):
        audit_run(store, run_id, threshold=0.3)


def test_raters_pairs_and_alpha(store: Store, run_id: str) -> None:
    _give(store, run_id)
    record_verdict(store, run_id, "q1", "wrong", annotator="bob")
    record_verdict(store, run_id, "q2", "correct", annotator="bob")
    found = audit_raters(store, run_id)
    assert found.raters[0].startswith("judge") and found.raters[-2:] == ["alice", "bob"]
    pair = next(p for p in found.pairs if (p.first, p.second) == ("alice", "bob"))
    assert pair.n == 2 and pair.agreement == pytest.approx(0.5)
    assert found.alpha is not None and -1.0 <= found.alpha <= 1.0


def test_cli_label_verdict_and_audit(tmp_path: Path, store: Store) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", str(make_run(tmp_path))]).exit_code == 0
    run = "judged"
    given = runner.invoke(
        app, ["label", run, "-q", "q1", "--verdict", "correct", "--annotator", "alice"]
    )
    assert given.exit_code == 0, given.output
    assert "verdict on q1" in given.output
    both = runner.invoke(
        app,
        [
            "label",
            run,
            "-q",
            "q2",
            "--verdict",
            "wrong",
            "--code",
            "RET-MISS",
            "--annotator",
            "alice",
        ],
    )
    assert both.exit_code == 0, both.output
    assert set(current_labels(store, run)) == {"q2"}
    bad = runner.invoke(app, ["label", run, "-q", "q1", "--verdict", "perhaps"])
    assert bad.exit_code != 0 and "unknown verdict" in bad.output
    assert "Traceback" not in bad.output
    result = runner.invoke(app, ["audit", run, "--format", "json", "--by", "x"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["agreement"]["n"] == 2 and data["levels"][0]["level"] == "all"
    table = runner.invoke(app, ["audit", run])
    assert table.exit_code == 0 and "PPI++" in table.output and "sensitivity" in table.output
    csv_out = runner.invoke(app, ["audit", run, "--format", "csv", "--variance", "plugin"])
    assert csv_out.exit_code == 0 and csv_out.output.splitlines()[0].startswith("axis,level,")
    raters = runner.invoke(app, ["audit", run, "--raters", "--format", "json"])
    assert raters.exit_code == 0, raters.output
    assert "alice" in json.loads(raters.output)["raters"]
    undo = runner.invoke(app, ["label", run, "-q", "q1", "--undo-verdict", "--annotator", "alice"])
    assert undo.exit_code == 0 and "undid verdict event" in undo.output
    again = runner.invoke(app, ["label", run, "-q", "q1", "--undo-verdict", "--annotator", "alice"])
    assert again.exit_code == 0 and "no verdict to undo" in again.output


def test_sample_for_verdicts_is_stratified_by_level_and_grader_outcome(
    tmp_path: Path, store: Store
) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", str(make_run(tmp_path))]).exit_code == 0
    result = runner.invoke(
        app, ["sample", "judged", "--for", "verdicts", "--n", "10", "--by", "x", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    drawn = json.loads(result.output)
    queue = drawn["queue"]
    assert len(queue) == 10 and len({item["qid"] for item in queue}) == 10
    # four strata (X1/X2 x pass/fail), each checked at least twice
    assert set(drawn["per_stratum"]) == {"X1·pass", "X1·fail", "X2·pass", "X2·fail"}
    for stratum, counts in drawn["per_stratum"].items():
        picked = [item for item in queue if item["stratum"] == stratum]
        assert len(picked) == counts["planned"] >= 2
        assert all(
            item["inclusion_probability"] == pytest.approx(counts["planned"] / counts["questions"])
            for item in picked
        )
    passed = {f"q{i}" for i in PASSED}
    for item in queue:
        assert item["stratum"].endswith("pass") == (item["qid"] in passed)
    again = runner.invoke(
        app, ["sample", "judged", "--for", "verdicts", "--n", "10", "--by", "x", "--format", "json"]
    )
    assert json.loads(again.output)["queue"] == queue  # the same seed, the same sample
    from memscope.usecases.labels.verdict_sample import load_verdict_sample

    assert [qid for qid, _, _ in load_verdict_sample(store, "judged")] == [
        item["qid"] for item in queue
    ]
    # verdicts on the sample are weighted by it
    for item in queue:
        word = "correct" if item["stratum"].endswith("pass") else "wrong"
        record_verdict(store, "judged", item["qid"], word, annotator="alice")
    assert audit_run(store, "judged", by="x").weighted
    mixed = runner.invoke(app, ["sample", "judged", "--for", "verdicts", "--strata", "cell"])
    assert mixed.exit_code != 0 and "--for verdicts takes" in mixed.output
    stray = runner.invoke(app, ["sample", "judged", "--n", "5"])
    assert stray.exit_code != 0 and "--for verdicts" in stray.output


def test_agreement_counts_verdicts(store: Store, run_id: str) -> None:
    from memscope.usecases.labels.events import agreement, record_label

    for qid, (a, b) in {
        "q1": ("correct", "correct"),
        "q2": ("wrong", "wrong"),
        "q3": ("correct", "wrong"),
        "q4": ("unsure", "unsure"),
    }.items():
        record_verdict(store, run_id, qid, a, annotator="alice")
        record_verdict(store, run_id, qid, b, annotator="bob")
    only_verdicts = agreement(store, run_id, "alice", "bob")
    assert only_verdicts["n"] == 0 and only_verdicts["verdicts"]["n"] == 4
    people = ["correct", "wrong", "correct", "unsure"]
    other = ["correct", "wrong", "wrong", "unsure"]
    assert only_verdicts["verdicts"]["kappa"] == pytest.approx(cohen_kappa_score(people, other))
    record_label(store, run_id, "q1", codes=["RET-MISS"], annotator="alice")
    record_label(store, run_id, "q1", codes=["RET-MISS"], annotator="bob")
    both = agreement(store, run_id, "alice", "bob")
    assert both["n"] == 1 and both["verdicts"]["qids"] == ["q1", "q2", "q3", "q4"]
    with pytest.raises(NotFoundError, match="carol"):
        agreement(store, run_id, "alice", "carol")
    shown = CliRunner().invoke(app, ["agreement", run_id, "--annotators", "alice", "bob"])
    assert shown.exit_code == 0, shown.output
    assert "verdicts (n=4)" in shown.output


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_verdicts_export_and_import_with_the_labels(
    tmp_path: Path, store: Store, run_id: str, fmt: str
) -> None:
    from memscope.usecases.labels.events import record_label
    from memscope.usecases.labels.export import export_labels
    from memscope.usecases.labels.import_file import import_labels

    record_label(store, run_id, "q1", codes=["RET-MISS"], annotator="alice")
    record_verdict(store, run_id, "q1", "wrong", annotator="alice", note="off by a week")
    record_verdict(store, run_id, "q2", "correct", annotator="alice")  # a verdict alone
    record_verdict(store, run_id, "q3", "unsure", annotator="bob")
    record_verdict(store, run_id, "q3", "correct", annotator="bob")
    out = tmp_path / f"labels.{fmt}"
    export_labels(store, run_id, fmt=fmt, out=out)

    other = Store(tmp_path / "other.duckdb")
    ingest_dir(other, make_run(tmp_path), ReadOptions())
    first = import_labels(other, [out])
    assert first.imported == 1 and first.verdicts_imported == 3
    for who in ("alice", "bob"):
        mine = current_verdicts(store, run_id, annotator=who)
        theirs = current_verdicts(other, run_id, annotator=who)
        assert {q: (v.verdict, v.note, v.given_at) for q, v in theirs.items()} == {
            q: (v.verdict, v.note, v.given_at) for q, v in mine.items()
        }
    assert set(current_labels(other, run_id)) == {"q1"}  # the verdict-only rows are no labels
    again = import_labels(other, [out])
    assert again.verdicts_imported == 0 and again.verdicts_present == 3


def test_a_bad_verdict_in_a_file_refuses_it(tmp_path: Path, store: Store, run_id: str) -> None:
    from memscope.usecases.labels.export import export_labels
    from memscope.usecases.labels.import_file import import_labels

    record_verdict(store, run_id, "q2", "correct", annotator="alice")
    out = tmp_path / "labels.csv"
    export_labels(store, run_id, fmt="csv", out=out)
    out.write_text(
        out.read_text(encoding="utf-8").replace(",correct,", ",great,"), encoding="utf-8"
    )
    with pytest.raises(InputError, match="unknown verdict great"):
        import_labels(store, [out])


def test_a_verdict_waits_in_the_journal_and_is_replayed(store: Store, run_id: str) -> None:
    from memscope.usecases.labels.journal import LabelJournal, LabelOp, op_problem, replay_pending

    journal = LabelJournal(store.path)
    journal.add(LabelOp("verdict", run_id, "q1", "alice", verdict="wrong", note="stale date"))
    journal.add(LabelOp("verdict", run_id, "q2", "alice", verdict="correct"))
    journal.add(LabelOp("undo_verdict", run_id, "q2", "alice"))
    result = replay_pending(store)
    assert result.saved == 3 and not result.rejected
    found = current_verdicts(store, run_id, annotator="alice")
    assert set(found) == {"q1"} and found["q1"].verdict == "wrong"
    assert found["q1"].note == "stale date"
    assert current_labels(store, run_id) == {}
    bad = {"action": "verdict", "run_id": run_id, "qid": "q1", "annotator": "a", "verdict": "ok"}
    assert "verdict must be correct, wrong, unsure or null" in str(op_problem(bad))
