"""Ranked candidate pools over a memory bank, for the three retrievers the papers use.

A :class:`Bank` holds one dataset's round vectors (text, and images with the round each
belongs to); :func:`retrieve` scores every round for every question with the method's
formula (``fusion``), ranks them (score descending, ties by round id) and keeps the top
``pool_size`` with every channel's score, so nothing the diagnosis needs is thrown away.
Exact scoring over the whole bank is required anyway (DualMem normalises over it), so
this is a dense matrix product, not an approximate index.

A dataset may hold several separate memories (each conversation of a dataset of conversations):
:func:`retrieve_in_banks` ranks each question among its own memory's rounds only, each
memory scored as a bank of its own (DualMem normalises over it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

import numpy as np

from memscope.engine import fusion
from memscope.engine.corpus import ROUND_DIALOGUE, ROUND_TEXT, ItemKind, Modality
from memscope.errors import InputError

METHODS = ("srag_t", "srag_v", "dualmem")
QUESTION_CHUNK = 256
"""Questions scored together: bounds the ``(questions, rounds)`` matrices held in memory."""
POOL_FIELDS = ("round_ids", "scores", "text_scores", "image_scores", "best_images", "sizes")
BACKENDS = {"srag_t": "dense_text", "srag_v": "dense_multimodal", "dualmem": "dualmem_hybrid_norm"}


@dataclass(frozen=True)
class MethodSettings:
    """A retriever and its weights."""

    method: str
    """``srag_t``, ``srag_v`` or ``dualmem``."""
    text_weight: float = fusion.DEFAULT_TEXT_WEIGHT
    """SRAG(V) weight of the text cosine (MemEye ``text_dense_weight``)."""
    image_weight: float = fusion.DEFAULT_IMAGE_WEIGHT
    """SRAG(V) weight of the image cosine (MemEye ``image_dense_weight``)."""
    visual_weight: float = fusion.DEFAULT_VISUAL_WEIGHT
    """DualMem weight of the normalised visual channel (DMV-Bench)."""

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise InputError(
                f"unknown retrieval method {self.method!r}",
                where="--method",
                fix=f"Use one of {', '.join(METHODS)}.",
            )
        if not 0.0 <= self.visual_weight <= 1.0:
            raise InputError(f"--visual-weight must lie in [0, 1], got {self.visual_weight}")

    @property
    def uses_images(self) -> bool:
        """Whether the method has an image channel that needs an image model."""
        if self.method == "srag_v":
            return self.image_weight != 0.0
        return self.method == "dualmem" and self.visual_weight != 0.0

    @property
    def text_kind(self) -> ItemKind:
        """Which round text the text channel embeds."""
        return ROUND_DIALOGUE if self.method == "srag_v" else ROUND_TEXT

    @property
    def modality(self) -> Modality:
        """How the answer model sees the retrieved rounds (captions as text, or images)."""
        return "text_only" if self.method == "srag_t" else "multimodal"

    @property
    def weights(self) -> dict[str, float]:
        """The method's weights by their MemEye names (``{}`` for SRAG(T))."""
        if self.method == "srag_v":
            return {"text_dense_weight": self.text_weight, "image_dense_weight": self.image_weight}
        if self.method == "dualmem":
            return {"visual_weight": self.visual_weight}
        return {}


@dataclass
class Bank:
    """One dataset's memory: round vectors in dialogue order, and image vectors."""

    round_ids: np.ndarray
    """``(n,)`` round ids."""
    text_vectors: np.ndarray
    """``(n, d)`` text vectors of the rounds."""
    image_vectors: np.ndarray | None = None
    """``(m, d2)`` image vectors, or None when the method has no image channel."""
    image_rounds: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """``(m,)`` index into ``round_ids`` of each image."""
    image_paths: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.round_ids)

    def subset(self, keep: np.ndarray) -> Bank:
        """The rounds at the (increasing) indices ``keep``, with their images."""
        part = Bank(self.round_ids[keep], self.text_vectors[keep])
        if self.image_vectors is not None:
            new_index = np.full(len(self.round_ids), -1, dtype=np.int64)
            new_index[keep] = np.arange(len(keep))
            images = np.flatnonzero(new_index[self.image_rounds] >= 0)
            part.image_vectors = self.image_vectors[images]
            part.image_rounds = new_index[self.image_rounds[images]]
            part.image_paths = [self.image_paths[i] for i in images]
        return part


class PoolEntry(TypedDict):
    """One candidate of a question's pool, as ``retrieval.jsonl`` writes it."""

    rank: int
    round_id: str
    score: float | None
    text_score: float | None
    image_score: float | None


