"""Memory-engine tables: the embedding cache, what each dataset embeds, and recomputed scores.

- ``embeddings``: one vector per (model id, content hash), so nothing is embedded twice;
  the model id carries a fingerprint of the weights.
- ``embedding_items``: per dataset, which round text, caption, image or question has
  which content hash (rebuilt by ``memscope index``).
- ``recompute_runs`` / ``recomputed_scores``: the engine's recomputation of a logged run's
  candidate pool, with the values ``retrievals`` held before it was filled, so a
  recomputation can be redone or undone exactly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

VERSION = 3

STATEMENTS = [
    """
    CREATE TABLE embeddings (
        model_id VARCHAR NOT NULL,
        content_hash VARCHAR NOT NULL,
        kind VARCHAR NOT NULL,
        dim INTEGER NOT NULL,
        vector FLOAT[] NOT NULL,
        created_at TIMESTAMP NOT NULL,
        PRIMARY KEY (model_id, content_hash)
    )
    """,
    """
    CREATE TABLE embedding_items (
        dataset_id VARCHAR NOT NULL,
        kind VARCHAR NOT NULL,
        item_id VARCHAR NOT NULL,
        round_id VARCHAR,
        ordinal INTEGER NOT NULL,
        content_hash VARCHAR NOT NULL,
        source VARCHAR,
        PRIMARY KEY (dataset_id, kind, item_id)
    )
    """,
    """
    CREATE TABLE recompute_runs (
        run_id VARCHAR PRIMARY KEY,
        run_hash VARCHAR NOT NULL,
        method VARCHAR NOT NULL,
        text_model VARCHAR,
        image_model VARCHAR,
        pool_size INTEGER NOT NULL,
        n_questions INTEGER NOT NULL,
        n_filled INTEGER NOT NULL,
        n_extended INTEGER NOT NULL,
        max_deviation DOUBLE,
        notes JSON,
        computed_at TIMESTAMP NOT NULL
    )
    """,
    """
    CREATE TABLE recomputed_scores (
        run_id VARCHAR NOT NULL,
        qid VARCHAR NOT NULL,
        round_id VARCHAR NOT NULL,
        recomputed_rank INTEGER NOT NULL,
        score DOUBLE,
        text_score DOUBLE,
        image_score DOUBLE,
        logged_rank INTEGER,
        logged_score DOUBLE,
        logged_text_score DOUBLE,
        logged_image_score DOUBLE,
        logged_origin VARCHAR,
        PRIMARY KEY (run_id, qid, round_id)
    )
    """,
]


def apply(con: duckdb.DuckDBPyConnection) -> None:
    """Create the engine tables."""
    for statement in STATEMENTS:
        con.execute(statement)
