"""Every prediction and suggestion row carries its question's idx (``question_idx``, which
the queue's pages find them by), however it was written: each benchmark's ingest path, the
batch ingest of a sweep, the suggestion writer, and the migration that backfills a store
written before the column existed."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders_locomo import layout, run_output, small_dataset
from memscope.adapters import ReadOptions
from memscope.store import Store
from memscope.store.queue_rows import queue_shape
from memscope.store.sql import rows, scalar
from memscope.usecases.runs.ingest import ingest_paths
from memscope.usecases.suggest.rules import suggest_run
from shared_inputs import copy_store
from support import UPSTREAM_RUNS, upstream_run

REPO = Path(__file__).resolve().parents[2]
TABLES = ("predictions", "suggestions")


def _mismatches(store: Store, table: str) -> list[tuple]:
    """Rows of ``table`` whose question_idx is not their question's idx."""
    with store.read() as con:
        return rows(
            con,
            f"SELECT t.run_id, t.qid, t.question_idx, q.idx FROM {table} t "
            "JOIN runs r USING (run_id) "
            "LEFT JOIN questions q ON q.dataset_id = r.dataset_id AND q.qid = t.qid "
            "WHERE t.question_idx IS DISTINCT FROM q.idx OR q.idx IS NULL",
        )


def _filled_store(store: Store, tmp_path: Path) -> list[str]:
    """``store`` with a run of every benchmark, a MemEye sweep and suggestions; the runs."""
    dataset = small_dataset()
    answers = {s["sample_id"]: {"q1": {"m_prediction": "x", "m_f1": 1.0}} for s in dataset}
    folders = [
        REPO / "runs" / "srag_v",
        REPO / "runs" / "dmv_f2_demo",
        REPO / "runs" / "cue_mm",
        layout(tmp_path / "locomo", dataset, run_output(dataset, answers)),
        UPSTREAM_RUNS.parent,  # several MemEye runs: the batch path
    ]
    outcomes, failures = ingest_paths(store, folders, ReadOptions())
    assert not failures
    run_ids = [outcome.run_id for outcome in outcomes]
    for run_id in run_ids:
        suggest_run(store, run_id)
    return run_ids


@pytest.fixture(scope="module")
def filled_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A store filled by :func:`_filled_store` once for this module (seconds of ingest), and
    its runs; the tests below read or change copies of it."""
    root = tmp_path_factory.mktemp("filled")
    store = Store(root / "store" / "memscope.duckdb")
    return store.path, _filled_store(store, root)


@pytest.fixture
def filled(filled_template: tuple[Path, list[str]], store_path: Path) -> list[str]:
    """This test's store (``store``): a copy of the filled template; its runs."""
    template, run_ids = filled_template
    copy_store(template, store_path)
    return list(run_ids)


def test_every_written_row_names_its_question(store: Store, filled: list[str]) -> None:
    run_ids = filled
    with store.read() as con:
        benchmarks = {row[0] for row in rows(con, "SELECT DISTINCT benchmark FROM runs")}
        assert benchmarks == {"memeye", "dmv", "cuemem", "locomo"}
        assert scalar(con, "SELECT count(DISTINCT run_id) FROM suggestions") >= 2
        # Out-of-order idx would not show a wrong lookup: the ids must differ from row order.
        assert scalar(con, "SELECT count(DISTINCT question_idx) FROM predictions") > 10
    assert len(run_ids) >= 5
    for table in TABLES:
        assert _mismatches(store, table) == [], table


def test_a_store_from_before_the_column_is_backfilled(store: Store, filled: list[str]) -> None:
    with store.write() as con:
        counts = {t: scalar(con, f"SELECT count(*) FROM {t}") for t in TABLES}
        for table in TABLES:  # as memscope wrote it before migration 11
            con.execute(f"ALTER TABLE {table} DROP COLUMN question_idx")
        con.execute("DELETE FROM schema_migrations WHERE version = 11")
    reopened = Store(store.path)
    with reopened.read() as con:  # an outdated store is migrated first
        assert scalar(con, "SELECT max(version) FROM schema_migrations") == 11
        assert {t: scalar(con, f"SELECT count(*) FROM {t}") for t in TABLES} == counts
    for table in TABLES:
        assert _mismatches(reopened, table) == [], table


def test_a_changed_run_ingested_again_keeps_the_idx(store: Store, upstream_copy: Path) -> None:
    """A run whose files changed is replaced on its next ingest: the idx is written again."""
    name = upstream_run("semantic_rag_text_only", "open").name
    run = next(upstream_copy.glob(f"runs/*/{name}"))
    predictions = run / "predictions.jsonl"
    ingest_paths(store, [run], ReadOptions())
    lines = predictions.read_text().splitlines(keepends=True)
    predictions.write_text("".join(lines[1:]))  # the first question dropped
    outcomes, failures = ingest_paths(store, [run], ReadOptions())
    assert not failures and outcomes
    with store.read() as con:
        assert scalar(con, "SELECT count(*) FROM predictions") == len(lines) - 1
    assert _mismatches(store, "predictions") == []


def test_the_queue_shape_is_the_runs_questions(store: Store, filled: list[str]) -> None:
    """The shape the queue is laid out by (its longest qid, whether it mixes tasks), found
    by question_idx, is what the run's own questions say."""
    run_ids = filled
    shapes = {}
    with store.read() as con:
        for run_id in run_ids:
            dataset_id = scalar(con, "SELECT dataset_id FROM runs WHERE run_id = ?", [run_id])
            tasks = dict(
                rows(con, "SELECT qid, task FROM questions WHERE dataset_id = ?", [dataset_id])
            )
            qids = [
                qid
                for (qid,) in rows(con, "SELECT qid FROM predictions WHERE run_id = ?", [run_id])
                if qid in tasks
            ]
            expected = (max(map(len, qids)), len({tasks[qid] or "" for qid in qids}) > 1)
            shapes[run_id] = queue_shape(con, run_id)
            assert shapes[run_id] == expected, run_id
    assert {mixed for _, mixed in shapes.values()} == {True, False}
    assert len({width for width, _ in shapes.values()}) > 1
