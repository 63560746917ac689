"""People's verdicts on answers (is the grader right?) and the sample drawn for them.

``verdict_events`` is append-only like ``label_events``: a person's verdict on one
question's answer (``correct``, ``wrong``, ``unsure``; a ``clear`` removes it, an ``undo``
reverts the latest change), with who, when and the event it replaced. A verdict is not a
failure label: a question graded correct can get one, and it never changes the codes.
``verdict_sample_items`` keeps the questions ``memscope sample --for verdicts`` drew per
run, with their stratum (axis level x grader outcome) and inclusion probability, so the
audit can weight the verdicts by the design.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

VERSION = 10

STATEMENTS = [
    "CREATE SEQUENCE verdict_event_ids START 1",
    """
    CREATE TABLE verdict_events (
        event_id BIGINT PRIMARY KEY,
        run_id VARCHAR NOT NULL,
        run_hash VARCHAR,
        qid VARCHAR NOT NULL,
        question_key VARCHAR,
        action VARCHAR NOT NULL,
        verdict VARCHAR,
        note VARCHAR,
        annotator VARCHAR NOT NULL,
        source VARCHAR NOT NULL,
        created_at TIMESTAMP NOT NULL,
        supersedes BIGINT
    )
    """,
    """
    CREATE TABLE verdict_sample_items (
        run_id VARCHAR NOT NULL,
        position INTEGER NOT NULL,
        qid VARCHAR NOT NULL,
        stratum VARCHAR NOT NULL,
        inclusion_probability DOUBLE NOT NULL,
        metric VARCHAR NOT NULL,
        seed BIGINT NOT NULL,
        created_at TIMESTAMP NOT NULL,
        PRIMARY KEY (run_id, position)
    )
    """,
]


def apply(con: duckdb.DuckDBPyConnection) -> None:
    """Create the verdict event and verdict sample tables."""
    for statement in STATEMENTS:
        con.execute(statement)
