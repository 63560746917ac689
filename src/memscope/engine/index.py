"""Nearest-neighbour search over L2-normalised vectors, with the method chosen by bank size.

Inner product on unit vectors is the cosine. :class:`VectorIndex` keeps the caller's
integer ids and picks how to search from the number of vectors (``benchmarks/README.md``
has the measurements behind the thresholds):

- ``exact`` below :data:`APPROXIMATE_FROM` vectors: a numpy matrix product and a partial
  sort, in blocks so memory stays bounded. It is faster here than FAISS's exact
  ``IndexFlatIP`` at every bank size measured (FAISS wins only below ~1k vectors, by under
  0.1 ms): FAISS's bundled OpenBLAS runs a generic kernel on these CPUs (threadpoolctl
  reports ``Prescott``; numpy's recognises ``SkylakeX``), and its OpenMP threads spin-wait,
  which costs most on a busy machine. ``faiss-flat`` stays available by name;
- ``ivf`` from :data:`APPROXIMATE_FROM` on (or when asked for): FAISS ``IndexIVFFlat``,
  approximate. At build its ``nprobe`` is raised until recall@10 against the exact search,
  on queries drawn from the bank, reaches :data:`TARGET_RECALL`; the recall it reached is
  kept on the index.

It is a derived artifact, built from vectors the store keeps, so nothing is saved.
:func:`brute_force_search` is the plain numpy reference the tests and benchmark compare with.
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Literal, Protocol

import numpy as np

from memscope.engine.threads import configure_blas, configure_faiss
from memscope.errors import EngineError

SearchMethod = Literal["auto", "exact", "faiss-flat", "ivf"]
APPROXIMATE_FROM = 1_000_000
"""Banks of at least this many vectors get the approximate IVF index under ``auto``."""
TARGET_RECALL = 0.95
"""recall@10 against the exact search an IVF index must reach on its build-time check."""
RECALL_QUERIES = 64
BANK_BLOCK = 65_536
"""Bank rows scored at once by the numpy search (with QUERY_BLOCK: ~64 MB of scores)."""
QUERY_BLOCK = 256


def choose_method(size: int, method: SearchMethod = "auto") -> str:
    """The search method for a bank of ``size`` vectors (``auto`` decides by size)."""
    if method != "auto":
        return method
    return "exact" if size < APPROXIMATE_FROM else "ivf"


class FaissIndex(Protocol):
    """What memscope calls on a faiss index (faiss ships no type information)."""

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]: ...


class _IVFIndex(FaissIndex, Protocol):
    """A faiss IVF index while it is built and its nprobe tuned."""

    nprobe: int

    def train(self, vectors: np.ndarray) -> None: ...

    def add(self, vectors: np.ndarray) -> None: ...


class VectorIndex:
    """Top-k inner-product search over a fixed set of unit vectors.

    Args:
        vectors: ``(n, d)`` float32, already L2-normalised.
        ids: ``(n,)`` int64 ids to return (default ``0..n-1``).
        method: ``auto`` (by size, see the module docstring), ``exact``, ``faiss-flat`` or ``ivf``.
    """

    def __init__(
        self, vectors: np.ndarray, ids: np.ndarray | None = None, method: SearchMethod = "auto"
    ) -> None:
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2:
            raise ValueError(f"vectors must be 2-D, got shape {vectors.shape}")
        if method not in ("auto", "exact", "faiss-flat", "ivf"):
            raise ValueError(f"unknown search method {method!r}")
        self.dim = vectors.shape[1]
        self.ids = (
            np.arange(len(vectors), dtype=np.int64)
            if ids is None
            else np.ascontiguousarray(ids, dtype=np.int64)
        )
        self.method = choose_method(len(vectors), method)
        self.recall_at_10: float | None = None
        """For ``ivf``: recall@10 against the exact search measured at build (else None)."""
        self._vectors = vectors
        self._faiss: FaissIndex | None = None
        configure_blas()
        if self.method == "faiss-flat":
            faiss = _faiss()
            flat = faiss.IndexIDMap(faiss.IndexFlatIP(self.dim))
            if len(vectors):
                flat.add_with_ids(vectors, self.ids)
            self._faiss = flat
        elif self.method == "ivf":
            self._faiss = self._build_ivf(vectors)

    def __len__(self) -> int:
        return len(self._vectors)

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
        if self._faiss is None:
            return blocked_search(self._vectors, queries, k, self.ids)
        configure_faiss()
        scores, found = self._faiss.search(queries, k)
        if self.method == "ivf":  # IndexIVFFlat holds row numbers; map them to the caller's ids
            found = np.where(found >= 0, self.ids[np.maximum(found, 0)], -1)
        scores[found < 0] = -np.inf
        return scores, found

    def _build_ivf(self, vectors: np.ndarray) -> FaissIndex:
        """An IVF index whose nprobe reaches :data:`TARGET_RECALL` on a recall@10 check."""
        faiss = _faiss()
        configure_faiss()
        if len(vectors) < 40:
            raise ValueError("an IVF index needs at least 40 vectors; use method='exact'")
        lists = max(1, min(int(4 * math.sqrt(len(vectors))), len(vectors) // 39))
        quantizer = faiss.IndexFlatIP(self.dim)
        index: _IVFIndex = faiss.IndexIVFFlat(
            quantizer, self.dim, lists, faiss.METRIC_INNER_PRODUCT
        )
        rng = np.random.default_rng(0)
        sample = vectors[rng.choice(len(vectors), min(len(vectors), 40 * lists), replace=False)]
        index.train(sample)
        index.add(vectors)
        self._quantizer = quantizer  # the index points into it: keep it alive as long
        queries = vectors[
            rng.choice(len(vectors), min(len(vectors), RECALL_QUERIES), replace=False)
        ]
        queries = queries + 0.1 * rng.standard_normal(queries.shape, dtype=np.float32)
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        k = min(10, len(vectors))
        truth = blocked_search(vectors, queries, k, None)[1]
        probes = 1
        while True:
            index.nprobe = probes
            found = index.search(queries, k)[1]
            self.recall_at_10 = recall_at_k(found, truth)
            if self.recall_at_10 >= TARGET_RECALL or probes >= lists:
                return index
            probes = min(lists, probes * 2)


def recall_at_k(found: np.ndarray, truth: np.ndarray) -> float:
    """Share of the true top-k ids (per query) that ``found`` contains."""
    hits = sum(len(set(row) & set(true_row)) for row, true_row in zip(found, truth, strict=True))
    return hits / max(1, truth.size)


def blocked_search(
    vectors: np.ndarray, queries: np.ndarray, k: int, ids: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-k in numpy over blocks of the bank, so the score matrix stays small."""
    if len(vectors) <= BANK_BLOCK and len(queries) <= QUERY_BLOCK:
        return brute_force_search(vectors, queries, k, ids)
    ids = (
        np.arange(len(vectors), dtype=np.int64) if ids is None else np.asarray(ids, dtype=np.int64)
    )
    found_scores = np.full((len(queries), k), -np.inf, dtype=np.float32)
    found_ids = np.full((len(queries), k), -1, dtype=np.int64)
    for q0 in range(0, len(queries), QUERY_BLOCK):
        block_queries = queries[q0 : q0 + QUERY_BLOCK]
        best_scores = found_scores[q0 : q0 + QUERY_BLOCK]
        best_ids = found_ids[q0 : q0 + QUERY_BLOCK]
        for b0 in range(0, len(vectors), BANK_BLOCK):
            scores, rows = brute_force_search(vectors[b0 : b0 + BANK_BLOCK], block_queries, k)
            merged_scores = np.concatenate([best_scores, scores], axis=1)
            merged_ids = np.concatenate(
                [best_ids, np.where(rows >= 0, ids[b0 + np.maximum(rows, 0)], -1)], axis=1
            )
            order = np.argsort(-merged_scores, axis=1, kind="stable")[:, :k]
            best_scores[:] = np.take_along_axis(merged_scores, order, axis=1)
            best_ids[:] = np.take_along_axis(merged_ids, order, axis=1)
    return found_scores, found_ids


def brute_force_search(
    vectors: np.ndarray, queries: np.ndarray, k: int, ids: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Exact search in plain numpy: one matrix product and a partial sort (the reference)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    queries = np.atleast_2d(np.asarray(queries, dtype=np.float32))
    ids = (
        np.arange(len(vectors), dtype=np.int64) if ids is None else np.asarray(ids, dtype=np.int64)
    )
    take = min(k, len(vectors))
    scores = queries @ vectors.T
    if take < len(vectors):
        # the k largest without negating a copy of the whole score matrix
        top = np.argpartition(scores, len(vectors) - take, axis=1)[:, len(vectors) - take :]
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


def _faiss() -> ModuleType:
    try:
        import faiss
    except ImportError as exc:
        raise EngineError(
            "faiss is not installed", fix="Install faiss-cpu (it is a memscope dependency)."
        ) from exc
    configure_faiss()
    return faiss
