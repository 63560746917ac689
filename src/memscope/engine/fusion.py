"""The retrievers' score formulas, as pure numpy over whole banks and many questions at once.

- **SRAG(T)** (MemEye ``semantic_rag_text_only``): the cosine of the question's MiniLM
  vector with the round's corpus text (user + assistant + captions).
- **SRAG(V)** (MemEye ``semantic_rag_multimodal``): ``text_weight * text + image_weight *
  image``, where text is the MiniLM cosine with user + assistant text and image is the best
  cosine of the question's SigLIP text vector with any of the round's images. As in
  MemEye, the image score starts at 0 (a round without images scores 0, and negative
  cosines never win) and later images win ties. Weights default to MemEye's 0.5 / 0.5.
- **DualMem** (DMV-Bench HybridNorm): each channel is min-max normalised over the bank,
  ``x_hat = (x - min) / (max - min)`` (0 when max == min), then fused as
  ``visual_weight * v_hat + (1 - visual_weight) * t_hat`` (default 0.75). The visual
  channel is the best image cosine of the round without a floor; a round without images
  has no visual score and its normalised visual score is 0.

Cosines are computed in float64 and divided by the vector norms, as MemEye's
``_dense_cosine`` does, so recomputed scores match logged ones to float32 precision.
Rankings sort by score descending, ties by round id ascending (MemEye's rule).
"""

from __future__ import annotations

import numpy as np

DEFAULT_TEXT_WEIGHT = 0.5
DEFAULT_IMAGE_WEIGHT = 0.5
DEFAULT_VISUAL_WEIGHT = 0.75


def cosine_matrix(queries: np.ndarray, bank: np.ndarray) -> np.ndarray:
    """``(q, n)`` cosines of every query with every bank row, in float64.

    Zero vectors get cosine 0 (MemEye's convention) instead of a division by zero.
    """
    queries = np.atleast_2d(np.asarray(queries, dtype=np.float64))
    bank = np.atleast_2d(np.asarray(bank, dtype=np.float64))
    if bank.shape[0] == 0 or queries.shape[0] == 0:
        return np.zeros((queries.shape[0], bank.shape[0]))
    query_norms = np.linalg.norm(queries, axis=1)
    bank_norms = np.linalg.norm(bank, axis=1)
    products = queries @ bank.T
    denominator = np.outer(query_norms, bank_norms)
    with np.errstate(divide="ignore", invalid="ignore"):
        cosines = np.where(
            denominator > 0, products / np.where(denominator > 0, denominator, 1.0), 0.0
        )
    return cosines


def best_image_scores(
    image_cosines: np.ndarray, image_rounds: np.ndarray, n_rounds: int, *, floor: float | None = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """Per question and round, the best cosine over the round's images.

    Args:
        image_cosines: ``(q, m)`` cosines of each question with each image.
        image_rounds: ``(m,)`` the round index (0..n_rounds-1) of each image.
        n_rounds: the bank size.
        floor: the starting value: 0.0 reproduces MemEye (rounds without images score 0,
            negative cosines never win); None gives NaN for rounds without images and
            the plain maximum otherwise (DualMem's visual channel).

    Returns:
        ``(q, n_rounds)`` scores and ``(q, n_rounds)`` winning image index (-1 when none).
        A later image wins a tie, as in MemEye's ``>=`` comparison.
    """
    image_cosines = np.atleast_2d(image_cosines)
    n_questions = image_cosines.shape[0]
    start = -np.inf if floor is None else floor
    scores = np.full((n_questions, n_rounds), start, dtype=np.float64)
    winners = np.full((n_questions, n_rounds), -1, dtype=np.int64)
    for image, round_index in enumerate(np.asarray(image_rounds, dtype=np.int64)):
        column = image_cosines[:, image]
        better = column >= scores[:, round_index]
        scores[better, round_index] = column[better]
        winners[better, round_index] = image
    if floor is None:
        scores[np.isneginf(scores)] = np.nan
    return scores, winners


def srag_t(text_scores: np.ndarray) -> np.ndarray:
    """SRAG(T): the text cosine is the score."""
    return np.asarray(text_scores, dtype=np.float64)


def srag_v(
    text_scores: np.ndarray,
    image_scores: np.ndarray,
    text_weight: float = DEFAULT_TEXT_WEIGHT,
    image_weight: float = DEFAULT_IMAGE_WEIGHT,
) -> np.ndarray:
    """SRAG(V): ``text_weight * text + image_weight * image`` on raw cosines."""
    return text_weight * np.asarray(text_scores, dtype=np.float64) + image_weight * np.asarray(
        image_scores, dtype=np.float64
    )


def minmax(values: np.ndarray) -> np.ndarray:
    """Min-max normalise each row over its non-NaN entries.

    A constant row (max == min) becomes 0 everywhere; NaN entries become 0 (no evidence
    in that channel); a row of only NaN is all 0.
    """
    values = np.atleast_2d(np.asarray(values, dtype=np.float64))
    present = ~np.isnan(values)
    low = np.where(present, values, np.inf).min(axis=1, keepdims=True)
    high = np.where(present, values, -np.inf).max(axis=1, keepdims=True)
    span = high - low
    usable = np.isfinite(span) & (span > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        scaled = np.where(usable, (values - low) / np.where(usable, span, 1.0), 0.0)
    return np.where(present, scaled, 0.0)


def dualmem(
    text_scores: np.ndarray, visual_scores: np.ndarray, visual_weight: float = DEFAULT_VISUAL_WEIGHT
) -> np.ndarray:
    """DualMem: ``visual_weight * minmax(visual) + (1 - visual_weight) * minmax(text)``, per row."""
    return visual_weight * minmax(visual_scores) + (1.0 - visual_weight) * minmax(text_scores)


def rank_order(scores: np.ndarray, round_ids: np.ndarray) -> np.ndarray:
    """Per row, bank indices sorted by score descending, ties by round id ascending.

    Args:
        scores: ``(q, n)`` scores (NaN sorts last).
        round_ids: ``(n,)`` round ids of the bank.

    Returns:
        ``(q, n)`` int64 indices into the bank.
    """
    scores = np.atleast_2d(np.asarray(scores, dtype=np.float64))
    id_rank = np.argsort(np.argsort(np.asarray(round_ids, dtype=str), kind="stable"), kind="stable")
    primary = np.where(np.isnan(scores), np.inf, -scores)
    secondary = np.broadcast_to(id_rank, scores.shape)
    return np.lexsort((secondary, primary), axis=-1)
