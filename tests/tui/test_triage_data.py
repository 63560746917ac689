"""The app's pure data layer: queue specs and filters, the triage table, the evidence chain,
the remembered position (migration 004) and the writer lease."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from builders import small_run
from memscope.adapters import ReadOptions
from memscope.errors import InputError
from memscope.store import Store
from memscope.store.app_state import load_app_state
from memscope.store.lease import WriterLease, lease_path
from memscope.triage.candidate_rows import candidates_from_rerun, logged_candidates
from memscope.triage.evidence_chain import build_timeline, question_detail
from memscope.triage.loaded_run import LoadedRun, load_rounds, open_session, save_position
from memscope.triage.question_view import load_question, ranking_view
from memscope.triage.round_index import RoundIndex
from memscope.usecases.labels.queue import QueueSpec, TriageTable, parse_cell, parse_filter
from memscope.usecases.rerun.question_rerank import rerun_question
from memscope.usecases.runs import session_io
from memscope.usecases.runs.ingest import ingest_dir


def test_parse_cell_and_filter() -> None:
    assert parse_cell("x4y3") == "X4_Y3" == parse_cell("X4_Y3") == parse_cell("X4-Y3")
    with pytest.raises(InputError, match="not a cell"):
        parse_cell("X5Y1")
    terms = parse_filter("y:y3 code:SEL-STALE correct:no bin shed")
    assert terms.fields == {"y": "Y3", "code": "SEL-STALE", "correct": "no"}
    assert terms.words == ("bin", "shed")
    with pytest.raises(InputError, match="unknown filter field 'colour'"):
        parse_filter("colour:red")
    with pytest.raises(InputError, match="must be yes or no"):
        parse_filter("labelled:maybe")
    assert parse_filter("'; DROP TABLE runs; --").words  # SQL-looking text is just words


def test_queue_spec_round_trip_and_bad_values() -> None:
    spec = QueueSpec(kind="all", cell="X2_Y3", text="y:Y3", sort="score", descending=True)
    assert QueueSpec.from_json(spec.to_json()) == spec
    assert QueueSpec.from_json({"kind": "nonsense"}) == QueueSpec()
    assert "X2Y3" in spec.describe() and "score ↓" in spec.describe()
    with pytest.raises(InputError):
        QueueSpec(kind="broken")


def test_triage_table_select_sort_and_labels(tmp_path: Path, store: Store) -> None:
    run_id = ingest_dir(store, small_run(tmp_path), ReadOptions()).run_id
    session = open_session(store, [run_id], "alice")
    table = session.table
    qids = lambda rows: [str(table.qids[r]) for r in rows]  # noqa: E731
    assert qids(table.select(QueueSpec())) == ["q1", "q2", "q3"]
    assert qids(table.select(QueueSpec(kind="all"))) == ["q1", "q2", "q3", "q4"]
    assert qids(table.select(QueueSpec(cell="X2_Y3"))) == ["q1"]
    assert qids(table.select(QueueSpec(text="y:Y3 watering"))) == ["q3"]
    assert qids(table.select(QueueSpec(kind="all", sort="score", descending=True)))[0] == "q4"
    table.set_label("q2", ["RET-MISS"])
    assert qids(table.select(QueueSpec(kind="unlabelled"))) == ["q1", "q3"]
    assert qids(table.select(QueueSpec(text="label:RET-MISS"))) == ["q2"]
    assert table.progress(table.select(QueueSpec())) == (1, 3)
    with pytest.raises(InputError, match="needs a second run"):
        table.select(QueueSpec(text="other:yes"))


def test_evidence_chain_timeline(tmp_path: Path, store: Store) -> None:
    run_id = ingest_dir(store, small_run(tmp_path), ReadOptions()).run_id
    session = open_session(store, [run_id], "alice")
    rounds = load_rounds(store, session.data.run.dataset_id)
    assert isinstance(rounds, RoundIndex) and rounds.n == 6
    detail = question_detail(session.data, 0)
    assert detail.qid == "q1" and detail.asks_latest and detail.gold == "by the shed"
    candidates = logged_candidates(session.data, 0, rounds, 2, {})
    assert [(c.round_id, c.rank, c.in_top_k) for c in candidates] == [
        ("D1:1", 1, True),
        ("D2:1", 2, True),
        ("D1:3", 3, False),
    ]
    entries = build_timeline(detail, rounds, candidates)
    kinds = [(e.kind, e.round_id or e.session_id) for e in entries]
    assert kinds[0] == ("session", "D1") and ("session", "D2") in kinds
    by_round = {e.round_id: e for e in entries if e.kind == "round"}
    assert by_round["D2:1"].is_latest and by_round["D1:1"].is_stale_clue
    assert by_round["D1:2"].rank == 0 and not by_round["D1:2"].is_gold  # context around a clue
    assert "D1:4" not in by_round  # neither gold, retrieved nor next to a clue


def _whole_run_ranking(session: LoadedRun, rounds: RoundIndex, row: int, k: int) -> tuple:
    """The candidates and timeline of question ``row`` computed over the whole run in
    memory, as the app did before it read one question at a time."""
    detail = question_detail(session.data, row)
    channels = session.channels.scores(detail.qid)
    if session.data.run.retrieval_kind == "ranked":
        rerun = rerun_question(session.data, detail.qid, alpha=0.6, lam=0.02, k=k)
        candidates = candidates_from_rerun(
            rerun.after.rows, rerun.before.rows, channels, detail.asks_latest
        )
    else:
        candidates = logged_candidates(session.data, row, rounds, k, channels)
    return candidates, build_timeline(detail, rounds, candidates)


def test_question_screen_view_records(tmp_path: Path, store: Store) -> None:
    """The records the question screen draws from, read one question at a time from the
    store: the same question, pool and timeline as computed over the whole run in memory
    (the loading state is gone: a question is read with its evidence)."""
    run_id = ingest_dir(store, small_run(tmp_path), ReadOptions()).run_id
    session = open_session(store, [run_id], "alice")
    rounds = load_rounds(store, session.data.run.dataset_id)
    context = session_io.read_question_context(store, run_id)
    assert context.run.n_rounds == rounds.n == 6
    qids = [str(q) for q in session.data.qids]
    reads = session_io.read_questions(store, context.run, [*qids, "q404"])
    assert sorted(reads) == sorted(qids)  # a qid the run lacks is left out
    for row, qid in enumerate(qids):
        question = load_question(reads[qid], None, context.recompute_hint)
        view = question.view
        assert view.detail == replace(question_detail(session.data, row), row=0)
        assert (view.other, view.other_run_id, view.replaces_rounds) == (None, None, False)
        ranking = ranking_view(question, alpha=0.6, lam=0.02, k=2)
        assert not ranking.loading
        candidates, entries = _whole_run_ranking(session, rounds, row, 2)
        assert ranking.candidates == candidates and ranking.entries == entries
        if ranking.rerun is not None:  # a ranked list: the pool in the re-run's order
            assert [c.round_id for c in ranking.candidates] == ranking.rerun.after.ranking
            assert ranking.before == ranking.rerun.before.metrics
        else:
            assert ranking.note == ranking.message
        # Its rounds are the timeline's, not the dataset's: bounded by the question.
        shown = {e.round_id for e in entries if e.kind == "round"}
        assert shown <= set(question.rounds.round_ids) and question.rounds.n == 6
    first = load_question(reads["q1"], None)
    assert {c.round_id for c in ranking_view(first, alpha=1.0, lam=0.02, k=2).candidates} == {
        "D1:1",
        "D2:1",
        "D1:3",
    }


def test_question_read_pairs_the_compared_run_like_compare(tmp_path: Path, store: Store) -> None:
    """The compared run's answer is read for the one question, paired by question key
    the way the whole-run pairing (``compare.pairs.match_questions``) pairs it."""
    first = ingest_dir(store, small_run(tmp_path / "a"), ReadOptions()).run_id
    second_dir = small_run(tmp_path / "b")
    second = ingest_dir(store, second_dir, ReadOptions()).run_id
    assert first != second
    session = open_session(store, [first, second], "alice")
    context = session_io.read_question_context(store, first, second)
    reads = session_io.read_questions(store, context.run, [str(q) for q in session.data.qids])
    for row, qid in enumerate(session.data.qids.tolist()):
        other_row = session.other_row(row)
        view = load_question(reads[qid], second).view
        assert session.other is not None and other_row is not None
        theirs = question_detail(session.other, other_row)
        assert view.other is not None and view.other.run_id == second
        assert (view.other.pred, view.other.em, view.other.correct) == (
            theirs.pred,
            theirs.em,
            theirs.correct,
        )


def test_app_state_is_remembered_per_run_and_annotator(tmp_path: Path, store: Store) -> None:
    run_id = ingest_dir(store, small_run(tmp_path), ReadOptions()).run_id
    session = open_session(store, [run_id], "alice")
    save_position(store, session, "q3", QueueSpec(text="y:Y3"), {"screen": "question"})
    with store.read() as con:
        saved = load_app_state(con, run_id, "alice")
        assert load_app_state(con, run_id, "bob") is None
    assert saved is not None and saved.qid == "q3" and saved.queue["text"] == "y:Y3"
    assert open_session(store, [run_id], "alice").saved.qid == "q3"


def test_writer_lease_is_exclusive_and_names_its_holder(tmp_path: Path) -> None:
    store_file = tmp_path / "s" / "memscope.duckdb"
    first, second = WriterLease(store_file, "alice"), WriterLease(store_file, "bob")
    assert first.acquire() and first.held
    assert not second.acquire()
    assert second.current_holder().startswith("alice (process ")
    first.release()
    assert second.acquire()
    second.release()
    assert lease_path(store_file).name == "memscope.duckdb.app.lock"


def test_rows_are_numpy(tmp_path: Path, store: Store) -> None:
    run_id = ingest_dir(store, small_run(tmp_path), ReadOptions()).run_id
    table = TriageTable(open_session(store, [run_id], "alice").data)
    assert isinstance(table.select(QueueSpec()), np.ndarray)
