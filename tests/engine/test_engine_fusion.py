"""Retrieval formulas on a hand-computed bank, and FAISS against brute-force numpy.

The bank is four rounds with 2-D unit vectors, so every cosine below can be checked by
hand: rounds at angles 0, 90, 180 and 45 degrees; the query points at 0 degrees.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from memscope.engine import fusion
from memscope.engine.index import VectorIndex, brute_force_search
from memscope.engine.retrieve import Bank, MethodSettings, retrieve, score_bank
from memscope.errors import InputError

S = math.sqrt(0.5)
ROUND_IDS = np.array(["D1:1", "D1:2", "D2:1", "D2:2"], dtype=object)
TEXT = np.array(
    [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [S, S]], dtype=np.float32
)  # cos with query: 1, 0, -1, 0.7071
QUERY = np.array([[1.0, 0.0]], dtype=np.float32)
# Images: D1:1 has one at 90°, D1:2 two (180° then 0°), D2:1 none, D2:2 one at 45°.
IMAGES = np.array([[0.0, 1.0], [-1.0, 0.0], [1.0, 0.0], [S, S]], dtype=np.float32)
IMAGE_ROUNDS = np.array([0, 1, 1, 3])
IMAGE_QUERY = np.array([[1.0, 0.0]], dtype=np.float32)


def bank() -> Bank:
    return Bank(ROUND_IDS, TEXT, IMAGES, IMAGE_ROUNDS, ["a.png", "b.png", "c.png", "d.png"])


def test_cosines_are_computed_in_float64_and_zero_vectors_score_zero() -> None:
    cosines = fusion.cosine_matrix(QUERY, np.vstack([TEXT, np.zeros((1, 2), np.float32)]))
    assert cosines.dtype == np.float64
    assert np.allclose(cosines[0], [1.0, 0.0, -1.0, S, 0.0])


def test_srag_t_scores_are_the_text_cosines() -> None:
    channels = score_bank(bank(), MethodSettings("srag_t"), QUERY, None)
    assert np.allclose(channels.fused[0], [1.0, 0.0, -1.0, S])
    assert np.isnan(channels.image).all()


def test_srag_v_adds_weighted_text_and_best_image_with_memeye_floor() -> None:
    channels = score_bank(bank(), MethodSettings("srag_v", 0.5, 0.5), QUERY, IMAGE_QUERY)
    # Best image per round, floored at 0: D1:1 max(0, 0)=0; D1:2 max(0,-1,1)=1; D2:1 none=0; D2:2 0.7071.
    assert np.allclose(channels.image[0], [0.0, 1.0, 0.0, S])
    assert np.allclose(channels.fused[0], [0.5, 0.5, -0.5, S])
    assert channels.best_image[0].tolist() == [
        0,
        2,
        -1,
        3,
    ]  # ties (0 >= 0) go to the image: MemEye's ">="


def test_srag_v_weights_are_configurable() -> None:
    channels = score_bank(bank(), MethodSettings("srag_v", 0.25, 0.75), QUERY, IMAGE_QUERY)
    assert np.allclose(channels.fused[0], [0.25, 0.75, -0.25, S])


def test_dualmem_min_max_normalises_each_channel_then_fuses() -> None:
    channels = score_bank(bank(), MethodSettings("dualmem", visual_weight=0.75), QUERY, IMAGE_QUERY)
    # text 1, 0, -1, .7071 → (x+1)/2 = 1, .5, 0, .8536; visual (no floor) 0, 1, none, .7071 → 0, 1, 0, .7071
    text_hat = np.array([1.0, 0.5, 0.0, (S + 1) / 2])
    visual_hat = np.array([0.0, 1.0, 0.0, S])
    assert np.allclose(channels.fused[0], 0.75 * visual_hat + 0.25 * text_hat)
    assert np.isnan(channels.image[0, 2])  # D2:1 has no image: no visual score, normalised 0


def test_minmax_of_a_constant_channel_is_zero() -> None:
    assert np.array_equal(fusion.minmax(np.array([[0.3, 0.3, 0.3]])), np.zeros((1, 3)))


def test_minmax_ignores_missing_values_and_an_all_missing_row_is_zero() -> None:
    values = np.array([[np.nan, 2.0, 4.0], [np.nan, np.nan, np.nan], [5.0, np.nan, 5.0]])
    assert np.allclose(fusion.minmax(values), [[0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])


def test_dualmem_with_a_constant_visual_channel_ranks_by_text_alone() -> None:
    text = np.array([[0.2, 0.9, 0.5]])
    visual = np.full((1, 3), 0.4)
    assert np.allclose(
        fusion.dualmem(text, visual, 0.75), 0.25 * np.array([0.0, 1.0, (0.5 - 0.2) / 0.7])
    )


def test_ranking_breaks_ties_by_round_id_like_memeye() -> None:
    order = fusion.rank_order(
        np.array([[0.5, 0.9, 0.5, 0.9]]), np.array(["b", "z", "a", "c"], dtype=object)
    )
    assert order[0].tolist() == [3, 1, 2, 0]  # 0.9: c before z; 0.5: a before b


def test_nan_scores_rank_last() -> None:
    order = fusion.rank_order(
        np.array([[np.nan, 0.1, 0.2]]), np.array(["a", "b", "c"], dtype=object)
    )
    assert order[0].tolist() == [2, 1, 0]


def test_pools_keep_every_channel_and_respect_pool_size_and_empty_queries() -> None:
    queries = np.vstack([QUERY, QUERY])
    pools = retrieve(
        bank(),
        MethodSettings("srag_v"),
        queries,
        np.vstack([IMAGE_QUERY, IMAGE_QUERY]),
        3,
        has_query=np.array([True, False]),
    )
    assert pools.sizes.tolist() == [3, 0]
    entries = pools.pool(0)
    # fused: D1:1 .5, D1:2 .5, D2:1 -.5, D2:2 .7071 → D2:2, then the tie D1:1 < D1:2 by id
    assert [e["round_id"] for e in entries] == ["D2:2", "D1:1", "D1:2"]
    assert [e["rank"] for e in entries] == [1, 2, 3]
    assert entries[0]["text_score"] == pytest.approx(S) and entries[0][
        "image_score"
    ] == pytest.approx(S)
    assert pools.pool(1) == []


def test_pools_of_many_questions_are_chunked_consistently(monkeypatch: pytest.MonkeyPatch) -> None:
    from memscope.engine import retrieve as retrieve_module

    rng = np.random.default_rng(3)
    queries = rng.standard_normal((7, 2)).astype(np.float32)
    whole = retrieve(bank(), MethodSettings("srag_t"), queries, None, 4)
    monkeypatch.setattr(retrieve_module, "QUESTION_CHUNK", 2)
    chunked = retrieve(bank(), MethodSettings("srag_t"), queries, None, 4)
    assert np.array_equal(whole.round_ids, chunked.round_ids)
    assert np.allclose(whole.scores, chunked.scores)


def test_method_settings_refuse_unknown_methods_and_bad_weights() -> None:
    with pytest.raises(InputError, match="unknown retrieval method"):
        MethodSettings("bm25")
    with pytest.raises(InputError, match="visual-weight"):
        MethodSettings("dualmem", visual_weight=1.5)
    assert not MethodSettings("srag_v", 1.0, 0.0).uses_images
    assert (
        MethodSettings("srag_v").text_kind == "round_dialogue"
        and MethodSettings("srag_t").text_kind == "round_text"
    )


@pytest.mark.parametrize("method", ["faiss-flat", "exact", "auto"])
@pytest.mark.parametrize(("n", "k"), [(1000, 10), (257, 300), (50, 1)])
def test_faiss_ranks_like_brute_force_numpy(n: int, k: int, method: str) -> None:
    rng = np.random.default_rng(n)
    vectors = rng.standard_normal((n, 48)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = vectors[:9] + 0.05 * rng.standard_normal((9, 48)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    ids = np.arange(n, dtype=np.int64) * 7 + 3
    faiss_scores, faiss_ids = VectorIndex(vectors, ids, method=method).search(queries, k)
    numpy_scores, numpy_ids = brute_force_search(vectors, queries, k, ids)
    assert np.array_equal(faiss_ids, numpy_ids)
    finite = np.isfinite(numpy_scores)
    assert np.array_equal(finite, np.isfinite(faiss_scores))
    assert np.allclose(faiss_scores[finite], numpy_scores[finite], atol=1e-5)
    if k > n:
        assert (faiss_ids[:, n:] == -1).all()


@pytest.mark.parametrize("method", ["faiss-flat", "exact"])
def test_an_empty_index_and_a_wrong_dimension(method: str) -> None:
    empty = VectorIndex(np.zeros((0, 4), np.float32), method=method)
    assert len(empty) == 0
    scores, ids = empty.search(np.ones((2, 4), np.float32), 3)
    assert (ids == -1).all() and np.isneginf(scores).all()
    with pytest.raises(ValueError, match="dimension"):
        VectorIndex(np.eye(4, dtype=np.float32), method=method).search(
            np.ones((1, 3), np.float32), 2
        )
