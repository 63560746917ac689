"""The app's pure data layer: queue specs and filters, the triage table, the evidence chain,
the remembered position (migration 004) and the writer lease."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from builders import small_run
from memscope.adapters import ReadOptions
from memscope.errors import InputError
from memscope.store import Store
from memscope.store.app_state import load_app_state
from memscope.store.lease import WriterLease, lease_path
from memscope.triage.candidate_rows import logged_candidates
from memscope.triage.evidence_chain import build_timeline, question_detail
from memscope.triage.loaded_run import load_rounds, open_session, save_position
from memscope.triage.question_view import question_view, ranking_view
from memscope.triage.round_index import RoundIndex
from memscope.usecases.labels.queue import QueueSpec, TriageTable, parse_cell, parse_filter
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
    assert detail.qid == "q1" and detail.is_y3 and detail.gold == "by the shed"
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


def test_question_screen_view_records(tmp_path: Path, store: Store) -> None:
    """The records the question screen draws from: built without a terminal, the same
    pool and timeline as the pieces they gather, and honest while evidence loads."""
    run_id = ingest_dir(store, small_run(tmp_path), ReadOptions()).run_id
    session = open_session(store, [run_id], "alice")
    view = question_view(session, 0)
    assert view.detail == question_detail(session.data, 0)
    assert (view.other, view.other_run_id, view.is_probe) == (None, None, False)

    ranking = ranking_view(session, view.detail, alpha=1.0, lam=0.02, k=2)
    assert not ranking.loading
    if ranking.rerun is not None:  # a ranked list: the pool in the re-run's order
        assert [c.round_id for c in ranking.candidates] == ranking.rerun.after.ranking
        assert ranking.before == ranking.rerun.before.metrics
    else:
        assert ranking.candidates == logged_candidates(session.data, 0, session.rounds, 2, {})
        assert ranking.note == ranking.message
    assert {c.round_id for c in ranking.candidates} == {"D1:1", "D2:1", "D1:3"}
    assert ranking.entries == build_timeline(view.detail, session.rounds, ranking.candidates)

    session.evidence_ready = False  # as while the app loads it in the background
    loading = ranking_view(session, view.detail, alpha=1.0, lam=0.02, k=2)
    assert loading.loading and loading.candidates == [] and loading.rerun is None
    assert loading.note == "loading the retrieval evidence …"
    assert [e.round_id for e in loading.entries if e.kind == "round"] == [
        e.round_id for e in build_timeline(view.detail, session.rounds, []) if e.kind == "round"
    ]


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
