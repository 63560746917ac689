"""The core schema: datasets, sessions, rounds, questions, runs, predictions, retrievals."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

VERSION = 1

STATEMENTS = [
    """
    CREATE TABLE datasets (
        dataset_id VARCHAR PRIMARY KEY,
        benchmark VARCHAR NOT NULL,
        task VARCHAR,
        source_path VARCHAR,
        content_hash VARCHAR NOT NULL,
        media_root VARCHAR,
        n_sessions INTEGER,
        n_rounds INTEGER,
        n_questions INTEGER,
        ingested_at TIMESTAMP NOT NULL
    )
    """,
    """
    CREATE TABLE sessions (
        dataset_id VARCHAR NOT NULL,
        session_id VARCHAR NOT NULL,
        session_order INTEGER NOT NULL,
        date VARCHAR,
        PRIMARY KEY (dataset_id, session_id)
    )
    """,
    """
    CREATE TABLE rounds (
        dataset_id VARCHAR NOT NULL,
        round_id VARCHAR NOT NULL,
        session_id VARCHAR NOT NULL,
        position INTEGER NOT NULL,
        round_order INTEGER NOT NULL,
        user_text VARCHAR,
        assistant_text VARCHAR,
        image_refs VARCHAR[],
        image_files VARCHAR[],
        image_captions VARCHAR[],
        image_ids VARCHAR[],
        audio_refs VARCHAR[],
        audio_files VARCHAR[],
        audio_captions VARCHAR[],
        audio_ids VARCHAR[],
        background_audio VARCHAR,
        extra JSON,
        PRIMARY KEY (dataset_id, round_id)
    )
    """,
    """
    CREATE TABLE questions (
        dataset_id VARCHAR NOT NULL,
        qid VARCHAR NOT NULL,
        idx INTEGER NOT NULL,
        question_key VARCHAR NOT NULL,
        task VARCHAR,
        question VARCHAR,
        gold VARCHAR,
        mode VARCHAR,
        x VARCHAR,
        y VARCHAR,
        x_labels VARCHAR[],
        y_labels VARCHAR[],
        options JSON,
        clue_ids VARCHAR[],
        clue_rounds VARCHAR[],
        source_sessions VARCHAR[],
        question_images VARCHAR[],
        extra JSON,
        PRIMARY KEY (dataset_id, qid)
    )
    """,
    """
    CREATE TABLE runs (
        run_id VARCHAR PRIMARY KEY,
        benchmark VARCHAR NOT NULL,
        dataset_id VARCHAR NOT NULL,
        path VARCHAR NOT NULL,
        content_hash VARCHAR NOT NULL,
        file_stats JSON,
        task VARCHAR,
        model VARCHAR,
        method VARCHAR,
        base_method VARCHAR,
        modality VARCHAR,
        mode VARCHAR,
        top_k INTEGER,
        retrieval_kind VARCHAR,
        n_questions INTEGER,
        config JSON,
        metrics JSON,
        notices JSON,
        ingested_at TIMESTAMP NOT NULL,
        opened_at TIMESTAMP
    )
    """,
    """
    CREATE TABLE predictions (
        run_id VARCHAR NOT NULL,
        qid VARCHAR NOT NULL,
        line_no INTEGER,
        mode VARCHAR,
        question VARCHAR,
        gold VARCHAR,
        pred VARCHAR,
        choice VARCHAR,
        em DOUBLE,
        exact_match BOOLEAN,
        judge DOUBLE,
        judge_reasoning VARCHAR,
        f1 DOUBLE,
        bleu_1 DOUBLE,
        rotations JSON,
        position_bias JSON,
        latency_ms BIGINT,
        total_tokens BIGINT,
        context_rounds VARCHAR[],
        extra JSON
    )
    """,
    """
    CREATE TABLE retrievals (
        run_id VARCHAR NOT NULL,
        qid VARCHAR NOT NULL,
        rank INTEGER,
        round_id VARCHAR NOT NULL,
        score DOUBLE,
        text_score DOUBLE,
        image_score DOUBLE,
        origin VARCHAR NOT NULL
    )
    """,
]


def apply(con: duckdb.DuckDBPyConnection) -> None:
    """Create the core tables."""
    for statement in STATEMENTS:
        con.execute(statement)
