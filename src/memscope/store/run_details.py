"""Writes the benchmark-specific per-run tables a reader hands over.

A benchmark declares its tables in its spec (``Benchmark.detail_tables``; DMV-Bench's and
CUE-Mem's were created by migration 005, others on first use). A reader puts Arrow tables
in ``RunRecord.detail_tables`` keyed by table name; ingest calls
:func:`replace_run_details` inside the run's transaction, so a re-ingested run never keeps
stale detail rows and a failed ingest leaves none behind.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from memscope.adapters.registry import benchmarks, benchmarks_named, built_ins
from memscope.adapters.spec import DetailTable
from memscope.adapters.spec_check import MEMSCOPE_TABLES
from memscope.errors import StoreError
from memscope.store.sql import rows

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa


def detail_tables(of: Iterable[str] | None = None) -> dict[str, DetailTable]:
    """The detail tables by name (``Benchmark.detail_tables``) of memscope's own benchmarks
    and of the benchmarks ``of`` names (None: of every installed benchmark). A run's reader
    hands over its own benchmark's tables, so storing it needs no other plugin imported.

    Never one of memscope's own tables, whatever a spec says: a re-ingest deletes the run's
    rows from each of these (the registry refuses such a spec; this is the second lock)."""
    specs = benchmarks() if of is None else [*built_ins(), *benchmarks_named(of)]
    return {
        table.name: table
        for spec in specs
        for table in spec.detail_tables
        if table.name not in MEMSCOPE_TABLES and not table.name.startswith("memscope_")
    }


def ensure_detail_table(con: duckdb.DuckDBPyConnection, table: DetailTable) -> None:
    """Create ``table`` in the store unless it is there (``run_id`` first, then its columns)."""
    columns = ", ".join(f"{name} {kind}" for name, kind in table.columns)
    con.execute(f"CREATE TABLE IF NOT EXISTS {table.name} (run_id VARCHAR NOT NULL, {columns})")


def replace_run_details(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    tables: dict[str, pa.Table],
    *,
    replacing: bool = True,
    benchmark: str | None = None,
) -> None:
    """Delete ``run_id``'s rows from every detail table (memscope's own benchmarks' and
    those of ``benchmark``, the run's; None: every installed benchmark's), then insert
    ``tables`` (``replacing=False``: a new run id, which owns no rows yet: nothing to delete).

    Each table carries the columns of its store table without ``run_id``; a missing column
    is stored as NULL.

    Raises:
        StoreError: for a table name that no installed benchmark declares (a bug of the
            benchmark's reader).
    """
    known = detail_tables(None if benchmark is None else [benchmark])
    unknown = sorted(set(tables) - set(known))
    if unknown:
        raise StoreError(
            f"unknown detail table(s) {', '.join(unknown)}",
            fix="The benchmark's reader hands over a table its spec does not declare "
            "(Benchmark.detail_tables); please report it.",
        )
    if not replacing and not any(data is not None and data.num_rows for data in tables.values()):
        return  # a new run without detail rows: nothing to delete or insert (no catalog query)
    existing = {
        row[0]
        for row in rows(
            con,
            "SELECT table_name FROM information_schema.tables"
            " WHERE table_catalog = current_database() AND table_schema = 'main'",
        )
    }
    for name in known:
        if name in existing and replacing:
            con.execute(f"DELETE FROM {name} WHERE run_id = ?", [run_id])
    for name, data in tables.items():
        if data is None or not data.num_rows:
            continue
        if name not in existing:
            ensure_detail_table(con, known[name])
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