@dataclass
class Pools:
    """Ranked candidate pools of many questions, padded to a common width.

    Pads are ``""`` round ids and NaN scores. ``image_scores`` is NaN for a method without
    an image channel; for DualMem ``text_scores`` / ``image_scores`` are the raw cosines
    and ``scores`` the fused, normalised value.
    """

    round_ids: np.ndarray
    scores: np.ndarray
    text_scores: np.ndarray
    image_scores: np.ndarray
    best_images: np.ndarray
    sizes: np.ndarray

    def pool(self, row: int) -> list[PoolEntry]:
        """Question ``row``'s pool as ``retrieval.jsonl`` entries (rank 1 first)."""
        entries: list[PoolEntry] = []
        for column in range(int(self.sizes[row])):
            entries.append(
                {
                    "rank": column + 1,
                    "round_id": str(self.round_ids[row, column]),
                    "score": _number(self.scores[row, column]),
                    "text_score": _number(self.text_scores[row, column]),
                    "image_score": _number(self.image_scores[row, column]),
                }
            )
        return entries


def _number(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


@dataclass
class ChannelScores:
    """Every round's scores for many questions: ``(q, n)`` each."""

    fused: np.ndarray
    text: np.ndarray
    image: np.ndarray
    best_image: np.ndarray


def score_bank(
    bank: Bank, settings: MethodSettings, text_queries: np.ndarray, image_queries: np.ndarray | None
) -> ChannelScores:
    """Score every round of ``bank`` for every query with the method's formula.

    Args:
        bank: The memory bank.
        settings: Method and weights.
        text_queries: ``(q, d)`` question vectors from the text model.
        image_queries: ``(q, d2)`` question vectors from the image model's text tower
            (required when ``settings.uses_images``).
    """
    text = fusion.cosine_matrix(text_queries, bank.text_vectors)
    n_questions, n_rounds = text.shape
    no_image = np.full((n_questions, n_rounds), np.nan)
    no_winner = np.full((n_questions, n_rounds), -1, dtype=np.int64)
    if not settings.uses_images:
        if settings.method == "dualmem":  # visual_weight 0: the verbal channel alone
            return ChannelScores(fusion.dualmem(text, no_image, 0.0), text, no_image, no_winner)
        if settings.method == "srag_v":  # image_weight 0
            return ChannelScores(
                fusion.srag_v(text, np.zeros_like(text), settings.text_weight, 0.0),
                text,
                no_image,
                no_winner,
            )
        return ChannelScores(fusion.srag_t(text), text, no_image, no_winner)
    if image_queries is None or bank.image_vectors is None:
        raise ValueError("this method needs image vectors and image queries")
    image_cosines = fusion.cosine_matrix(image_queries, bank.image_vectors)
    if settings.method == "srag_v":
        image, winners = fusion.best_image_scores(
            image_cosines, bank.image_rounds, n_rounds, floor=0.0
        )
        fused = fusion.srag_v(text, image, settings.text_weight, settings.image_weight)
    else:
        image, winners = fusion.best_image_scores(
            image_cosines, bank.image_rounds, n_rounds, floor=None
        )
        fused = fusion.dualmem(text, image, settings.visual_weight)
    return ChannelScores(fused, text, image, winners)


def rank_pools(
    bank: Bank, channels: ChannelScores, pool_size: int, has_query: np.ndarray | None = None
) -> Pools:
    """Keep each question's top ``pool_size`` rounds, ranked, with every channel's score.

    Args:
        has_query: ``(q,)`` False for questions without a query (MemEye retrieves nothing
            for an empty question): their pools are empty.
    """
    n_questions, n_rounds = channels.fused.shape
    width = min(pool_size, n_rounds)
    order = fusion.rank_order(channels.fused, bank.round_ids)[:, :width]
    rows = np.arange(n_questions)[:, None]
    sizes = np.full(n_questions, width, dtype=np.int64)
    if has_query is not None:
        sizes[~np.asarray(has_query, dtype=bool)] = 0
    padding = np.arange(width)[None, :] >= sizes[:, None]
    paths = np.array([*bank.image_paths, None], dtype=object)
    winners = channels.best_image[rows, order]
    best = paths[np.where(winners >= 0, winners, len(bank.image_paths))]

    def take(matrix: np.ndarray) -> np.ndarray:
        values: np.ndarray = matrix[rows, order].astype(np.float64)
        values[padding] = np.nan
        return values

    round_ids = np.asarray(bank.round_ids, dtype=object)[order]
    round_ids[padding] = ""
    best[padding] = None
    return Pools(
        round_ids, take(channels.fused), take(channels.text), take(channels.image), best, sizes
    )


def retrieve(
    bank: Bank,
    settings: MethodSettings,
    text_queries: np.ndarray,
    image_queries: np.ndarray | None,
    pool_size: int,
    has_query: np.ndarray | None = None,
) -> Pools:
    """Score and rank: the method's top ``pool_size`` rounds per question.

    Questions are scored in chunks so that the ``(questions, rounds)`` matrices of a large
    benchmark never all sit in memory at once.
    """
    n_questions = len(text_queries)
    has_query = (
        np.ones(n_questions, dtype=bool) if has_query is None else np.asarray(has_query, dtype=bool)
    )
    chunks = []
    for start in range(0, max(n_questions, 1), QUESTION_CHUNK):
        stop = min(start + QUESTION_CHUNK, n_questions)
        image_chunk = None if image_queries is None else image_queries[start:stop]
        channels = score_bank(bank, settings, text_queries[start:stop], image_chunk)
        chunks.append(rank_pools(bank, channels, pool_size, has_query[start:stop]))
    return Pools(
        *(np.concatenate([getattr(chunk, name) for chunk in chunks]) for name in POOL_FIELDS)
    )


def retrieve_in_banks(
    bank: Bank,
    round_banks: np.ndarray,
    question_banks: np.ndarray,
    settings: MethodSettings,
    text_queries: np.ndarray,
    image_queries: np.ndarray | None,
    pool_size: int,
    has_query: np.ndarray | None = None,
) -> Pools:
    """:func:`retrieve` where each question remembers only part of the bank.

    Args:
        round_banks: ``(n,)`` the memory each round of ``bank`` belongs to.
        question_banks: ``(q,)`` the memory each question retrieves from; ``""`` means the
            whole bank. A question whose memory has no round gets an empty pool.

    Each memory is ranked as a bank of its own, so every score is the one a retriever over
    that memory alone computes; the pools are padded to a common width.
    """
    round_banks = np.asarray(round_banks, dtype=object)
    question_banks = np.asarray(question_banks, dtype=object)
    groups = [
        (
            np.flatnonzero(question_banks == name),
            np.arange(len(bank)) if name == "" else np.flatnonzero(round_banks == name),
        )
        for name in dict.fromkeys(question_banks.tolist())
    ]
    return _retrieve_in_parts(
        bank, groups, settings, text_queries, image_queries, pool_size, has_query
    )


def retrieve_in_histories(
    bank: Bank,
    round_sessions: np.ndarray,
    histories: list[tuple[str, ...] | None],
    settings: MethodSettings,
    text_queries: np.ndarray,
    image_queries: np.ndarray | None,
    pool_size: int,
    has_query: np.ndarray | None = None,
) -> Pools:
    """:func:`retrieve` where each question remembers only the sessions of its own history.

    Args:
        round_sessions: ``(n,)`` the session each round of ``bank`` belongs to.
        histories: per question, the session ids of its history (a haystack that may share
            sessions with other questions' haystacks, unlike a memory bank); None means the
            whole bank.

    Questions with the same history are ranked together; every score is the one a
    retriever over that history alone computes.
    """
    # sessions as integer codes: a history's rounds are then one integer isin per question
    codes: dict[str, int] = {}
    round_codes = np.array(
        [codes.setdefault(str(sid), len(codes)) for sid in round_sessions], dtype=np.int64
    )
    rows_of: dict[tuple[str, ...] | None, list[int]] = {}
    for row, history in enumerate(histories):
        rows_of.setdefault(None if history is None else tuple(history), []).append(row)
    groups = [
        (
            np.array(rows, dtype=np.int64),
            np.arange(len(bank))
            if history is None
            else np.flatnonzero(
                np.isin(round_codes, [codes[sid] for sid in history if sid in codes])
            ),
        )
        for history, rows in rows_of.items()
    ]
    return _retrieve_in_parts(
        bank, groups, settings, text_queries, image_queries, pool_size, has_query
    )


def _retrieve_in_parts(
    bank: Bank,
    groups: list[tuple[np.ndarray, np.ndarray]],
    settings: MethodSettings,
    text_queries: np.ndarray,
    image_queries: np.ndarray | None,
    pool_size: int,
    has_query: np.ndarray | None,
) -> Pools:
    """Rank each group's questions (``rows``) among its rounds (``keep``, increasing
    indices of ``bank``), then pad the pools to a common width."""
    n_questions = len(text_queries)
    has_query = (
        np.ones(n_questions, dtype=bool) if has_query is None else np.asarray(has_query, dtype=bool)
    )
    parts: list[tuple[np.ndarray, Pools]] = []
    for rows, keep in groups:
        if not len(keep):
            continue
        image_part = None if image_queries is None else image_queries[rows]
        pools = retrieve(
            bank.subset(keep), settings, text_queries[rows], image_part, pool_size, has_query[rows]
        )
        parts.append((rows, pools))
    width = max((pools.round_ids.shape[1] for _rows, pools in parts), default=0)
    merged = Pools(
        np.full((n_questions, width), "", dtype=object),
        np.full((n_questions, width), np.nan),
        np.full((n_questions, width), np.nan),
        np.full((n_questions, width), np.nan),
        np.full((n_questions, width), None, dtype=object),
        np.zeros(n_questions, dtype=np.int64),
    )
    for rows, pools in parts:
        columns = pools.round_ids.shape[1]
        for name in POOL_FIELDS:
            target, source = getattr(merged, name), getattr(pools, name)
            if name == "sizes":
                target[rows] = source
            else:
                target[rows, :columns] = source
    return merged
