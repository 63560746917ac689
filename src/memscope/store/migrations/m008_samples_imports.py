"""Sampled triage queues and imported label events.

``sample_plans`` keeps one stratified sample plan per run (seed, strata, size,
allocation) and ``sample_items`` its queue: every failing question once, in order, with
its stratum and inclusion probability, so the queue resumes in the same order.
``label_imports`` says which label events came from which export file, under which
stable event id (``memscope import-labels`` skips an event already present).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

VERSION = 8

STATEMENTS = [
    """
    CREATE TABLE sample_plans (
        run_id VARCHAR PRIMARY KEY,
        run_hash VARCHAR,
        seed BIGINT NOT NULL,
        strata VARCHAR NOT NULL,
        sample_size INTEGER NOT NULL,
        allocation VARCHAR NOT NULL,
        per_stratum JSON NOT NULL,
        created_at TIMESTAMP NOT NULL
    )
    """,
    """
    CREATE TABLE sample_items (
        run_id VARCHAR NOT NULL,
        position INTEGER NOT NULL,
        qid VARCHAR NOT NULL,
        stratum VARCHAR NOT NULL,
        inclusion_probability DOUBLE NOT NULL,
        planned BOOLEAN NOT NULL,
        PRIMARY KEY (run_id, position)
    )
    """,
    """
    CREATE TABLE label_imports (
        event_id BIGINT NOT NULL,
        event_uid VARCHAR NOT NULL,
        file VARCHAR NOT NULL,
        original_event_id BIGINT,
        imported_at TIMESTAMP NOT NULL
    )
    """,
]


def apply(con: duckdb.DuckDBPyConnection) -> None:
    """Create the sample plan and label import tables."""
    for statement in STATEMENTS:
        con.execute(statement)
