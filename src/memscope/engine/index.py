"""Exact nearest-neighbour search over L2-normalised vectors: FAISS and a numpy reference.

:class:`VectorIndex` is a FAISS ``IndexFlatIP`` inside an ``IndexIDMap``: inner product
on unit vectors is the cosine, the search is exact, and results come back as the caller's
integer ids. It is a derived artifact, built from vectors the store keeps, so nothing
needs to be saved; building one is a copy of the matrix. :func:`brute_force_search` is
the same search in numpy, the baseline the tests and the benchmark compare against.
"""

from __future__ import annotations

import numpy as np

from memscope.errors import EngineError


class VectorIndex:
    """Exact inner-product search (FAISS) over a fixed set of unit vectors.

    Args:
        vectors: ``(n, d)`` float32, already L2-normalised.
        ids: ``(n,)`` int64 ids to return (default ``0..n-1``).
    """

    def __init__(self, vectors: np.ndarray, ids: np.ndarray | None = None) -> None:
        try:
            import faiss
        except ImportError as exc:
            raise EngineError(
                "faiss is not installed", fix="Install faiss-cpu (it is a memscope dependency)."
            ) from exc
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2:
            raise ValueError(f"vectors must be 2-D, got shape {vectors.shape}")
        self.dim = vectors.shape[1]
        ids = (
            np.arange(len(vectors), dtype=np.int64)
            if ids is None
            else np.ascontiguousarray(ids, dtype=np.int64)
        )
        self._index = faiss.IndexIDMap(faiss.IndexFlatIP(self.dim))
        if len(vectors):
            self._index.add_with_ids(vectors, ids)

    def __len__(self) -> int:
        return int(self._index.ntotal)

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` best rows per query.

        Returns:
            ``(q, k)`` float32 inner products (descending) and ``(q, k)`` int64 ids; when
            the index holds fewer than ``k`` vectors the tail is ``-inf`` / ``-1``.
        """
        queries = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
        if queries.shape[1] != self.dim:
            raise ValueError(f"queries have dimension {queries.shape[1]}, the index {self.dim}")
        if k <= 0 or len(queries) == 0:
            return np.zeros((len(queries), 0), np.float32), np.zeros((len(queries), 0), np.int64)
        scores, ids = self._index.search(queries, k)
        scores[ids < 0] = -np.inf
        return scores, ids


def brute_force_search(
    vectors: np.ndarray, queries: np.ndarray, k: int, ids: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The same search as :class:`VectorIndex` in numpy: a matrix product and a partial sort."""
    vectors = np.asarray(vectors, dtype=np.float32)
    queries = np.atleast_2d(np.asarray(queries, dtype=np.float32))
    ids = (
        np.arange(len(vectors), dtype=np.int64) if ids is None else np.asarray(ids, dtype=np.int64)
    )
    take = min(k, len(vectors))
    scores = queries @ vectors.T
    if take < len(vectors):
        top = np.argpartition(-scores, take - 1, axis=1)[:, :take]
    else:
        top = np.tile(np.arange(len(vectors)), (len(queries), 1))
    top_scores = np.take_along_axis(scores, top, axis=1)
    order = np.argsort(-top_scores, axis=1, kind="stable")
    top = np.take_along_axis(top, order, axis=1)
    found_scores = np.full((len(queries), k), -np.inf, dtype=np.float32)
    found_ids = np.full((len(queries), k), -1, dtype=np.int64)
    found_scores[:, :take] = np.take_along_axis(top_scores, order, axis=1)
    found_ids[:, :take] = ids[top]
    return found_scores, found_ids
