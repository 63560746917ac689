"""Searching a dataset's memory from the app or the CLI: by words, or by look.

:func:`search_text` finds rounds for a free-text query ("brass compass") over the round
texts with their captions (MiniLM), or over the images (the image model's text tower);
:func:`similar_images` finds the rounds whose images look most like a round's images,
the look-alike distractors behind X3 failures, from cached vectors alone (no model
load). Each keeps a FAISS index per (store, dataset, kind, model) in the process, rebuilt
when the store's vectors change. Both are re-exported by :mod:`memscope.engine_jobs.engine`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from memscope.engine import corpus
from memscope.engine_jobs.engine import EngineOptions, EngineSession, Reporter, ensure_embedded
from memscope.engine_jobs.engine_data import EngineDataset, dataset_from_store
from memscope.errors import EngineError, NotFoundError
from memscope.store import Store, queries
from memscope.store import embeddings as cache


@dataclass(frozen=True)
class SearchHit:
    """One round found by a search."""

    round_id: str
    score: float
    """Cosine similarity (the best over the round's items)."""
    item_id: str
    """What matched: the round, one of its captions, or one of its images."""


@dataclass
class _SearchIndex:
    """A FAISS index over one kind of a dataset's vectors, with what each row is."""

    index: Any
    item_ids: list[str]
    round_ids: list[str | None]
    vectors: np.ndarray
    fingerprint: tuple[int, str | None]


_indexes: dict[tuple[str, str, str, str], _SearchIndex] = {}
_index_lock = threading.Lock()
MAX_CACHED_INDEXES = 8


def _vector_index(store: Store, dataset_id: str, kind: str, model_id: str) -> _SearchIndex:
    """A FAISS index over a dataset's vectors of one kind, kept per process and rebuilt when the store changed."""
    from memscope.engine.index import VectorIndex

    key = (str(store.path), dataset_id, kind, model_id)
    with store.read() as con:
        fingerprint = cache.item_fingerprint(con, dataset_id, kind, model_id)
        with _index_lock:
            cached = _indexes.get(key)
        if cached is not None and cached.fingerprint == fingerprint:
            return cached
        found = cache.item_vectors(con, dataset_id, kind, model_id)
    built = _SearchIndex(
        VectorIndex(found.vectors) if found.item_ids else None,
        found.item_ids,
        found.round_ids,
        found.vectors,
        fingerprint,
    )
    with _index_lock:
        if len(_indexes) >= MAX_CACHED_INDEXES:
            _indexes.pop(next(iter(_indexes)))
        _indexes[key] = built
    return built


def _best_per_round(
    scores: np.ndarray,
    ids: np.ndarray,
    item_ids: list[str],
    round_ids: list[str | None],
    k: int,
    exclude: str | None = None,
) -> list[SearchHit]:
    best: dict[str, SearchHit] = {}
    for score, index in zip(scores.tolist(), ids.tolist(), strict=True):
        if index < 0:
            continue
        round_id = round_ids[index] or item_ids[index]
        if round_id == exclude or round_id in best:
            continue
        best[round_id] = SearchHit(round_id, float(score), item_ids[index])
    return sorted(best.values(), key=lambda hit: (-hit.score, hit.round_id))[:k]


def search_text(
    store: Store,
    dataset_id: str,
    query: str,
    k: int = 10,
    *,
    channel: str = "text",
    options: EngineOptions | None = None,
    reporter: Reporter | None = None,
) -> list[SearchHit]:
    """Rounds whose memory matches a free-text query ("brass compass"), best first.

    Args:
        channel: ``text``: the query's MiniLM vector against each round's text with its
            captions (what SRAG(T) retrieves over); ``image``: the query in the image
            model's space against the rounds' images (what SRAG(V) adds).

    Round texts (or images) not embedded yet are embedded first.
    """
    if not query.strip():
        return []
    session = EngineSession(options, reporter)
    return search_dataset_text(
        store, dataset_from_store(store, dataset_id), query, k, session=session, channel=channel
    )


def search_dataset_text(
    store: Store,
    dataset: EngineDataset,
    query: str,
    k: int = 10,
    *,
    session: EngineSession,
    channel: str = "text",
) -> list[SearchHit]:
    """:func:`search_text` over a dataset already read, with the caller's models."""
    if not query.strip():
        return []
    dataset_id = dataset.dataset_id
    if channel == "image":
        ensure_embedded(store, dataset, session, image_kinds=(corpus.IMAGE,))
        model_id, kind = session.image_source().model_id, corpus.IMAGE
        vector = session.image_encoder().encode_texts([query.strip()])
    elif channel == "text":
        ensure_embedded(store, dataset, session, text_kinds=(corpus.ROUND_TEXT,))
        model_id, kind = session.text_source().model_id, corpus.ROUND_TEXT
        vector = session.text_encoder().encode([query.strip()])
    else:
        raise EngineError(f"unknown search channel {channel!r}", fix="Use text or image.")
    found = _vector_index(store, dataset_id, kind, model_id)
    if found.index is None:
        return []
    # Several images can belong to one round; ask for more so that k rounds remain.
    scores, ids = found.index.search(
        vector, min(len(found.index), k * 4 if kind == corpus.IMAGE else k)
    )
    return _best_per_round(scores[0], ids[0], found.item_ids, found.round_ids, k)


def similar_images(
    store: Store,
    dataset_id: str,
    round_id: str,
    k: int = 10,
    *,
    model_id: str | None = None,
) -> list[SearchHit]:
    """Other rounds whose images look most like this round's (the look-alike distractors of X3).

    Uses image vectors already in the store (``memscope index`` makes them); no model is
    loaded. Each other round scores the best cosine between any of its images and any of
    this round's images.

    Args:
        model_id: The image model's cache id (default: the one with the most vectors for
            this dataset's images).

    Raises:
        EngineError: no image vectors for the dataset; NotFoundError: the round has no
            embedded image.
    """
    with store.read() as con:
        models = cache.image_models(con, dataset_id)
    if model_id is None:
        if not models:
            raise EngineError(
                f"the images of dataset {dataset_id} are not embedded yet",
                fix=f"Run `memscope index {dataset_id} --image-model NAME --image-pretrained CHECKPOINT` first.",
            )
        model_id = models[0][0]
    found = _vector_index(store, dataset_id, corpus.IMAGE, model_id)
    own = [i for i, owner in enumerate(found.round_ids) if owner == round_id]
    if found.index is None or not own:
        raise NotFoundError(
            f"round {round_id!r} has no embedded image in dataset {dataset_id}",
            fix="Pick a round with an image, or run `memscope index` with an image model.",
        )
    scores, ids = found.index.search(
        found.vectors[own], min(len(found.index), (k + 1) * 4 + len(own))
    )
    merged_scores, merged_ids = scores.reshape(-1), ids.reshape(-1)
    order = np.argsort(-merged_scores, kind="stable")
    return _best_per_round(
        merged_scores[order],
        merged_ids[order],
        found.item_ids,
        found.round_ids,
        k,
        exclude=round_id,
    )


def round_previews(store: Store, dataset_id: str, round_ids: list[str]) -> dict[str, str]:
    """The user text of some rounds (for showing search hits)."""
    wanted = set(round_ids)
    with store.read() as con:
        table = queries.rounds_table(con, dataset_id).select(["round_id", "user_text"]).to_pylist()
    return {row["round_id"]: row["user_text"] or "" for row in table if row["round_id"] in wanted}
