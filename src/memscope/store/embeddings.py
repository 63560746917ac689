"""The embedding cache and the dataset reads of the memory engine.

Vectors are kept once per (model id, content hash) in ``embeddings`` (``FLOAT[]``);
``embedding_items`` says which round text, caption, image or question of a dataset has
which content hash. Everything moves in and out as Arrow tables: no per-row statements.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from memscope.store.connection import rollback_quietly
from memscope.store.sql import one, rows, scalar

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

    from memscope.records import DatasetRecord, DatasetSource, Notice


@dataclass
class ItemVectors:
    """A dataset's items of one kind that have a vector for one model, in item order."""

    item_ids: list[str]
    round_ids: list[str | None]
    sources: list[str | None]
    vectors: np.ndarray
    """``(n, dim)`` float32."""


def _vector_column(vectors: np.ndarray) -> pa.Array:
    import pyarrow as pa

    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    count, dim = vectors.shape
    offsets = pa.array(np.arange(0, (count + 1) * dim, dim, dtype=np.int64), type=pa.int64())
    return pa.LargeListArray.from_arrays(offsets, pa.array(vectors.reshape(-1), type=pa.float32()))


def _matrix(column: Any, dim: int | None = None) -> np.ndarray:
    import pyarrow.compute as pc

    lists = column.combine_chunks() if hasattr(column, "combine_chunks") else column
    if len(lists) == 0:
        return np.zeros((0, dim or 0), dtype=np.float32)
    flat = pc.list_flatten(lists).to_numpy(zero_copy_only=False).astype(np.float32, copy=False)
    return flat.reshape(len(lists), -1)


def store_dataset(
    con: duckdb.DuckDBPyConnection, dataset: DatasetRecord | DatasetSource
) -> list[Notice]:
    """Store a dataset read (or described, for a bulk loader) from a dataset file unless the
    store has it; return its notices.

    It is ingest's dataset writer (``store.ingest.store_dataset``), so a dataset indexed
    before any of its runs is ingested and the one those runs bring are the same rows.
    """
    from memscope.store.ingest import store_dataset as store_with_ingest_writer

    return store_with_ingest_writer(con, dataset)


def datasets_with_content(con: duckdb.DuckDBPyConnection, content_hash: str) -> list[str]:
    """Datasets stored from a file with this content (the same file read under another task name)."""
    return [
        row[0]
        for row in rows(
            con,
            "SELECT dataset_id FROM datasets WHERE content_hash = ? ORDER BY ingested_at",
            [content_hash],
        )
    ]


