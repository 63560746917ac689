"""`rerun` and the app point to `memscope recompute` only where it can work on this machine
(issue 25, item 21): srag_t's retriever (all-MiniLM-L6-v2) is here, srag_v's SigLIP-2
image model is not, so srag_v's q37 (the README's example) says nothing of recompute."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from memscope.cli import app
from memscope.store import Store
from memscope.triage.loaded_run import open_session
from memscope.triage.question_view import load_question, ranking_view
from memscope.usecases.runs import session_io

RUNS = Path(__file__).parents[2] / "runs"
runner = CliRunner()


def rerun_note(run: str, qid: str) -> str:
    result = runner.invoke(app, ["rerun", run, "--question", qid, "--alpha", "0.7", "-f", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["note"] or ""


def test_rerun_points_to_recompute_only_where_it_can_work(store: Store) -> None:
    for name in ("srag_v", "srag_t"):
        assert runner.invoke(app, ["ingest", str(RUNS / name)]).exit_code == 0
    assert (
        rerun_note("srag_v", "q37") == "5 of 10 candidates have scores; ranks 6–10 keep their order"
    )
    note = rerun_note("srag_t", "q37")
    assert note.startswith("5 of 10 candidates have scores; ranks 6–10 keep their order; ")
    assert "`memscope recompute srag_t` can recompute the missing similarities with" in note
    summary = runner.invoke(app, ["rerun", "srag_v", "--alpha", "0.7", "-f", "json"])
    notes = json.loads(summary.stdout)["notes"]
    assert any("have scores for only part of their pool" in note for note in notes)
    assert not any("memscope recompute" in note for note in notes)


def test_the_app_says_nothing_of_recompute_for_srag_v(store: Store) -> None:
    assert runner.invoke(app, ["ingest", str(RUNS / "srag_v")]).exit_code == 0
    session = open_session(store, ["srag_v"], "alice")
    assert session.channels.recompute_hint is None
    context = session_io.read_question_context(store, "srag_v")
    assert not context.recompute_hint.known  # found out after the first questions are read
    session_io.find_recompute_hint(store, "srag_v", context.recompute_hint)
    assert context.recompute_hint.known and context.recompute_hint.text is None
    read = session_io.read_questions(store, context.run, ["q37"])["q37"]
    question = load_question(read, None, context.recompute_hint)
    view = ranking_view(question, alpha=0.7, lam=0.02, k=10)
    assert view.note == "5 of 10 candidates have scores; ranks 6–10 keep their order"


def test_the_apps_questions_point_to_recompute_once_it_is_found_out(store: Store) -> None:
    assert runner.invoke(app, ["ingest", str(RUNS / "srag_t")]).exit_code == 0
    context = session_io.read_question_context(store, "srag_t")
    read = session_io.read_questions(store, context.run, ["q37"])["q37"]
    question = load_question(read, None, context.recompute_hint)  # read before it is known
    assert question.channels.recompute_hint is None
    session_io.find_recompute_hint(store, "srag_t", context.recompute_hint)
    hint = question.channels.recompute_hint
    assert hint is not None and hint.startswith("`memscope recompute srag_t` can recompute")
    view = ranking_view(question, alpha=0.7, lam=0.02, k=10)
    assert view.note is not None and "`memscope recompute srag_t`" in view.note
