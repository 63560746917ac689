"""Rule-based failure suggestions in the store, kept apart from human labels.

A run's suggestions are replaced as a whole each time they are recomputed, and
``suggestion_runs`` records that they were (a run may have failures no rule explains, or
no failures at all). Labels are never touched.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memscope.store.connection import rollback_quietly
from memscope.store.sql import insert_json_rows, one, rows

if TYPE_CHECKING:
    import duckdb

SUGGESTION_COLUMNS = (
    "run_id",
    "ordinal",
    "run_hash",
    "qid",
    "question_key",
    "rank",
    "code",
    "stage",
    "rule",
    "explanation",
    "numbers",
    "twin_run_id",
    "taxonomy_version",
    "created_at",
)


def replace_suggestions(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    suggestions: list[dict[str, Any]],
    *,
    run_hash: str | None,
    taxonomy_version: str,
    twin_run_ids: list[str],
    n_failed: int,
    created_at: datetime,
) -> None:
    """Replace every stored suggestion of ``run_id``, in one transaction."""
    con.begin()
    try:
        con.execute("DELETE FROM suggestions WHERE run_id = ?", [run_id])
        con.execute("DELETE FROM suggestion_runs WHERE run_id = ?", [run_id])
        insert_json_rows(
            con,
            "suggestions",
            [{**item, "ordinal": ordinal} for ordinal, item in enumerate(suggestions)],
            {
                "run_id": run_id,
                "run_hash": run_hash,
                "taxonomy_version": taxonomy_version,
                "created_at": created_at,
            },
        )
        # The question's idx, which a page of the queue finds its suggestions by.
        con.execute(
            "UPDATE suggestions s SET question_idx = q.idx FROM runs r, questions q "
            "WHERE s.run_id = ? AND r.run_id = s.run_id AND q.dataset_id = r.dataset_id "
            "AND q.qid = s.qid",
            [run_id],
        )
        n_suggested = len({item["qid"] for item in suggestions})
        con.execute(
            "INSERT INTO suggestion_runs VALUES (?, ?, ?, ?, ?, ?, ?)",
            [run_id, run_hash, taxonomy_version, twin_run_ids, n_failed, n_suggested, created_at],
        )
        con.commit()
    except BaseException:
        rollback_quietly(con)
        raise


def suggestion_rows(con: duckdb.DuckDBPyConnection, run_id: str | None) -> list[dict[str, Any]]:
    """Stored suggestions of one run (every run when None): per question, primary (rank 1) first."""
    where, params = ("WHERE run_id = ?", [run_id]) if run_id is not None else ("", [])
    found = rows(
        con,
        f"SELECT {', '.join(SUGGESTION_COLUMNS)} FROM suggestions {where} ORDER BY run_id, ordinal",
        params,
    )
    result = []
    for row in found:
        item = dict(zip(SUGGESTION_COLUMNS, row, strict=True))
        item["numbers"] = json.loads(item["numbers"]) if item["numbers"] else {}
        result.append(item)
    return result


def question_suggestion_rows(
    con: duckdb.DuckDBPyConnection, run_id: str, qids: list[str], idx: list[int] | None = None
) -> list[dict[str, Any]]:
    """Stored suggestions of ``qids`` of one run (a question read's share): per question,
    primary (rank 1) first. ``idx``: those questions' idx, when known (then found by it,
    without matching every qid of a large run)."""
    if not qids:
        return []
    by_idx = "AND list_contains(?, question_idx) " if idx is not None else ""
    found = rows(
        con,
        f"SELECT {', '.join(SUGGESTION_COLUMNS)} FROM suggestions "
        f"WHERE run_id = ? {by_idx}AND list_contains(?, qid) ORDER BY ordinal",
        [run_id, *([idx] if idx is not None else []), qids],
    )
    result = []
    for row in found:
        item = dict(zip(SUGGESTION_COLUMNS, row, strict=True))
        item["numbers"] = json.loads(item["numbers"]) if item["numbers"] else {}
        result.append(item)
    return result


def suggested_codes(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, str]:
    """qid -> the primary (rank 1) suggested code of each suggested question of a run (for
    one run-level computation: the caller drops it after)."""
    found = rows(
        con,
        "SELECT qid, code FROM suggestions WHERE run_id = ? AND rank = 1",
        [run_id],
    )
    return {str(qid): str(code) for qid, code in found}


def suggested_code_set(con: duckdb.DuckDBPyConnection, run_id: str) -> list[str]:
    """The distinct primary (rank 1) suggested codes of a run, sorted."""
    found = rows(
        con,
        "SELECT DISTINCT code FROM suggestions WHERE run_id = ? AND rank = 1 ORDER BY code",
        [run_id],
    )
    return [str(code) for (code,) in found if code]


def suggestion_state(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, Any] | None:
    """When and under which run hash the run's suggestions were computed (None: never)."""
    found = one(
        con,
        "SELECT run_hash, taxonomy_version, twin_run_ids, n_failed, n_suggested, created_at "
        "FROM suggestion_runs WHERE run_id = ?",
        [run_id],
    )
    if found is None:
        return None
    keys = ("run_hash", "taxonomy_version", "twin_run_ids", "n_failed", "n_suggested", "created_at")
    return dict(zip(keys, found, strict=True))


def shared_question_counts(
    con: duckdb.DuckDBPyConnection, run_id: str, other_ids: list[str]
) -> dict[str, int]:
    """For each other run, how many question keys it shares with ``run_id``."""
    if not other_ids:
        return {}
    found = rows(
        con,
        """
        WITH keys AS (
            SELECT p.run_id, q.question_key FROM predictions p JOIN runs r USING (run_id)
            JOIN questions q ON q.dataset_id = r.dataset_id AND q.qid = p.qid
            WHERE p.run_id = ? OR list_contains(?, p.run_id)
        )
        SELECT o.run_id, count(DISTINCT o.question_key)
        FROM keys o JOIN keys m ON m.question_key = o.question_key AND m.run_id = ?
        WHERE o.run_id <> ? GROUP BY o.run_id
        """,
        [run_id, other_ids, run_id, run_id],
    )
    return {row[0]: int(row[1]) for row in found}
