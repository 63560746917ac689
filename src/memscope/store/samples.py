"""Sample plans of the sampled triage queue (tables ``sample_plans`` and ``sample_items``)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memscope.store.sql import insert_json_rows, one, rows

if TYPE_CHECKING:
    import duckdb


def save_plan(
    con: duckdb.DuckDBPyConnection,
    plan: dict[str, Any],
    items: list[dict[str, Any]],
    created_at: datetime,
) -> None:
    """Replace the run's plan and queue in one transaction."""
    run_id = plan["run_id"]
    con.begin()
    try:
        con.execute("DELETE FROM sample_items WHERE run_id = ?", [run_id])
        con.execute("DELETE FROM sample_plans WHERE run_id = ?", [run_id])
        con.execute(
            "INSERT INTO sample_plans VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                run_id,
                plan["run_hash"],
                plan["seed"],
                plan["strata"],
                plan["sample_size"],
                plan["allocation"],
                json.dumps(plan["per_stratum"]),
                created_at,
            ],
        )
        insert_json_rows(con, "sample_items", items, fixed={"run_id": run_id})
        con.commit()
    except BaseException:
        con.rollback()
        raise


def load_plan(
    con: duckdb.DuckDBPyConnection, run_id: str
) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """The run's plan and its items in queue order, or None."""
    found = one(
        con,
        "SELECT run_hash, seed, strata, sample_size, allocation, per_stratum, created_at "
        "FROM sample_plans WHERE run_id = ?",
        [run_id],
    )
    if found is None:
        return None
    plan = {
        "run_id": run_id,
        "run_hash": found[0],
        "seed": int(found[1]),
        "strata": found[2],
        "sample_size": int(found[3]),
        "allocation": found[4],
        "per_stratum": json.loads(found[5]),
        "created_at": found[6],
    }
    items = [
        {
            "position": row[0],
            "qid": row[1],
            "stratum": row[2],
            "inclusion_probability": row[3],
            "planned": bool(row[4]),
        }
        for row in rows(
            con,
            "SELECT position, qid, stratum, inclusion_probability, planned FROM sample_items "
            "WHERE run_id = ? ORDER BY position",
            [run_id],
        )
    ]
    return plan, items
