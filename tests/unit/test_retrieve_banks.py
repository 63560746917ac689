"""Retrieval in a dataset of separate memories (``engine.retrieve.retrieve_in_banks``): each
question is ranked among its own memory's rounds only, with the scores a retriever over that
memory alone computes; numpy vectors, no model."""

from __future__ import annotations

import numpy as np
import pytest

from memscope.engine.retrieve import Bank, MethodSettings, retrieve, retrieve_in_banks


def unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.fixture
def two_memories() -> tuple[Bank, np.ndarray]:
    """Seven rounds: four of memory ``a``, three of ``b``, interleaved; an image on three."""
    generator = np.random.default_rng(7)
    bank = Bank(
        np.array(["a:1", "b:1", "a:2", "a:3", "b:2", "a:4", "b:3"], dtype=object),
        unit(generator.normal(size=(7, 5))).astype(np.float32),
        image_vectors=unit(generator.normal(size=(4, 3))).astype(np.float32),
        image_rounds=np.array([0, 1, 4, 5], dtype=np.int64),
        image_paths=["a1.png", "b1.png", "b2.png", "a4.png"],
    )
    return bank, np.array(["a", "b", "a", "a", "b", "a", "b"], dtype=object)


@pytest.mark.parametrize("method", ["srag_t", "srag_v", "dualmem"])
def test_each_question_is_ranked_within_its_own_memory_as_if_it_were_alone(
    two_memories: tuple[Bank, np.ndarray], method: str
) -> None:
    bank, round_banks = two_memories
    generator = np.random.default_rng(11)
    text_queries = unit(generator.normal(size=(4, 5))).astype(np.float32)
    image_queries = unit(generator.normal(size=(4, 3))).astype(np.float32)
    settings = MethodSettings(method)
    question_banks = np.array(["b", "a", "b", "a"], dtype=object)
    pools = retrieve_in_banks(
        bank, round_banks, question_banks, settings, text_queries, image_queries, 10
    )
    for memory in ("a", "b"):
        rows = np.flatnonzero(question_banks == memory)
        alone = retrieve(
            bank.subset(np.flatnonzero(round_banks == memory)),
            settings,
            text_queries[rows],
            image_queries[rows],
            10,
        )
        for mine, own in zip(rows, range(len(rows)), strict=True):
            size = int(pools.sizes[mine])
            assert size == int(alone.sizes[own]) == (4 if memory == "a" else 3)
            assert all(str(r).startswith(f"{memory}:") for r in pools.round_ids[mine, :size])
            assert pools.round_ids[mine, :size].tolist() == alone.round_ids[own, :size].tolist()
            np.testing.assert_allclose(pools.scores[mine, :size], alone.scores[own, :size])
            assert pools.best_images[mine, :size].tolist() == alone.best_images[own, :size].tolist()
            # padding past the memory's size
            assert pools.round_ids[mine, size:].tolist() == [""] * (pools.round_ids.shape[1] - size)
            assert np.isnan(pools.scores[mine, size:]).all()


def test_a_question_of_no_memory_sees_the_whole_bank_and_an_unknown_memory_nothing(
    two_memories: tuple[Bank, np.ndarray],
) -> None:
    bank, round_banks = two_memories
    queries = unit(np.random.default_rng(3).normal(size=(2, 5))).astype(np.float32)
    settings = MethodSettings("srag_t")
    pools = retrieve_in_banks(
        bank, round_banks, np.array(["", "c"], dtype=object), settings, queries, None, 5
    )
    whole = retrieve(bank, settings, queries[:1], None, 5)
    assert pools.round_ids[0].tolist() == whole.round_ids[0].tolist()
    assert int(pools.sizes[1]) == 0 and pools.round_ids[1].tolist() == [""] * 5


def test_a_subset_keeps_its_rounds_images_and_their_paths(
    two_memories: tuple[Bank, np.ndarray],
) -> None:
    bank, round_banks = two_memories
    part = bank.subset(np.flatnonzero(round_banks == "b"))
    assert part.round_ids.tolist() == ["b:1", "b:2", "b:3"]
    assert part.image_rounds.tolist() == [0, 1] and part.image_paths == ["b1.png", "b2.png"]
    assert part.image_vectors is not None
    np.testing.assert_array_equal(part.image_vectors, bank.image_vectors[[1, 2]])
