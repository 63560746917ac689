"""Per-run detail tables of DMV-Bench and CUE-Mem runs that the core tables cannot hold.

- ``dmv_recall_steps``: one row per recall step of a DMV-Bench probe, from the run's log
  (docs/formats.md §2.3): the page observed, the bank entries retrieved in rank order,
  the action taken and the VLM's text.
- ``cue_retrieved_items``: one row per retrieved item of a CUE-Mem RQ3 run
  (``retrieved_items``, docs/formats.md §3.4): the turn it belongs to, its modality,
  media path, raw score, its rank for the query that found it and that query's source.

Both reference a run by ``run_id`` and a question by ``qid``; ingest replaces a run's rows
with the run (``store/run_details.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

VERSION = 5

STATEMENTS = [
    """
    CREATE TABLE dmv_recall_steps (
        run_id VARCHAR NOT NULL,
        qid VARCHAR NOT NULL,
        step INTEGER NOT NULL,
        observed_url VARCHAR,
        retrieved VARCHAR[],
        action VARCHAR,
        action_url VARCHAR,
        vlm_text VARCHAR
    )
    """,
    """
    CREATE TABLE cue_retrieved_items (
        run_id VARCHAR NOT NULL,
        qid VARCHAR NOT NULL,
        turn_id VARCHAR NOT NULL,
        turn_rank INTEGER,
        item_id VARCHAR,
        modality VARCHAR,
        path VARCHAR,
        fallback BOOLEAN,
        score DOUBLE,
        item_rank INTEGER,
        query_source VARCHAR,
        query_letter VARCHAR,
        composition_method VARCHAR
    )
    """,
]


def apply(con: duckdb.DuckDBPyConnection) -> None:
    """Create the DMV-Bench and CUE-Mem detail tables."""
    for statement in STATEMENTS:
        con.execute(statement)
