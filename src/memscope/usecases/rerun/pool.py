"""A run's candidate pools, as re-ranking works on them: cut to ``--pool``, with each
candidate's similarity, age, validity and whether its score was recomputed.

Similarities are never invented: where a run logged scores for only part of its ranking
(MemEye: the first five), the rest stay NaN and keep their ranks. Scores the memory engine
recomputed (retrievals with origin ``recomputed``) are used like logged ones and flagged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memscope.analysis.evidence import EvidenceSet
from memscope.analysis.history import Histories
from memscope.analysis.rerank import candidate_ages, pool_prefix, pool_valid

TEMPORAL = ("latest_at_k", "latest_miss", "rank_inversion", "stale_dominance")
"""The temporal-authority metrics a re-rank reports (docs/metrics.md)."""
ACCESS = ("any_clue", "coverage", "full_clue", "mrr")
"""The retrieval-access metrics a question's re-rank reports beside them."""
BASELINE_ALPHA = 1.0
"""The recency weight that keeps the logged order: what every other alpha is compared with."""


@dataclass
class CandidatePool:
    """A run's candidate pool cut to ``--pool``, with what re-ranking needs."""

    evidence: EvidenceSet
    sims: np.ndarray
    ages: np.ndarray
    valid: np.ndarray
    recomputed: np.ndarray


def pool_of(
    evidence: EvidenceSet,
    scores: np.ndarray,
    recomputed: np.ndarray,
    n_rounds: int,
    pool: int | None,
    histories: Histories | None = None,
) -> CandidatePool:
    """The candidate pool cut to its first ``pool`` entries, with ages and validity."""
    evidence, scores = pool_prefix(evidence, scores, pool)
    width = evidence.ranked_pos.shape[1]
    valid = pool_valid(evidence)
    return CandidatePool(
        evidence=evidence,
        sims=np.where(valid, fit_width(scores, width), np.nan),
        ages=candidate_ages(evidence.ranked_pos, n_rounds, histories),
        valid=valid,
        recomputed=fit_width(recomputed, width, fill=False).astype(bool) & valid,
    )


def fit_width(matrix: np.ndarray, width: int, fill: float | bool = np.nan) -> np.ndarray:
    """``matrix`` cut or padded (with ``fill``) to ``width`` columns."""
    if matrix.shape[1] >= width:
        return matrix[:, :width]
    out = np.full((matrix.shape[0], width), fill, dtype=matrix.dtype)
    out[:, : matrix.shape[1]] = matrix
    return out


def rows_of(ev: EvidenceSet, rows: np.ndarray | slice) -> EvidenceSet:
    """The evidence of some questions (an index array or a slice of rows)."""
    return EvidenceSet(
        ranked_pos=ev.ranked_pos[rows],
        ranked_session=ev.ranked_session[rows],
        gold_pos=ev.gold_pos[rows],
        source_sessions=ev.source_sessions[rows],
        has_ranking=ev.has_ranking[rows],
        asks_latest=ev.asks_latest[rows],
    )
