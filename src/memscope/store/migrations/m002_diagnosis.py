"""Diagnosis tables: append-only label events, rule-based suggestions and stored reruns.

Labels reference a run by ``run_id`` and a question by ``qid`` (plus its question key),
never by a foreign key, so they survive the run being re-ingested or replaced.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

VERSION = 2

STATEMENTS = [
    "CREATE SEQUENCE label_event_ids START 1",
    """
    CREATE TABLE label_events (
        event_id BIGINT PRIMARY KEY,
        run_id VARCHAR NOT NULL,
        run_hash VARCHAR,
        qid VARCHAR NOT NULL,
        question_key VARCHAR,
        action VARCHAR NOT NULL,
        codes VARCHAR[] NOT NULL,
        primary_code VARCHAR,
        note VARCHAR,
        annotator VARCHAR NOT NULL,
        source VARCHAR NOT NULL,
        taxonomy_version VARCHAR NOT NULL,
        params JSON,
        created_at TIMESTAMP NOT NULL,
        supersedes BIGINT
    )
    """,
    """
    CREATE TABLE suggestions (
        run_id VARCHAR NOT NULL,
        ordinal INTEGER NOT NULL,
        run_hash VARCHAR,
        qid VARCHAR NOT NULL,
        question_key VARCHAR,
        rank INTEGER NOT NULL,
        code VARCHAR NOT NULL,
        stage VARCHAR,
        rule VARCHAR NOT NULL,
        explanation VARCHAR NOT NULL,
        numbers JSON,
        twin_run_id VARCHAR,
        taxonomy_version VARCHAR NOT NULL,
        created_at TIMESTAMP NOT NULL
    )
    """,
    """
    CREATE TABLE suggestion_runs (
        run_id VARCHAR PRIMARY KEY,
        run_hash VARCHAR,
        taxonomy_version VARCHAR NOT NULL,
        twin_run_ids VARCHAR[],
        n_failed INTEGER NOT NULL,
        n_suggested INTEGER NOT NULL,
        created_at TIMESTAMP NOT NULL
    )
    """,
    "CREATE SEQUENCE rerun_ids START 1",
    """
    CREATE TABLE reruns (
        rerun_id BIGINT PRIMARY KEY,
        run_id VARCHAR NOT NULL,
        kind VARCHAR NOT NULL,
        created_at TIMESTAMP NOT NULL,
        params JSON NOT NULL,
        results JSON NOT NULL
    )
    """,
]


def apply(con: duckdb.DuckDBPyConnection) -> None:
    """Create the label, suggestion and rerun tables."""
    for statement in STATEMENTS:
        con.execute(statement)
