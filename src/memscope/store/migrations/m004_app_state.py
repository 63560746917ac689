"""The app's remembered state: where each annotator stopped in each run's triage queue."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

VERSION = 4

STATEMENTS = [
    """
    CREATE TABLE app_state (
        run_id VARCHAR NOT NULL,
        annotator VARCHAR NOT NULL,
        qid VARCHAR,
        queue JSON,
        view JSON,
        updated_at TIMESTAMP NOT NULL,
        PRIMARY KEY (run_id, annotator)
    )
    """,
]


def apply(con: duckdb.DuckDBPyConnection) -> None:
    """Create the app state table."""
    for statement in STATEMENTS:
        con.execute(statement)
