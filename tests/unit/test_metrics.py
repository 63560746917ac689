"""The retrieval and temporal metrics of docs/metrics.md §3–§4 on hand-computed examples."""

from __future__ import annotations

import numpy as np
import pytest

from memscope.analysis.answers import answer_score, correctness
from memscope.analysis.evidence import (
    EvidenceSet,
    latest_miss_causes,
    retrieval_access,
    temporal_authority,
)

# Three sessions of three rounds: S1 = positions 1-3, S2 = 4-6, S3 = 7-9.
SESSION_OF = {p: (p - 1) // 3 + 1 for p in range(1, 10)}


def evidence(rows: list[dict]) -> EvidenceSet:
    """Pad hand-written rows {ranked, gold, sources, y3, ranked_ok} into an EvidenceSet."""

    def pad(lists: list[list[int]]) -> np.ndarray:
        width = max((len(item) for item in lists), default=0)
        return np.array(
            [item + [-1] * (width - len(item)) for item in lists], dtype=np.int64
        ).reshape(len(lists), width)

    ranked = [row["ranked"] for row in rows]
    return EvidenceSet(
        ranked_pos=pad(ranked),
        ranked_session=pad([[SESSION_OF.get(p, -1) for p in r] for r in ranked]),
        gold_pos=pad([sorted(row["gold"]) for row in rows]),
        source_sessions=pad([row["sources"] for row in rows]),
        has_ranking=np.array([row.get("ranked_ok", True) for row in rows]),
        asks_latest=np.array([row["y3"] for row in rows]),
    )


ROWS = [
    # A: L=8 retrieved at rank 2 under stale round 3 (S1, before 8): rank inversion.
    {"ranked": [3, 8, 5, 2], "gold": [2, 8], "sources": [1, 3], "y3": True},
    # B: L=6 only at rank 3 (below K=2) while stale 4 is in the top 2: stale dominance.
    {"ranked": [4, 9, 6], "gold": [4, 6], "sources": [2], "y3": True},
    # C: Y1, no clue retrieved.
    {"ranked": [1, 2], "gold": [7], "sources": [3], "y3": False},
    # D: no gold clue: undiagnosable.
    {"ranked": [1], "gold": [], "sources": [], "y3": True},
    # E: L=9 first, an older round of its session below it: no inversion.
    {"ranked": [9, 7], "gold": [9], "sources": [3], "y3": True},
    # F: an unranked set holding L=5 and stale 4.
    {"ranked": [4, 5], "gold": [5], "sources": [2], "y3": True, "ranked_ok": False},
]


def test_retrieval_access_per_question() -> None:
    result = retrieval_access(evidence(ROWS), k=2)
    np.testing.assert_allclose(result["any_clue"], [1, 1, 0, np.nan, 1, 1])
    np.testing.assert_allclose(result["coverage"], [0.5, 0.5, 0, np.nan, 1, 1])
    np.testing.assert_allclose(result["full_clue"], [0, 0, 0, np.nan, 1, 1])
    # MRR looks at the whole ranking, not only the top K; undefined for an unranked set.
    np.testing.assert_allclose(result["mrr"], [0.5, 1, 0, np.nan, 1, np.nan])


def test_temporal_authority_per_question() -> None:
    result = temporal_authority(evidence(ROWS), k=2)
    np.testing.assert_allclose(result["latest_at_k"], [1, 0, np.nan, np.nan, 1, 1])
    np.testing.assert_allclose(result["latest_miss"], [0, 1, np.nan, np.nan, 0, 0])
    np.testing.assert_allclose(result["rank_inversion"], [1, 0, np.nan, np.nan, 0, np.nan])
    np.testing.assert_allclose(result["stale_dominance"], [1, 1, np.nan, np.nan, 0, np.nan])


def test_run_level_means_and_identities() -> None:
    result = temporal_authority(evidence(ROWS), k=2)
    assert np.nanmean(result["latest_at_k"]) == pytest.approx(0.75)
    assert np.nanmean(result["rank_inversion"]) == pytest.approx(1 / 3)
    assert np.nanmean(result["stale_dominance"]) == pytest.approx(2 / 3)
    defined = ~np.isnan(result["latest_at_k"])
    np.testing.assert_allclose(result["latest_at_k"][defined] + result["latest_miss"][defined], 1.0)
    both = ~np.isnan(result["rank_inversion"]) & ~np.isnan(result["stale_dominance"])
    assert (result["rank_inversion"][both] <= result["stale_dominance"][both]).all()


def test_k_moves_the_cut() -> None:
    ev = evidence(ROWS[:2])
    at_three = temporal_authority(ev, k=3)
    # With K=3, B's latest clue (rank 3) is in, and stale 4 ranks above it: an inversion.
    np.testing.assert_allclose(at_three["latest_at_k"], [1, 1])
    np.testing.assert_allclose(at_three["rank_inversion"], [1, 1])
    at_one = retrieval_access(ev, k=1)
    np.testing.assert_allclose(at_one["any_clue"], [0, 1])


def test_latest_miss_causes_split_pool_and_cut() -> None:
    rows = [
        {"ranked": [4, 9, 6], "gold": [6], "sources": [2], "y3": True},  # in pool below K=2
        {"ranked": [4, 9], "gold": [6], "sources": [2], "y3": True},  # not in pool
        {"ranked": [6], "gold": [6], "sources": [2], "y3": True},  # retrieved
    ]
    assert latest_miss_causes(evidence(rows), k=2) == {"not_in_pool": 1, "in_pool_below_k": 1}


def test_unknown_round_keeps_its_rank() -> None:
    # Position 0 marks a retrieved id the dataset does not know: it still occupies rank 1.
    result = retrieval_access(
        evidence([{"ranked": [0, 7], "gold": [7], "sources": [3], "y3": False}]), k=1
    )
    assert result["any_clue"][0] == 0
    assert result["mrr"][0] == 0.5


def test_correctness_rules() -> None:
    mode = np.array(["mcq", "mcq", "open", "open", "open", "open"])
    em = np.array([1.0, 0.75, 0.0, 1.0, 0.0, np.nan])
    judge = np.array([np.nan, np.nan, 0.5, np.nan, 0.25, np.nan])
    np.testing.assert_array_equal(correctness(mode, em, judge), [1, 0, 1, 1, 0, np.nan])
    np.testing.assert_allclose(answer_score(mode, em, judge), [1.0, 0.75, 0.5, 1.0, 0.25, np.nan])