def dataset_ids(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every dataset id in the store, sorted."""
    return [row[0] for row in rows(con, "SELECT dataset_id FROM datasets ORDER BY dataset_id")]


def dataset_info(con: duckdb.DuckDBPyConnection, dataset_id: str) -> dict[str, Any] | None:
    """A dataset's description (benchmark, task, source path, media root, counts), or None."""
    row = one(
        con,
        "SELECT dataset_id, benchmark, task, source_path, content_hash, media_root, n_sessions, n_rounds, n_questions "
        "FROM datasets WHERE dataset_id = ?",
        [dataset_id],
    )
    if row is None:
        return None
    keys = (
        "dataset_id",
        "benchmark",
        "task",
        "source_path",
        "content_hash",
        "media_root",
        "n_sessions",
        "n_rounds",
        "n_questions",
    )
    return dict(zip(keys, row, strict=True))


def run_dataset_id(con: duckdb.DuckDBPyConnection, run_id: str) -> str | None:
    """The dataset a run was ingested with."""
    return scalar(con, "SELECT dataset_id FROM runs WHERE run_id = ?", [run_id])


def dataset_questions(con: duckdb.DuckDBPyConnection, dataset_id: str) -> pa.Table:
    """Every question of a dataset by idx, with what the engine needs to ask and score it."""
    return con.sql(
        "SELECT qid, idx, question, gold, mode, x_labels, y_labels, options, clue_ids, source_sessions, question_images, extra "
        "FROM questions WHERE dataset_id = ? ORDER BY idx",
        params=[dataset_id],
    ).to_arrow_table()


def replace_items(
    con: duckdb.DuckDBPyConnection, dataset_id: str, kinds: list[str], items: pa.Table
) -> None:
    """Replace a dataset's items of ``kinds`` with ``items`` (kind, item_id, round_id, ordinal, content_hash, source)."""
    con.begin()
    try:
        con.execute(
            "DELETE FROM embedding_items WHERE dataset_id = ? AND list_contains(?, kind)",
            [dataset_id, kinds],
        )
        con.register("memscope_items", items)
        try:
            con.execute(
                "INSERT INTO embedding_items SELECT ?, kind, item_id, round_id, ordinal, content_hash, source "
                "FROM memscope_items",
                [dataset_id],
            )
        finally:
            con.unregister("memscope_items")
        con.commit()
    except BaseException:
        rollback_quietly(con)
        raise


def stored_items(
    con: duckdb.DuckDBPyConnection, dataset_id: str, kinds: list[str]
) -> set[tuple[str, str, str, str | None]]:
    """A dataset's items of ``kinds`` as ``(kind, item_id, content_hash, source)``."""
    found = rows(
        con,
        "SELECT kind, item_id, content_hash, source FROM embedding_items WHERE dataset_id = ? AND list_contains(?, kind)",
        [dataset_id, kinds],
    )
    return {(row[0], row[1], row[2], row[3]) for row in found}


def missing_hashes(con: duckdb.DuckDBPyConnection, model_id: str, hashes: list[str]) -> set[str]:
    """Which of ``hashes`` have no vector for ``model_id`` yet."""
    import pyarrow as pa

    if not hashes:
        return set()
    con.register(
        "memscope_wanted", pa.table({"content_hash": pa.array(sorted(set(hashes)), pa.string())})
    )
    try:
        found = rows(
            con,
            "SELECT w.content_hash FROM memscope_wanted w ANTI JOIN "
            "(SELECT content_hash FROM embeddings WHERE model_id = ?) e USING (content_hash)",
            [model_id],
        )
    finally:
        con.unregister("memscope_wanted")
    return {row[0] for row in found}


def insert_vectors(
    con: duckdb.DuckDBPyConnection, model_id: str, kind: str, hashes: list[str], vectors: np.ndarray
) -> None:
    """Add vectors to the cache (a hash already cached for the model is left as it is)."""
    import pyarrow as pa

    if not hashes:
        return
    table = pa.table(
        {"content_hash": pa.array(hashes, pa.string()), "vector": _vector_column(vectors)}
    )
    con.register("memscope_vectors", table)
    try:
        con.execute(
            "INSERT OR IGNORE INTO embeddings "
            "SELECT DISTINCT ON (content_hash) ?, content_hash, ?, ?, vector::FLOAT[], now()::TIMESTAMP FROM memscope_vectors",
            [model_id, kind, int(vectors.shape[1])],
        )
    finally:
        con.unregister("memscope_vectors")


def item_vectors(
    con: duckdb.DuckDBPyConnection, dataset_id: str, kind: str, model_id: str
) -> ItemVectors:
    """A dataset's items of ``kind`` that have a ``model_id`` vector, in item order."""
    table = con.sql(
        "SELECT i.item_id, i.round_id, i.source, e.vector FROM embedding_items i "
        "JOIN embeddings e ON e.content_hash = i.content_hash AND e.model_id = ? "
        "WHERE i.dataset_id = ? AND i.kind = ? ORDER BY i.ordinal, i.item_id",
        params=[model_id, dataset_id, kind],
    ).to_arrow_table()
    return ItemVectors(
        table.column("item_id").to_pylist(),
        table.column("round_id").to_pylist(),
        table.column("source").to_pylist(),
        _matrix(table.column("vector")),
    )


def image_models(con: duckdb.DuckDBPyConnection, dataset_id: str) -> list[tuple[str, int]]:
    """Image models with vectors for a dataset's images: ``(model_id, images)``, most images first."""
    found = rows(
        con,
        "SELECT e.model_id, count(*) AS n, max(e.created_at) AS latest FROM embedding_items i "
        "JOIN embeddings e USING (content_hash) WHERE i.dataset_id = ? AND i.kind = 'image' "
        "GROUP BY e.model_id ORDER BY n DESC, latest DESC, e.model_id",
        [dataset_id],
    )
    return [(row[0], int(row[1])) for row in found]


def item_fingerprint(
    con: duckdb.DuckDBPyConnection, dataset_id: str, kind: str, model_id: str
) -> tuple[int, str | None]:
    """A cheap identity of :func:`item_vectors`' result: count and a hash of items and contents."""
    row = one(
        con,
        "SELECT count(*), md5(string_agg(i.item_id || ':' || i.content_hash, ',' ORDER BY i.ordinal, i.item_id)) "
        "FROM embedding_items i JOIN embeddings e ON e.content_hash = i.content_hash AND e.model_id = ? "
        "WHERE i.dataset_id = ? AND i.kind = ?",
        [model_id, dataset_id, kind],
    )
    return (int(row[0]), row[1]) if row else (0, None)


def run_qids(con: duckdb.DuckDBPyConnection, run_id: str) -> list[str]:
    """The questions a run answered, by line order."""
    return [
        row[0]
        for row in rows(
            con, "SELECT qid FROM predictions WHERE run_id = ? ORDER BY line_no, qid", [run_id]
        )
    ]
