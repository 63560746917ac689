"""Evidence Recall@k and Precision@k of a ranked retrieval against gold rounds, with k
fixed (Precision@k divides by k even where fewer were retrieved): docs/metrics.md §8.

Pure numpy over per-question position arrays padded with :data:`~memscope.analysis.arrays.PAD`.
"""

from __future__ import annotations

import numpy as np

from memscope.analysis.arrays import PAD, row_member


def evidence_at_k(
    ranked: np.ndarray, gold: np.ndarray, ks: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Per-question Recall@k and Precision@k of ranked retrieved turns against gold turns.

    Args:
        ranked: ``(n, P)`` retrieved turn codes in rank order, padded with :data:`PAD`
            (a code of 0 is a retrieved id unknown to the dataset: it holds its rank and
            matches nothing).
        gold: ``(n, G)`` gold turn codes, padded with :data:`PAD`.
        ks: the cut-offs.

    Returns:
        ``(recall, precision)``, each ``(n, len(ks))``; NaN for questions without a gold
        turn.
    """
    n = ranked.shape[0]
    recall = np.full((n, len(ks)), np.nan)
    precision = np.full((n, len(ks)), np.nan)
    golds = (gold != PAD).sum(axis=1)
    has_gold = golds > 0
    columns = np.arange(ranked.shape[1])[None, :]
    for j, k in enumerate(ks):
        top = np.where(columns < k, ranked, PAD)
        hits = row_member(gold, top).sum(axis=1)
        recall[has_gold, j] = hits[has_gold] / golds[has_gold]
        precision[has_gold, j] = hits[has_gold] / k
    return recall, precision
