"""The recency re-ranking probe on hand-computed pools: arithmetic, ties, partial scores,
clues outside the pool, all-stale pools, and the pipeline's per-question and run views."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from builders import dialog, open_row, qa, write_run
from memscope.adapters import ReadOptions
from memscope.analysis.evidence import EvidenceSet, latest_miss_causes, temporal_authority
from memscope.analysis.rerank import candidate_ages, recency_order, take_rows
from memscope.errors import InputError, NotFoundError
from memscope.usecases.rerun.question_rerank import rerun_question
from memscope.usecases.rerun.run_rerank import rerun_run
from memscope.usecases.rerun.saved import list_reruns, store_rerun
from memscope.usecases.runs.ingest import ingest_dir
from memscope.usecases.runs.loading import load_run

NAN = np.nan


def order_of(
    sims: list[float], positions: list[int], alpha: float, lam: float, n_rounds: int = 10
) -> list[int]:
    """recency_order on one row, with padding (-1) where positions say so."""
    pos = np.array([positions])
    ages = candidate_ages(pos, n_rounds)
    return recency_order(np.array([sims], dtype=float), ages, pos != -1, alpha, lam)[0].tolist()


def test_scores_follow_the_formula() -> None:
    # N = 10; positions 2, 9, 5, 7 -> ages 8, 1, 5, 3.
    # alpha = 0.5, lambda = 0.1: recency = e^-0.8 = 0.4493, e^-0.1 = 0.9048, e^-0.5 = 0.6065, e^-0.3 = 0.7408
    # s = 0.5 sim + 0.5 recency = 0.6747, 0.7524, 0.7033, 0.7204 -> order 2nd, 4th, 3rd, 1st.
    assert order_of([0.9, 0.6, 0.8, 0.7], [2, 9, 5, 7], alpha=0.5, lam=0.1) == [1, 3, 2, 0]
    # alpha = 1 ranks by similarity alone; alpha = 0 by recency alone (the newest first).
    assert order_of([0.9, 0.6, 0.8, 0.7], [2, 9, 5, 7], alpha=1.0, lam=0.1) == [0, 2, 3, 1]
    assert order_of([0.9, 0.6, 0.8, 0.7], [2, 9, 5, 7], alpha=0.0, lam=0.1) == [1, 3, 2, 0]


def test_a_small_weight_shift_flips_a_close_pair() -> None:
    # ages 8 and 1; sims 0.80 and 0.75. alpha = 0.9, lambda = 0.02:
    # s0 = 0.72 + 0.1 e^-0.16 = 0.72 + 0.08521 = 0.80521; s1 = 0.675 + 0.1 e^-0.02 = 0.675 + 0.09802 = 0.77302.
    assert order_of([0.80, 0.75], [2, 9], alpha=0.9, lam=0.02) == [0, 1]
    # alpha = 0.5: s0 = 0.40 + 0.5 * 0.85214 = 0.82607; s1 = 0.375 + 0.5 * 0.98020 = 0.86510 -> flipped.
    assert order_of([0.80, 0.75], [2, 9], alpha=0.5, lam=0.02) == [1, 0]


def test_ties_keep_the_original_rank() -> None:
    assert order_of([0.5, 0.7, 0.7, 0.5], [1, 2, 3, 4], alpha=1.0, lam=0.02) == [1, 2, 0, 3]
    # lambda = 0 makes every recency term 1: with alpha = 0 everything ties.
    assert order_of([0.1, 0.9, 0.5], [1, 2, 3], alpha=0.0, lam=0.0) == [0, 1, 2]


def test_unscored_candidates_keep_their_slots() -> None:
    # MemEye: scores for the first ranks only; those are re-ranked among themselves.
    assert order_of([0.5, 0.9, NAN, NAN], [1, 2, 3, 4], alpha=1.0, lam=0.02) == [1, 0, 2, 3]
    # Scored candidates are permuted among the slots they hold, wherever those are.
    assert order_of([NAN, 0.3, NAN, 0.9], [1, 2, 3, 4], alpha=1.0, lam=0.02) == [0, 3, 2, 1]
    # No score at all: nothing moves.
    assert order_of([NAN, NAN, NAN], [3, 2, 1], alpha=0.0, lam=0.02) == [0, 1, 2]


def test_unknown_rounds_and_padding_keep_their_place() -> None:
    # Position 0 = a round unknown to the dataset: no age, so it keeps rank 2.
    assert order_of([0.1, 0.99, 0.5], [1, 0, 9], alpha=0.0, lam=0.02) == [2, 1, 0]
    # Padding (-1) stays last even with a NaN-free similarity.
    assert order_of([0.1, 0.9, 0.0], [1, 2, -1], alpha=1.0, lam=0.02) == [1, 0, 2]


def test_vectorised_rows_equal_a_per_question_loop() -> None:
    rng = np.random.default_rng(7)
    n, width, n_rounds = 300, 12, 80
    positions = rng.integers(0, n_rounds + 1, size=(n, width))
    lengths = rng.integers(0, width + 1, size=n)
    positions[np.arange(width)[None, :] >= lengths[:, None]] = -1
    sims = np.round(rng.random((n, width)), 2)  # rounding makes ties common
    sims[rng.random((n, width)) < 0.3] = np.nan
    ages = candidate_ages(positions, n_rounds)
    valid = positions != -1
    for alpha, lam in ((0.7, 0.02), (0.0, 0.1), (1.0, 0.0), (0.3, 0.5)):
        order = recency_order(sims, ages, valid, alpha, lam)
        for i in range(n):
            movable = [
                j
                for j in range(width)
                if valid[i, j] and not math.isnan(sims[i, j]) and not math.isnan(ages[i, j])
            ]
            score = {
                j: alpha * sims[i, j] + (1 - alpha) * math.exp(-lam * ages[i, j]) for j in movable
            }
            expected = list(range(width))
            for slot, j in zip(movable, sorted(movable, key=lambda j: (-score[j], j)), strict=True):
                expected[slot] = j
            assert order[i].tolist() == expected, (i, alpha, lam)


# Three sessions of three rounds: S1 = positions 1-3, S2 = 4-6, S3 = 7-9 (N = 9).
def pool(rows: list[dict]) -> tuple[EvidenceSet, np.ndarray]:
    width = max(len(row["ranked"]) for row in rows)

    def pad(values: list[int], fill: float = -1) -> list[float]:
        return values + [fill] * (width - len(values))

    ranked = np.array([pad(row["ranked"]) for row in rows], dtype=np.int64)
    gold_width = max(len(row["gold"]) for row in rows)
    ev = EvidenceSet(
        ranked_pos=ranked,
        ranked_session=np.where(ranked > 0, (ranked - 1) // 3 + 1, -1),
        gold_pos=np.array(
            [sorted(row["gold"]) + [-1] * (gold_width - len(row["gold"])) for row in rows],
            dtype=np.int64,
        ),
        source_sessions=np.array([row["sources"] for row in rows], dtype=np.int64),
        has_ranking=np.ones(len(rows), dtype=bool),
        asks_latest=np.ones(len(rows), dtype=bool),
    )
    sims = np.array([pad(row["sims"], NAN) for row in rows], dtype=float)
    return ev, sims


def rerank(ev: EvidenceSet, sims: np.ndarray, alpha: float, lam: float = 0.02) -> EvidenceSet:
    order = recency_order(sims, candidate_ages(ev.ranked_pos, 9), ev.ranked_pos != -1, alpha, lam)
    return ev.reordered(order)


def test_recency_moves_the_latest_clue_into_the_top_k() -> None:
    # L = 8 (S3) at rank 3 under stale 2 (S1) and 4 (S2, not a source session); K = 2.
    ev, sims = pool(
        [{"ranked": [2, 4, 8], "gold": [2, 8], "sources": [1, 3], "sims": [0.80, 0.78, 0.75]}]
    )
    before = temporal_authority(ev, 2)
    assert before["latest_at_k"][0] == 0 and before["stale_dominance"][0] == 1
    # alpha = 0.5: s = 0.5 (0.80 + e^-0.14), 0.5 (0.78 + e^-0.10), 0.5 (0.75 + e^-0.02)
    #            = 0.8347, 0.8424, 0.8651 -> 8, 4, 2.
    after = rerank(ev, sims, 0.5)
    assert after.ranked_pos[0].tolist() == [8, 4, 2]
    values = temporal_authority(after, 2)
    assert (
        values["latest_at_k"][0] == 1
        and values["rank_inversion"][0] == 0
        and values["stale_dominance"][0] == 0
    )
    # A larger alpha keeps the similarity order: nothing changes.
    assert rerank(ev, sims, 0.95).ranked_pos[0].tolist() == [2, 4, 8]


def test_a_clue_outside_the_pool_never_comes_back() -> None:
    ev, sims = pool(
        [{"ranked": [2, 4, 5], "gold": [2, 8], "sources": [1, 3], "sims": [0.9, 0.8, 0.7]}]
    )
    for alpha in (1.0, 0.5, 0.0):
        after = rerank(ev, sims, alpha)
        assert temporal_authority(after, 2)["latest_miss"][0] == 1
        assert latest_miss_causes(after, 2) == {"not_in_pool": 1, "in_pool_below_k": 0}


def test_an_all_stale_pool_stays_stale_dominated() -> None:
    # L = 9 is not retrieved; every candidate is an older round of a source session.
    ev, sims = pool(
        [{"ranked": [1, 3, 7], "gold": [1, 9], "sources": [1, 3], "sims": [0.5, 0.6, 0.7]}]
    )
    for alpha in (1.0, 0.5, 0.0):
        values = temporal_authority(rerank(ev, sims, alpha), 2)
        assert values["stale_dominance"][0] == 1 and values["latest_at_k"][0] == 0


def test_take_rows_permutes_each_row() -> None:
    matrix = np.array([[10, 20, 30], [40, 50, 60]])
    assert take_rows(matrix, np.array([[2, 0, 1], [0, 1, 2]])).tolist() == [
        [30, 10, 20],
        [40, 50, 60],
    ]


# --- the pipeline on a real store ------------------------------------------------------

SESSIONS = {
    "S1": ["S1:1", "S1:2", "S1:3"],
    "S2": ["S2:1", "S2:2", "S2:3"],
    "S3": ["S3:1", "S3:2", "S3:3"],
}


def rerank_run_dir(tmp_path: Path) -> Path:
    data = dialog(
        SESSIONS,
        [
            qa(
                "Which lamp is on the desk now?",
                "the green one",
                [["X2"], ["Y3"]],
                ["S1:2", "S3:2"],
                ["S1", "S3"],
            ),
            qa("What colour is the sofa?", "grey", [["X1"], ["Y1"]], ["S2:1"], ["S2"]),
            qa("Where are the keys now?", "hook", [["X3"], ["Y3"]], ["S1:1", "S2:3"], ["S1", "S2"]),
        ],
    )
    rows = [
        # MemEye logs five scores: S3:3 at rank 6 has none and keeps its rank.
        open_row(
            1,
            data,
            seed=["S1:2", "S2:1", "S3:2", "S1:1", "S2:2", "S3:3"],
            scores=[0.80, 0.78, 0.75, 0.5, 0.4],
        ),
        open_row(2, data, em=1.0, judge=1.0, seed=["S2:1", "S1:1"], scores=[0.9, 0.3]),
        open_row(3, data, seed=["S1:1", "S2:2", "S2:3"], scores=[0.9, 0.6, 0.55]),
    ]
    return write_run(tmp_path / "runs" / "srag", data, rows, top_k=2)


@pytest.fixture
def rerank_data(store, tmp_path: Path):
    outcome = ingest_dir(store, rerank_run_dir(tmp_path), ReadOptions())
    return load_run(store, outcome.run_id)


def test_question_before_and_after(rerank_data) -> None:
    result = rerun_question(rerank_data, "q1", alpha=0.5)
    assert result.before.ranking == ["S1:2", "S2:1", "S3:2", "S1:1", "S2:2", "S3:3"]
    # ages (N = 9): S1:2 7, S2:1 5, S3:2 1, S1:1 8, S2:2 4; s = 0.5 sim + 0.5 e^(-0.02 age)
    # = 0.8347, 0.8424, 0.8651, 0.6761, 0.6616 -> S3:2, S2:1, S1:2, S1:1, S2:2; S3:3 stays 6th.
    assert result.after.ranking == ["S3:2", "S2:1", "S1:2", "S1:1", "S2:2", "S3:3"]
    top = result.after.rows[0]
    assert (top.round_id, top.session_id, top.age, top.original_rank) == ("S3:2", "S3", 1, 3)
    assert top.recency == pytest.approx(math.exp(-0.02))
    assert top.score == pytest.approx(0.5 * 0.75 + 0.5 * math.exp(-0.02))
    assert top.is_gold and top.is_latest and not top.is_stale and top.in_top_k
    stale = result.after.rows[2]
    assert stale.round_id == "S1:2" and stale.is_stale and stale.is_gold and not stale.in_top_k
    last = result.after.rows[-1]
    assert last.round_id == "S3:3" and last.sim is None and last.score is None and last.age == 0
    assert (
        result.before.metrics["latest_at_k"] == 0 and result.before.metrics["stale_dominance"] == 1
    )
    assert result.after.metrics["latest_at_k"] == 1 and result.after.metrics["stale_dominance"] == 0
    assert result.after.metrics["mrr"] == 1.0 and result.before.metrics["mrr"] == 1.0
    assert (result.scored_count, result.pool_size) == (5, 6)
    assert result.note.startswith("5 of 6 candidates have scores; rank 6 keeps its place")
    shape = result.as_dict()
    assert set(shape) >= {"question", "params", "before", "after", "scored", "pool"}
    assert shape["params"] == {"alpha": 0.5, "lambda": 0.02, "k": 2, "pool": None}
    assert shape["before"]["ranking"] == result.before.ranking and "metrics" in shape["after"]


def test_question_pool_and_k(rerank_data) -> None:
    # --pool 2 keeps S1:2 and S2:1: the latest clue S3:2 is outside the pool.
    result = rerun_question(rerank_data, "q1", alpha=0.0, pool=2)
    assert result.after.ranking == ["S2:1", "S1:2"] and result.after.metrics["latest_at_k"] == 0
    wide = rerun_question(rerank_data, "q1", alpha=1.0, k=3)
    assert (
        wide.k == 3
        and wide.after.ranking == wide.before.ranking
        and wide.after.metrics["latest_at_k"] == 1
    )


def test_run_level_rerun(rerank_data) -> None:
    result = rerun_run(rerank_data, [0.5, 0.0], resamples=2000)
    assert result["n"] == 2  # q1 and q3 (Y3); q2 is Y1
    assert [entry["alpha"] for entry in result["results"]] == [1.0, 0.5, 0.0]
    original, half, _ = result["results"]
    # q1: L below K (in pool); q3: L = S2:3 at rank 3 below K=2 (in pool) -> both miss originally.
    assert original["latest_at_k"] == 0.0
    assert original["latest_miss_causes"] == {"not_in_pool": 0, "in_pool_below_k": 2}
    # alpha 0.5, q3: ages S1:1 8, S2:2 4, S2:3 3: s = 0.5 (0.9 + 0.8521) = 0.8761, 0.5 (0.6 + 0.9231) = 0.7616,
    # 0.5 (0.55 + 0.9418) = 0.7459 -> unchanged: still a miss. q1 is fixed.
    assert half["latest_at_k"] == 0.5 and half["latest_miss_causes"]["in_pool_below_k"] == 1
    assert half["delta"]["latest_at_k"]["mean"] == pytest.approx(0.5)
    assert (
        half["delta"]["latest_at_k"]["ci_low"] == 0.0
        and half["delta"]["latest_at_k"]["ci_high"] == 1.0
    )
    assert set(half["delta"]) == {"latest_at_k", "latest_miss", "rank_inversion", "stale_dominance"}
    assert result["scored"]["questions_partly_scored"] == 1
    assert any("only the scored candidates are re-ranked" in note for note in result["notes"])
    again = rerun_run(rerank_data, [0.5, 0.0], resamples=2000)
    assert again == result  # reproducible for a seed


def test_reruns_are_stored(store, rerank_data) -> None:
    run_id = rerank_data.run.run_id
    first = store_rerun(store, run_id, rerun_run(rerank_data, [0.7], resamples=100))
    second = store_rerun(store, run_id, rerun_question(rerank_data, "q1", alpha=0.7).as_dict())
    listed = list_reruns(store, run_id)
    assert [item["rerun_id"] for item in listed] == [second, first]
    assert listed[0]["kind"] == "question" and listed[1]["params"]["alphas"] == [0.7]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"alpha": 1.5}, "--alpha must lie in [0, 1]"),
        ({"alpha": -0.1}, "--alpha must lie in [0, 1]"),
        ({"alpha": 0.5, "lam": -0.1}, "--lambda must be a finite number ≥ 0"),
        ({"alpha": 0.5, "k": 0}, "--k must be at least 1"),
        ({"alpha": 0.5, "k": 3, "pool": 2}, "--pool (2) must be at least --k (3)"),
        ({"alpha": 0.5, "pool": 1}, "--pool (1) must be at least --k (2)"),
    ],
)
def test_bad_parameters(rerank_data, kwargs: dict, message: str) -> None:
    with pytest.raises(
        InputError,
        match=message.replace("(", r"\(")
        .replace(")", r"\)")
        .replace("[", r"\[")
        .replace("]", r"\]"),
    ):
        rerun_question(rerank_data, "q1", **kwargs)


def test_unknown_question_names_the_nearest(rerank_data) -> None:
    with pytest.raises(NotFoundError, match="no question 'q33'") as caught:
        rerun_question(rerank_data, "q33", alpha=0.5)
    assert "Did you mean q3, q2, q1?" in str(caught.value)


def test_runs_without_a_ranking_are_refused(store, tmp_path: Path) -> None:
    data = dialog(SESSIONS, [qa("q?", "a", [["X1"], ["Y3"]], ["S1:1"], ["S1"])])
    outcome = ingest_dir(
        store,
        write_run(
            tmp_path / "runs" / "fc", data, [open_row(1, data)], method="full_context_text_only"
        ),
        ReadOptions(),
    )
    with pytest.raises(
        InputError,
        match=r"logged no ranked retrievals \(full_context_text_only, retrieval: context\): nothing to re-rank",
    ):
        rerun_run(load_run(store, outcome.run_id), [0.5])


def test_pipeline_modules_load_no_front_end() -> None:
    import subprocess
    import sys

    code = (
        "import sys, memscope.usecases.rerun.question_rerank, memscope.usecases.rerun.run_rerank, memscope.usecases.labels.events, memscope.usecases.suggest.rules, "
        "memscope.usecases.compare.pairs, memscope.usecases.labels.export, memscope.taxonomy; "
        "print(','.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    loaded = set(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        .stdout.strip()
        .split(",")
    )
    assert not loaded & {"typer", "rich", "textual", "torch"}


def test_recomputed_scores_are_used_and_named(store, tmp_path: Path) -> None:
    # The memory engine fills the missing similarity of S3:3 (rank 6) in the same table.
    run_id = ingest_dir(store, rerank_run_dir(tmp_path), ReadOptions()).run_id
    with store.write() as con:
        con.execute(
            "UPDATE retrievals SET score = 0.95, origin = 'recomputed' WHERE run_id = ? AND qid = 'q1' AND round_id = 'S3:3'",
            [run_id],
        )
    data = load_run(store, run_id)
    result = rerun_question(data, "q1", alpha=0.99)
    assert result.after.ranking[0] == "S3:3" and result.after.rows[0].origin == "recomputed"
    assert (result.scored_count, result.recomputed_count, result.pool_size) == (6, 1, 6)
    assert (
        result.note == "1 of the scores were recomputed by the memory engine, the rest were logged"
    )
    # alpha = 1.0 is the original order (docs/metrics.md §5), even where the scores disagree.
    original = rerun_question(data, "q1", alpha=1.0)
    assert original.after.ranking == original.before.ranking
    assert original.note.endswith(
        "the logged ranking disagrees with the scores; alpha = 1.0 keeps the logged order"
    )
    summary = rerun_run(data, [0.5], resamples=100)
    assert (
        summary["scored"]["recomputed"] == 1 and summary["scored"]["questions_partly_scored"] == 0
    )
