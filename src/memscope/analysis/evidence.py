"""The retrieval evidence of a run, as padded arrays, and the metrics of docs/metrics.md §3–§4.

One row per question. Dialogue positions run 1..N in session then round order; a
retrieved round unknown to the dataset has position 0 (it holds its rank but matches
nothing). The functions return one float per question: 0/1 (or a fraction), NaN where the
metric is undefined (no gold clue; not a Y3 question; no ranking).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memscope.analysis.arrays import PAD, row_member


@dataclass(frozen=True)
class EvidenceSet:
    """Per-question gold clues and retrieved rounds of one run.

    Attributes:
        ranked_pos: ``(n, P)`` positions of the retrieved rounds, rank 1 first.
        ranked_session: ``(n, P)`` session order of each retrieved round.
        gold_pos: ``(n, G)`` positions of the gold clue rounds.
        source_sessions: ``(n, S)`` session orders of the question's source sessions.
        has_ranking: ``(n,)`` whether the retrieved list is ordered (else an unranked set).
        asks_latest: ``(n,)`` whether the question asks for the latest state of something
            that changed (the benchmark's declared ``latest_state``: MemEye's Y3, a
            knowledge update): temporal authority is measured on these.
    """

    ranked_pos: np.ndarray
    ranked_session: np.ndarray
    gold_pos: np.ndarray
    source_sessions: np.ndarray
    has_ranking: np.ndarray
    asks_latest: np.ndarray

    @property
    def n(self) -> int:
        """Number of questions."""
        return int(self.gold_pos.shape[0])

    def reordered(self, order: np.ndarray) -> EvidenceSet:
        """The same evidence with each row's candidates permuted by ``order`` (n, P)."""
        rows = np.arange(self.n)[:, None]
        return EvidenceSet(
            ranked_pos=self.ranked_pos[rows, order],
            ranked_session=self.ranked_session[rows, order],
            gold_pos=self.gold_pos,
            source_sessions=self.source_sessions,
            has_ranking=self.has_ranking,
            asks_latest=self.asks_latest,
        )


def n_gold(ev: EvidenceSet) -> np.ndarray:
    """Number of gold clue rounds per question."""
    return (ev.gold_pos != PAD).sum(axis=1)


def latest_clue(ev: EvidenceSet) -> np.ndarray:
    """Position of the latest gold clue L per question (PAD when there is none)."""
    if ev.gold_pos.shape[1] == 0:
        return np.full(ev.n, PAD, dtype=np.int64)
    return ev.gold_pos.max(axis=1)


def within_k(ev: EvidenceSet, k: int) -> np.ndarray:
    """``(n, P)`` mask of the retrieved entries in R@K (an unranked set counts whole)."""
    columns = np.arange(ev.ranked_pos.shape[1])[None, :]
    in_cut = (columns < k) | ~ev.has_ranking[:, None]
    return in_cut & (ev.ranked_pos != PAD)


def stale_mask(ev: EvidenceSet) -> np.ndarray:
    """``(n, P)`` retrieved rounds that are stale for their question.

    Stale (docs/metrics.md §4, the source-session definition): a retrieved round of one of the
    question's source sessions that comes before the latest clue L in dialogue order.
    """
    latest = latest_clue(ev)
    in_source = row_member(ev.ranked_session, ev.source_sessions)
    return in_source & (ev.ranked_pos > 0) & (ev.ranked_pos < latest[:, None])


def retrieval_access(ev: EvidenceSet, k: int) -> dict[str, np.ndarray]:
    """Any-Clue@K, Coverage@K, Full-Clue@K and MRR per question.

    Returns:
        ``{"any_clue", "coverage", "full_clue", "mrr"}`` arrays; NaN for questions without
        gold clues, and MRR NaN for an unranked set.
    """
    top = np.where(within_k(ev, k), ev.ranked_pos, PAD)
    gold_hit = row_member(ev.gold_pos, top)
    hits = gold_hit.sum(axis=1)
    golds = n_gold(ev)
    ok = golds > 0
    safe_golds = np.maximum(golds, 1)
    is_gold = row_member(ev.ranked_pos, ev.gold_pos)
    has_gold = is_gold.any(axis=1)
    first_rank = is_gold.argmax(axis=1) + 1 if is_gold.shape[1] else np.ones(ev.n, dtype=np.int64)
    mrr = np.where(has_gold, 1.0 / first_rank, 0.0)
    result = {
        "any_clue": (hits > 0).astype(float),
        "coverage": hits / safe_golds,
        "full_clue": (ok & (hits == golds)).astype(float),
        "mrr": np.where(ev.has_ranking, mrr, np.nan),
    }
    for values in result.values():
        values[~ok] = np.nan
    return result


def temporal_authority(ev: EvidenceSet, k: int) -> dict[str, np.ndarray]:
    """Latest@K, Latest-Miss, Rank-Inversion and Stale-Dominance per question.

    Defined for Y3 questions with a gold clue; NaN elsewhere. For an unranked set,
    Rank-Inversion is NaN, and Stale-Dominance is NaN when both L and a stale round are in
    the set (whether the stale round "ranks above" L cannot be known).
    """
    latest = latest_clue(ev)
    in_k = within_k(ev, k)
    stale = stale_mask(ev)
    is_latest = (ev.ranked_pos == latest[:, None]) & (latest[:, None] != PAD)
    latest_in_k = (is_latest & in_k).any(axis=1)
    width = ev.ranked_pos.shape[1]
    columns = np.arange(width)[None, :]
    latest_rank = np.where(is_latest.any(axis=1), is_latest.argmax(axis=1) if width else 0, width)
    stale_above_latest = (stale & (columns < latest_rank[:, None])).any(axis=1)
    rank_inversion = latest_in_k & stale_above_latest
    stale_in_k = (stale & in_k).any(axis=1)
    stale_dominance = (stale_in_k & ~latest_in_k) | rank_inversion
    result = {
        "latest_at_k": latest_in_k.astype(float),
        "latest_miss": (~latest_in_k).astype(float),
        "rank_inversion": rank_inversion.astype(float),
        "stale_dominance": stale_dominance.astype(float),
    }
    unranked = ~ev.has_ranking
    result["rank_inversion"][unranked] = np.nan
    unknown_order = unranked & latest_in_k & stale_in_k
    result["stale_dominance"][unknown_order] = np.nan
    defined = ev.asks_latest & (latest != PAD)
    for values in result.values():
        values[~defined] = np.nan
    return result


def latest_miss_causes(ev: EvidenceSet, k: int) -> dict[str, int]:
    """Split the Latest-Miss cases: L not in the candidate pool vs in the pool below K."""
    latest = latest_clue(ev)
    defined = ev.asks_latest & (latest != PAD)
    in_pool = ((ev.ranked_pos == latest[:, None]) & (ev.ranked_pos != PAD)).any(axis=1)
    in_k = ((ev.ranked_pos == latest[:, None]) & within_k(ev, k)).any(axis=1)
    return {
        "not_in_pool": int((defined & ~in_pool).sum()),
        "in_pool_below_k": int((defined & in_pool & ~in_k).sum()),
    }
