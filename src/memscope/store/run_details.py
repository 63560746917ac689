"""Writes the benchmark-specific per-run tables an adapter hands over (migration 005).

An adapter puts Arrow tables in ``RunRecord.detail_tables`` keyed by table name; ingest
calls :func:`replace_run_details` inside the run's transaction, so a re-ingested run never
keeps stale detail rows and a failed ingest leaves none behind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memscope.errors import StoreError
from memscope.store.sql import rows

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

DETAIL_TABLES = ("dmv_recall_steps", "cue_retrieved_items")
"""Every per-run detail table; only these names are accepted from an adapter."""


def replace_run_details(
    con: duckdb.DuckDBPyConnection, run_id: str, tables: dict[str, pa.Table]
) -> None:
    """Delete ``run_id``'s rows from every detail table, then insert ``tables``.

    Each table carries the columns of its store table without ``run_id``; a missing column
    is stored as NULL.

    Raises:
        StoreError: for a table name that is not a detail table (a programming error).
    """
    unknown = sorted(set(tables) - set(DETAIL_TABLES))
    if unknown:
        raise StoreError(
            f"unknown detail table(s) {', '.join(unknown)}",
            fix="This is a memscope bug; please report it.",
        )
    for name in DETAIL_TABLES:
        con.execute(f"DELETE FROM {name} WHERE run_id = ?", [run_id])
    for name, data in tables.items():
        if data is None or not data.num_rows:
            continue
        columns = [row[0] for row in rows(con, f"DESCRIBE {name}")]
        con.register("memscope_detail_incoming", data)
        try:
            selected = ", ".join(
                "?" if column == "run_id" else (column if column in data.column_names else "NULL")
                for column in columns
            )
            con.execute(
                f"INSERT INTO {name} SELECT {selected} FROM memscope_detail_incoming", [run_id]
            )
        finally:
            con.unregister("memscope_detail_incoming")
