"""The recency re-ranking probe of docs/metrics.md §5, vectorised over every question of a run.

Each candidate gets ``s = alpha * sim + (1 - alpha) * exp(-lambda * age)`` and the fixed
pool is re-ordered by ``s`` (descending), ties broken by the original rank. Candidates
that cannot be scored - no logged or recomputed similarity, or a round unknown to the
dataset (no age) - are never given an invented score: they keep their slots, and the
scorable candidates are re-ordered among the slots those occupy. MemEye logs similarities
for the first five ranks only, so there the top five are re-ranked and ranks 6..K keep
their order. Padding stays last.

Logged scores are untrusted: a similarity that is not a finite number (NaN, ±Infinity) is
treated like a missing one, and a candidate whose combined score is not finite does not
move, so the result is always a permutation of the pool whatever the numbers.
"""

from __future__ import annotations

import numpy as np

from memscope.analysis.arrays import PAD
from memscope.analysis.evidence import EvidenceSet
from memscope.analysis.history import Histories

DEFAULT_LAMBDA = 0.02
"""docs/metrics.md §5: the default recency decay per dialogue round."""


def candidate_ages(
    ranked_pos: np.ndarray, n_rounds: int, histories: Histories | None = None
) -> np.ndarray:
    """``age = N - position`` per candidate; NaN for padding and for rounds unknown to the dataset.

    ``histories``: each question's own history (``analysis.history``), where the benchmark
    declares one: the age is then the number of the question's own rounds after the candidate.

    Questions are asked after the whole history, so the age of a round is its distance
    in dialogue rounds to the end of the dialogue (docs/metrics.md §5; no normalisation).
    """
    if histories is not None:
        return histories.ages(ranked_pos)
    ages = (n_rounds - ranked_pos).astype(float)
    ages[ranked_pos <= 0] = np.nan
    return ages


def recency_term(ages: np.ndarray, lam: float) -> np.ndarray:
    """``exp(-lambda * age)`` (NaN where the age is unknown)."""
    return np.exp(-lam * ages)


def recency_scores(sims: np.ndarray, ages: np.ndarray, alpha: float, lam: float) -> np.ndarray:
    """``alpha * sim + (1 - alpha) * exp(-lambda * age)``; NaN where either input is missing."""
    return alpha * sims + (1.0 - alpha) * recency_term(ages, lam)


def movable(sims: np.ndarray, ages: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """``(n, P)`` candidates that take part in re-ranking: real, with a finite similarity and age."""
    return valid & np.isfinite(sims) & np.isfinite(ages)


def recency_order(
    sims: np.ndarray, ages: np.ndarray, valid: np.ndarray, alpha: float, lam: float
) -> np.ndarray:
    """The permutation that re-ranks each row of a candidate pool by recency-weighted score.

    Args:
        sims: ``(n, P)`` similarities, NaN for unscored candidates and padding.
        ages: ``(n, P)`` ages in dialogue rounds, NaN where unknown.
        valid: ``(n, P)`` real candidates (False for padding).
        alpha: weight of the similarity, in [0, 1].
        lam: recency decay per round, >= 0.

    Returns:
        ``(n, P)`` column indices: row ``i`` of the re-ranked pool is ``pool[i, order[i]]``.
        Scorable candidates are sorted by ``s`` descending (ties: original rank) into the
        slots scorable candidates occupy; every other entry keeps its slot.
    """
    n, width = sims.shape
    order = np.broadcast_to(np.arange(width), (n, width)).copy()
    if width == 0 or n == 0:
        return order
    can_move = movable(sims, ages, valid)
    with np.errstate(invalid="ignore", over="ignore"):
        scores = recency_scores(sims, ages, alpha, lam)
    # Only finite keys move: NaN would sort after the fixed candidates' +inf keys, and the
    # slot filling below would then hand a fixed candidate a second slot.
    can_move &= np.isfinite(scores)
    key = np.where(can_move, -scores, np.inf)
    # Stable sorts keep the original rank order among equal keys: the tie rule.
    ranked = np.argsort(key, axis=1, kind="stable")
    slots = np.argsort(~can_move, axis=1, kind="stable")
    filled = np.arange(width)[None, :] < can_move.sum(axis=1)[:, None]
    rows = np.broadcast_to(np.arange(n)[:, None], (n, width))
    order[rows[filled], slots[filled]] = ranked[filled]
    return order


def take_rows(matrix: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``matrix`` with each row permuted by ``order``."""
    return matrix[np.arange(matrix.shape[0])[:, None], order]


def pool_prefix(
    ev: EvidenceSet, sims: np.ndarray, pool: int | None
) -> tuple[EvidenceSet, np.ndarray]:
    """Keep the first ``pool`` candidates of the original ranking (all when None)."""
    if pool is None or pool >= ev.ranked_pos.shape[1]:
        return ev, sims
    return (
        EvidenceSet(
            ranked_pos=ev.ranked_pos[:, :pool],
            ranked_session=ev.ranked_session[:, :pool],
            gold_pos=ev.gold_pos,
            source_sessions=ev.source_sessions,
            has_ranking=ev.has_ranking,
            asks_latest=ev.asks_latest,
        ),
        sims[:, :pool],
    )


def pool_valid(ev: EvidenceSet) -> np.ndarray:
    """``(n, P)`` real candidates (not padding)."""
    return ev.ranked_pos != PAD
