"""Run-level numbers read from the store for one computation (issue 30): the matrix's
grids, the run-level re-rank and one question read alone give the same numbers as the
app's former whole-run, in-memory computation, on a generated run."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from builders import dialog, open_row, qa, write_run
from memscope.adapters import ReadOptions
from memscope.store import Store
from memscope.triage.candidate_rows import candidates_from_rerun
from memscope.triage.evidence_chain import build_timeline, question_detail
from memscope.triage.loaded_run import load_rounds, open_session
from memscope.triage.question_view import load_question, ranking_view
from memscope.triage.session import compute_rerank
from memscope.triage.triage_matrix import (
    available_metrics,
    grid_values,
    matrix_table,
    needs_evidence,
)
from memscope.usecases.rerun.question_rerank import rerun_question
from memscope.usecases.runs import session_io
from memscope.usecases.runs.ingest import ingest_dir
from memscope.usecases.runs.loading import load_run
from memscope.usecases.suggest.changes import stored_codes
from memscope.usecases.suggest.rules import load_suggestions

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
from generate_run import generate


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, str]:
    root = tmp_path_factory.mktemp("generated")
    run_dir = generate(root / "run", 400, seed=11)
    store = Store(root / "store.duckdb")
    return store, ingest_dir(store, run_dir, ReadOptions()).run_id


def test_matrix_grids_from_the_store_equal_the_whole_run_in_memory(
    generated: tuple[Store, str],
) -> None:
    """Every metric × view × K: the grid from columns read for it, the session's label and
    suggestion dicts, equals the one over the queue's whole-run table in memory."""
    store, run_id = generated
    session = open_session(store, [run_id], "alice")  # the whole run, evidence included
    # The former whole-run table: every question's Suggestion held in memory.
    table = matrix_table(session.data, {}, load_suggestions(store, run_id))
    # The session's lazy table reads the codes from the store when built: the same column.
    assert session.table.suggested.tolist() == table.suggested.tolist()
    qids = [str(q) for q in session.data.qids]
    labels = {qids[0]: ["RET-MISS"], qids[5]: ["SEL-STALE", "RET-MISS"], qids[9]: []}
    for qid, codes in labels.items():
        table.set_label(qid, codes)
    # Read from the store as the matrix reads them (the session keeps none per question).
    suggested = stored_codes(store, run_id)
    assert suggested  # the suggested-code counts have something to count
    assert session.suggested_codes == sorted(set(suggested.values()))
    metrics = available_metrics(
        session.data.spec, False, session.data.has_retrievals, labels, session.suggested_codes
    )
    keys = {m.key for m in metrics}
    assert {"label:RET-MISS", "label:SEL-STALE", "labelled"} <= keys
    assert any(key.startswith("suggested:") for key in keys)
    assert any(needs_evidence(m) for m in metrics) and not all(needs_evidence(m) for m in metrics)
    for metric in metrics:
        columns = session_io.read_run_columns(store, run_id, evidence=needs_evidence(metric))
        ours = matrix_table(columns, labels, suggested)
        for view in table.axes.views:
            for k in (1, 5):
                assert grid_values(metric, ours, columns, k, view, None, store) == grid_values(
                    metric, table, session.data, k, view, None, store
                ), (metric.key, view, k)


def test_run_rerank_from_the_store_equals_the_whole_run_in_memory(
    generated: tuple[Store, str],
) -> None:
    store, run_id = generated
    session = open_session(store, [run_id], "alice")
    rerank_data = session_io.read_rerank_data(store, run_id)
    assert rerank_data.questions.column_names == ["qid", "y"]  # no text read
    for params in (
        {"alpha": 1.0, "lambda": 0.02, "k": 10},
        {"alpha": 0.4, "lambda": 0.05, "k": 3},
    ):
        ours = compute_rerank(rerank_data, params)
        assert ours.error is None and ours.result is not None and ours.result["n"] > 0
        assert ours.result == compute_rerank(session.data, params).result


def test_questions_read_alone_equal_their_rows_of_the_whole_run(
    generated: tuple[Store, str],
) -> None:
    store, run_id = generated
    session = open_session(store, [run_id], "alice")
    context = session_io.read_question_context(store, run_id)
    rounds = load_rounds(store, context.run.run.dataset_id)
    qids = [str(q) for q in session.data.qids]
    picked = qids[::37]
    reads = session_io.read_questions(store, context.run, picked)
    for qid in picked:
        row = qids.index(qid)
        view = load_question(reads[qid], None).view
        assert view.detail == replace(question_detail(session.data, row), row=0)
        one = reads[qid].data
        assert (
            one.evidence_table.to_pylist() == session.data.evidence_table.slice(row, 1).to_pylist()
        )
        # The pool and timeline from its own rounds equal those from the whole dataset's
        # (batch-mates' rounds in the same read change nothing).
        question = load_question(reads[qid], None)
        ranking = ranking_view(question, alpha=0.5, lam=0.03, k=5)
        detail = question_detail(session.data, row)
        rerun = rerun_question(session.data, qid, alpha=0.5, lam=0.03, k=5)
        candidates = candidates_from_rerun(
            rerun.after.rows, rerun.before.rows, session.channels.scores(qid), detail.asks_latest
        )
        assert ranking.candidates == candidates
        assert ranking.entries == build_timeline(detail, rounds, candidates)


def test_run_rerank_reads_the_y3_questions_alone_and_keeps_the_runs_pool_width(
    tmp_path: Path, store: Store
) -> None:
    """A Y1 question with the longest pool: the Y3 questions' evidence alone, padded to the
    run's pool width, gives the whole run's numbers (the pool size it reports included)."""
    data = dialog(
        {"D1": ["D1:1", "D1:2", "D1:3", "D1:4"], "D2": ["D2:1", "D2:2"]},
        [
            qa(
                "Where is the bin now?",
                "by the shed",
                [["X2"], ["Y3"]],
                ["D1:1", "D2:1"],
                ["D1", "D2"],
            ),
            qa("What colour is the can?", "yellow", [["X4"], ["Y1"]], ["D1:3"], ["D1"]),
            qa(
                "Which day is watering?",
                "Tuesday",
                [["X1"], ["Y3"]],
                ["D1:2", "D2:2"],
                ["D1", "D2"],
            ),
        ],
    )
    rows = [
        open_row(1, data, judge=0.0, seed=["D1:1", "D2:1"], scores=[0.9, 0.5]),
        open_row(
            2,
            data,
            judge=0.0,
            seed=["D1:4", "D1:3", "D1:2", "D2:1", "D2:2"],
            scores=[0.3, 0.2, 0.2, 0.1, 0.1],
        ),
        open_row(3, data, judge=0.2, seed=["D2:2", "D1:1"], scores=[0.7, 0.6]),
    ]
    run_id = ingest_dir(
        store, write_run(tmp_path / "runs" / "wide", data, rows), ReadOptions()
    ).run_id
    rerank_data = session_io.read_rerank_data(store, run_id)
    assert rerank_data.questions.column("y").to_pylist() == ["Y3", "Y3"]
    assert rerank_data.evidence.ranked_pos.shape[1] == 5  # the Y1 question's pool width
    whole = load_run(store, run_id)
    for params in ({"alpha": 1.0, "lambda": 0.02, "k": 1}, {"alpha": 0.3, "lambda": 0.2, "k": 2}):
        ours = compute_rerank(rerank_data, params)
        assert ours.result is not None and ours.result["scored"]["pool_size"] == 5
        assert ours.result == compute_rerank(whole, params).result
