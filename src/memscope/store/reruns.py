"""Stored reruns of the recency probe: parameters, time and results, so the app can list them."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memscope.store.sql import one, rows

if TYPE_CHECKING:
    import duckdb


def insert_rerun(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    kind: str,
    params: dict[str, Any],
    results: dict[str, Any],
    created_at: datetime,
) -> int:
    """Store one rerun (``kind``: ``run`` or ``question``); returns its id."""
    found = one(
        con,
        "INSERT INTO reruns VALUES (nextval('rerun_ids'), ?, ?, ?, ?, ?) RETURNING rerun_id",
        [run_id, kind, created_at, json.dumps(params), json.dumps(results)],
    )
    assert found is not None  # RETURNING always yields the inserted row
    return int(found[0])


def list_reruns(con: duckdb.DuckDBPyConnection, run_id: str | None) -> list[dict[str, Any]]:
    """Stored reruns (of one run, or all), newest first, without their results."""
    where, params = ("WHERE run_id = ?", [run_id]) if run_id is not None else ("", [])
    found = rows(
        con,
        f"SELECT rerun_id, run_id, kind, created_at, params FROM reruns {where} ORDER BY rerun_id DESC",
        params,
    )
    return [
        {
            "rerun_id": row[0],
            "run_id": row[1],
            "kind": row[2],
            "created_at": row[3],
            "params": json.loads(row[4]),
        }
        for row in found
    ]


def get_rerun(con: duckdb.DuckDBPyConnection, rerun_id: int) -> dict[str, Any] | None:
    """One stored rerun with its results, or None."""
    found = one(
        con,
        "SELECT rerun_id, run_id, kind, created_at, params, results FROM reruns WHERE rerun_id = ?",
        [rerun_id],
    )
    if found is None:
        return None
    return {
        "rerun_id": found[0],
        "run_id": found[1],
        "kind": found[2],
        "created_at": found[3],
        "params": json.loads(found[4]),
        "results": json.loads(found[5]),
    }
