"""Predictions and suggestions carry their question's ``idx`` (``question_idx``).

The queue's first screenful and each page are a few questions found by an idx range or
list. Without the idx on the run's own rows, finding their predictions and suggestions
meant matching qids over the whole run (a million rows for a million questions); with it,
DuckDB's zone maps skip every row group outside the range. Ingest and the suggestion
writer fill it from ``questions``; this migration backfills the rows already stored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

VERSION = 11

TABLES = ("predictions", "suggestions")


def apply(con: duckdb.DuckDBPyConnection) -> None:
    """Add ``question_idx`` to predictions and suggestions, and fill it."""
    for table in TABLES:
        con.execute(f"ALTER TABLE {table} ADD COLUMN question_idx INTEGER")
        con.execute(
            f"UPDATE {table} t SET question_idx = q.idx FROM runs r, questions q "
            "WHERE r.run_id = t.run_id AND q.dataset_id = r.dataset_id AND q.qid = t.qid"
        )
