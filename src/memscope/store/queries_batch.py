"""Reads of many runs at once: one query per table for every selected run.

A paper's sweep is hundreds of small runs; reading them one by one costs a handful of
queries each (``queries.question_table``, ``queries.evidence_table``). These return the
same rows for all the runs together, each table with the run (or dataset) it belongs to as
its first column and sorted by it, for ``usecases/runs/batch.py`` to cut into runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memscope.store.queries import QUESTION_COLUMNS, RUN_COLUMNS, SCORE_COLUMNS
from memscope.store.sql import rows

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

SELECTED_RUNS = "(SELECT unnest($runs::VARCHAR[]))"
"""The runs a batch read is about, from the list parameter ``$runs``."""


def runs_by_id(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The stored description of each of ``run_ids`` that exists (as ``queries.get_run``)."""
    found = rows(
        con,
        f"SELECT {', '.join(RUN_COLUMNS)} FROM runs WHERE run_id IN {SELECTED_RUNS}",
        {"runs": list(run_ids)},
    )
    return {row[0]: dict(zip(RUN_COLUMNS, row, strict=True)) for row in found}


def question_tables(
    con: duckdb.DuckDBPyConnection,
    run_ids: Sequence[str],
    *,
    detail: bool,
    prediction_extra: bool,
) -> pa.Table:
    """``queries.question_table`` of every run in ``run_ids`` at once: ``run_id`` first,
    then the same columns, sorted by run and, within a run, by idx.

    ``prediction_extra`` adds the predictions' own attributes (``Benchmark.own_attributes``).
    """
    columns = QUESTION_COLUMNS if detail else SCORE_COLUMNS
    if prediction_extra:
        columns += ", p.extra AS prediction_extra"
    return con.sql(
        f"SELECT p.run_id, {columns} "
        "FROM predictions p JOIN runs r USING (run_id) "
        "JOIN questions q ON q.dataset_id = r.dataset_id AND q.qid = p.qid "
        f"WHERE p.run_id IN {SELECTED_RUNS} ORDER BY p.run_id, q.idx",
        params={"runs": list(run_ids)},
    ).to_arrow_table()


def evidence_sources(
    con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]
) -> tuple[pa.Table, pa.Table, pa.Table, pa.Table]:
    """The four inputs of ``queries.evidence_table`` for every run in ``run_ids``.

    Returns:
        questions (``run_id``, qid, y, clue_rounds, source_sessions; by run, then idx),
        rounds and sessions (``dataset_id`` first, by dataset) of the runs' datasets, and
        retrievals (``run_id`` first; a run's rows in the order the store keeps them).
    """
    selected = {"runs": list(run_ids)}
    datasets = f"(SELECT dataset_id FROM runs WHERE run_id IN {SELECTED_RUNS})"
    questions = con.sql(
        "SELECT p.run_id, p.qid, q.y, q.extra, q.clue_rounds, q.source_sessions FROM predictions p "
        "JOIN runs r USING (run_id) JOIN questions q ON q.dataset_id = r.dataset_id AND q.qid = p.qid "
        f"WHERE p.run_id IN {SELECTED_RUNS} ORDER BY p.run_id, q.idx",
        params=selected,
    ).to_arrow_table()
    rounds = con.sql(
        "SELECT r.dataset_id, r.round_id, r.position, s.session_order, r.session_id FROM rounds r "
        "JOIN sessions s USING (dataset_id, session_id) "
        f"WHERE r.dataset_id IN {datasets} ORDER BY r.dataset_id",
        params=selected,
    ).to_arrow_table()
    sessions = con.sql(
        "SELECT dataset_id, session_id, session_order FROM sessions "
        f"WHERE dataset_id IN {datasets} ORDER BY dataset_id",
        params=selected,
    ).to_arrow_table()
    retrievals = con.sql(
        "SELECT run_id, qid, rank, round_id, score, origin FROM retrievals "
        f"WHERE run_id IN {SELECTED_RUNS}",
        params=selected,
    ).to_arrow_table()
    return questions, rounds, sessions, retrievals


def dataset_round_counts(
    con: duckdb.DuckDBPyConnection, dataset_ids: Sequence[str]
) -> dict[str, int]:
    """N, the number of rounds, of each dataset in ``dataset_ids`` (0 for one without)."""
    found = rows(
        con,
        "SELECT dataset_id, count(*) FROM rounds "
        "WHERE dataset_id IN (SELECT unnest($datasets::VARCHAR[])) GROUP BY dataset_id",
        {"datasets": list(dataset_ids)},
    )
    counts = dict.fromkeys(dataset_ids, 0)
    counts.update({dataset_id: int(n) for dataset_id, n in found})
    return counts
