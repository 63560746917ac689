"""Writing the engine's recomputed scores into a logged run's ``retrievals``, and undoing it.

A retrieval run may log its ranking to ``top_k`` but score only its first candidates
(a ranking format's ``candidates``: five in the built-in benchmarks). The engine
recomputes the similarities of the whole pool; this module merges them in one
transaction:

- Rows the run logged keep their rank and every value it logged. A value it did not log
  (``score``, ``text_score`` or ``image_score`` NULL) is filled with the recomputed one,
  and such a row's ``origin`` becomes ``'recomputed'``: its rank is the run's, some of its
  scores are memscope's. A row whose values were all logged stays ``'logged'``.
- Extension rows (candidates the run did not list) are added with ``origin =
  'recomputed'``. Their rank is ``L + j``: ``L`` is the question's highest logged rank and
  ``j = 1, 2, ...`` the candidate's order among the not-logged candidates by recomputed
  score, descending, ties by round id ascending (the rule the engine ranks by). Logged ranks always come
  first, even where the recomputed order would differ.
- ``recomputed_scores`` keeps every recomputed value with what ``retrievals`` held before
  (``logged_*``), and ``recompute_runs`` what was done; :func:`undo_recomputation` uses
  them to restore the logged rows exactly. A run re-ingested since (a new content hash)
  has fresh ``retrievals``, so only the stale bookkeeping is dropped then.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memscope.store.sql import one, rows, scalar

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

MATCH = "t.run_id = $run AND t.qid = f.qid AND t.round_id = f.round_id"
FILLABLE = (
    "(t.score IS NULL AND f.score IS NOT NULL) OR (t.text_score IS NULL AND f.text_score IS NOT NULL) "
    "OR (t.image_score IS NULL AND f.image_score IS NOT NULL)"
)


@dataclass
class MergeCounts:
    """What merging one recomputation did."""

    n_filled: int
    """Logged rows that received at least one recomputed value."""
    n_extended: int
    """Candidates added below the logged ranks."""
    max_deviation: float | None
    """Largest |recomputed - logged| over values the run logged (None when none overlap)."""
    n_compared: int
    """Logged values the recomputation was compared with."""


def logged_candidates(con: duckdb.DuckDBPyConnection, run_id: str) -> pa.Table:
    """The ranked rows of a run as logged (after any previous recomputation was undone)."""
    return con.sql(
        "SELECT qid, round_id, rank FROM retrievals WHERE run_id = ? AND rank IS NOT NULL ORDER BY qid, rank",
        params=[run_id],
    ).to_arrow_table()


def recompute_state(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, Any] | None:
    """The last recomputation of a run, or None."""
    row = one(
        con,
        "SELECT run_hash, method, text_model, image_model, pool_size, n_questions, n_filled, n_extended, "
        "max_deviation, notes, computed_at FROM recompute_runs WHERE run_id = ?",
        [run_id],
    )
    if row is None:
        return None
    keys = (
        "run_hash",
        "method",
        "text_model",
        "image_model",
        "pool_size",
        "n_questions",
        "n_filled",
        "n_extended",
        "max_deviation",
        "notes",
        "computed_at",
    )
    state = dict(zip(keys, row, strict=True))
    state["notes"] = json.loads(state["notes"] or "[]")
    return state


def undo_recomputation(con: duckdb.DuckDBPyConnection, run_id: str) -> bool:
    """Restore a run's logged retrievals (inside the caller's transaction).

    Returns:
        Whether there was a recomputation to undo.
    """
    state = one(con, "SELECT run_hash FROM recompute_runs WHERE run_id = ?", [run_id])
    current_hash = scalar(con, "SELECT content_hash FROM runs WHERE run_id = ?", [run_id])
    if state is not None and state[0] == current_hash:
        con.execute(
            "UPDATE retrievals t SET score = s.logged_score, text_score = s.logged_text_score, "
            "image_score = s.logged_image_score, origin = s.logged_origin "
            "FROM recomputed_scores s WHERE t.run_id = $run AND s.run_id = $run AND s.qid = t.qid "
            "AND s.round_id = t.round_id AND s.logged_rank IS NOT NULL AND t.origin = 'recomputed'",
            {"run": run_id},
        )
        con.execute(
            "DELETE FROM retrievals t USING recomputed_scores s WHERE t.run_id = $run AND s.run_id = $run "
            "AND s.qid = t.qid AND s.round_id = t.round_id AND s.logged_rank IS NULL AND t.origin = 'recomputed'",
            {"run": run_id},
        )
    had_rows = scalar(con, "SELECT count(*) FROM recomputed_scores WHERE run_id = ?", [run_id])
    con.execute("DELETE FROM recomputed_scores WHERE run_id = ?", [run_id])
    con.execute("DELETE FROM recompute_runs WHERE run_id = ?", [run_id])
    return state is not None or bool(had_rows)


def compare_with_logged(
    con: duckdb.DuckDBPyConnection, run_id: str, fresh: pa.Table
) -> tuple[float | None, int]:
    """Largest difference between recomputed values and the values the run logged, and how many were compared."""
    con.register("memscope_fresh", fresh)
    try:
        row = one(
            con,
            "WITH pairs AS ("
            "  SELECT abs(f.score - t.score) AS d FROM memscope_fresh f JOIN retrievals t ON "
            + MATCH
            + "  UNION ALL SELECT abs(f.text_score - t.text_score) FROM memscope_fresh f JOIN retrievals t ON "
            + MATCH
            + "  UNION ALL SELECT abs(f.image_score - t.image_score) FROM memscope_fresh f JOIN retrievals t ON "
            + MATCH
            + ") SELECT max(d), count(d) FROM pairs",
            {"run": run_id},
        )
    finally:
        con.unregister("memscope_fresh")
    return (None if row is None or row[0] is None else float(row[0])), int(row[1] if row else 0)


def merge_recomputation(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    fresh: pa.Table,
    *,
    extend: bool,
    record: dict[str, Any],
) -> MergeCounts:
    """Merge recomputed scores into ``retrievals`` (inside the caller's transaction).

    Args:
        fresh: ``qid, round_id, recomputed_rank, score, text_score, image_score``: the
            recomputed values of every logged candidate and of the pool's top candidates.
        extend: Add the not-logged candidates as extension rows (only when the run's full
            score could be recomputed; ranking by a partial score would invent an order).
        record: ``recompute_runs`` values: run_hash, method, text_model, image_model,
            pool_size, n_questions, notes.
    """
    max_deviation, n_compared = compare_with_logged(con, run_id, fresh)
    con.register("memscope_fresh", fresh)
    try:
        con.execute(
            "INSERT INTO recomputed_scores "
            "WITH logged AS (SELECT * FROM retrievals WHERE run_id = $run "
            "                QUALIFY row_number() OVER (PARTITION BY qid, round_id ORDER BY rank NULLS LAST) = 1) "
            "SELECT $run, f.qid, f.round_id, f.recomputed_rank, f.score, f.text_score, f.image_score, "
            "       t.rank, t.score, t.text_score, t.image_score, t.origin "
            "FROM memscope_fresh f LEFT JOIN logged t ON t.qid = f.qid AND t.round_id = f.round_id",
            {"run": run_id},
        )
        n_filled = int(
            scalar(
                con,
                "SELECT count(*) FROM retrievals t JOIN memscope_fresh f ON "
                + MATCH
                + " WHERE "
                + FILLABLE,
                {"run": run_id},
            )
            or 0
        )
        con.execute(
            "UPDATE retrievals t SET score = coalesce(t.score, f.score), text_score = coalesce(t.text_score, f.text_score), "
            "image_score = coalesce(t.image_score, f.image_score), origin = 'recomputed' "
            "FROM memscope_fresh f WHERE " + MATCH + " AND (" + FILLABLE + ")",
            {"run": run_id},
        )
        n_extended = 0
        if extend:
            before = int(
                scalar(con, "SELECT count(*) FROM retrievals WHERE run_id = ?", [run_id]) or 0
            )
            con.execute(
                "INSERT INTO retrievals "
                "WITH base AS (SELECT qid, max(rank) AS logged_k FROM retrievals WHERE run_id = $run GROUP BY qid), "
                "extra AS (SELECT f.* FROM memscope_fresh f "
                "          WHERE NOT EXISTS (SELECT 1 FROM retrievals t WHERE " + MATCH + ")) "
                "SELECT $run, e.qid, coalesce(b.logged_k, 0) + row_number() OVER (PARTITION BY e.qid ORDER BY e.recomputed_rank), "
                "       e.round_id, e.score, e.text_score, e.image_score, 'recomputed' "
                "FROM extra e LEFT JOIN base b USING (qid)",
                {"run": run_id},
            )
            n_extended = (
                int(scalar(con, "SELECT count(*) FROM retrievals WHERE run_id = ?", [run_id]) or 0)
                - before
            )
    finally:
        con.unregister("memscope_fresh")
    con.execute(
        "INSERT INTO recompute_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, now()::TIMESTAMP)",
        [
            run_id,
            record["run_hash"],
            record["method"],
            record.get("text_model"),
            record.get("image_model"),
            int(record["pool_size"]),
            int(record["n_questions"]),
            n_filled,
            n_extended,
            max_deviation,
            json.dumps(record.get("notes") or []),
        ],
    )
    return MergeCounts(n_filled, n_extended, max_deviation, n_compared)


def run_retrievals(con: duckdb.DuckDBPyConnection, run_id: str) -> list[tuple[Any, ...]]:
    """A run's retrieval rows: ``(qid, rank, round_id, score, text_score, image_score, origin)``."""
    return rows(
        con,
        "SELECT qid, rank, round_id, score, text_score, image_score, origin FROM retrievals "
        "WHERE run_id = ? ORDER BY qid, rank NULLS LAST, round_id",
        [run_id],
    )
