"""The engine's fast paths keep their results: length-sorted text batches, the image
decoding pool, the search method picked by size, and the one thread budget.

Text tests use the real packaged all-MiniLM-L6-v2; image tests the tiny random-weight
open_clip (mechanics only). Speed itself is measured in benchmarks/bench_engine.py.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
from typer.testing import CliRunner

from engine.engine_helpers import KITCHEN
from memscope.engine import index as index_module
from memscope.engine import threads
from memscope.engine.index import VectorIndex, blocked_search, brute_force_search, recall_at_k
from memscope.errors import EngineError

WORDS = [
    "kitchen",
    "cabinet",
    "brass",
    "knob",
    "sage",
    "green",
    "paint",
    "swatch",
    "tile",
    "compass",
    "garden",
    "oak",
]
IMAGES = sorted(
    str(p) for p in (KITCHEN.parent.parent / "image" / "Kitchen_Renovation").glob("*.png")
)


def mixed_length_texts() -> list[str]:
    """Texts of 1 to 80 words in a shuffled order, so length-sorting moves every one."""
    rng = np.random.default_rng(5)
    lengths = rng.permutation([1, 80, 3, 45, 12, 60, 2, 33, 7, 70, 20, 5, 50, 9, 1, 27, 64])
    return [" ".join(rng.choice(WORDS, size=int(length))) for length in lengths]


def test_text_rows_come_back_in_input_order_across_mixed_lengths(minilm) -> None:
    texts = mixed_length_texts()
    seen: list[int] = []
    together = minilm.encode(texts, batch_size=4, on_batch=seen.append)
    alone = np.stack([minilm.encode([text])[0] for text in texts])
    assert np.allclose(together, alone, atol=1e-5)
    # and the rows are not merely close to each other: each is nearest to its own text
    assert (np.argmax(together @ alone.T, axis=1) == np.arange(len(texts))).all()
    assert sum(seen) == len(texts) and max(seen) <= 4 and len(seen) == 5


def test_text_progress_adds_up_even_when_no_batch_is_reported(minilm, monkeypatch) -> None:
    """A library version that bypasses forward hooks still completes the progress bar."""
    monkeypatch.setattr(minilm.model, "register_forward_hook", lambda hook: _NoHook())
    seen: list[int] = []
    minilm.encode(["one", "two words", "three words here"], on_batch=seen.append)
    assert seen == [3]


class _NoHook:
    def remove(self) -> None:
        pass


def test_images_are_decoded_in_the_pool_while_the_model_encodes(tiny_clip, monkeypatch) -> None:
    """The model waits, inside its first batch, for the pool to decode the second batch."""
    paths = IMAGES[:4]
    decoded_by: list[str] = []
    second_batch_decoded = threading.Event()
    load, encode = tiny_clip._load, tiny_clip.encode_tensors

    def recording_load(path: str):
        decoded_by.append(threading.current_thread().name)
        loaded = load(path)
        if path in paths[2:]:
            second_batch_decoded.set()
        return loaded

    overlapped: list[bool] = []

    def waiting_encode(batch):
        if not overlapped:  # the first batch: the next one must be decoding meanwhile
            overlapped.append(second_batch_decoded.wait(timeout=10))
        return encode(batch)

    with monkeypatch.context() as patch:  # undo only these patches, not the test's isolation
        patch.setattr(tiny_clip, "_load", recording_load)
        patch.setattr(tiny_clip, "encode_tensors", waiting_encode)
        result = tiny_clip.encode_images(paths, batch_size=2)
    assert overlapped == [True]
    assert all(name.startswith("memscope-decode") for name in decoded_by)
    singles = np.stack([tiny_clip.encode_images([path]).vectors[0] for path in paths])
    assert np.allclose(result.vectors, singles, atol=1e-5)


def test_an_unreadable_image_between_batches_keeps_the_other_rows_in_place(
    tiny_clip, tmp_path
) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not a png")
    paths = [IMAGES[0], IMAGES[1], str(broken), IMAGES[2], IMAGES[3]]
    seen: list[int] = []
    result = tiny_clip.encode_images(paths, batch_size=2, on_batch=seen.append)
    assert set(result.failed) == {2} and seen == [2, 2, 1]
    assert not result.vectors[2].any()
    for row in (0, 1, 3, 4):
        assert np.allclose(result.vectors[row], tiny_clip.encode_images([paths[row]]).vectors[0])


def unit(rows: int, dim: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((rows, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_the_blocked_numpy_search_is_the_plain_one(monkeypatch) -> None:
    bank, queries = unit(1000, 16, 1), unit(23, 16, 2)
    ids = np.arange(1000, dtype=np.int64) * 5 + 1
    monkeypatch.setattr(index_module, "BANK_BLOCK", 96)  # 11 blocks, the last one short
    monkeypatch.setattr(index_module, "QUERY_BLOCK", 7)
    scores, found = blocked_search(bank, queries, 10, ids)
    plain_scores, plain_found = brute_force_search(bank, queries, 10, ids)
    assert np.array_equal(found, plain_found)
    assert np.allclose(scores, plain_scores, atol=1e-6)


def test_auto_searches_exactly_until_a_million_vectors() -> None:
    assert index_module.choose_method(10) == "exact"
    assert index_module.choose_method(999_999) == "exact"
    assert index_module.choose_method(1_000_000) == "ivf"
    assert index_module.choose_method(10, "faiss-flat") == "faiss-flat"
    assert VectorIndex(unit(50, 8, 3)).method == "exact"
    with pytest.raises(ValueError, match="unknown search method"):
        VectorIndex(unit(50, 8, 3), method="hnsw")  # type: ignore[arg-type]


def test_the_ivf_index_reaches_its_recall_target_and_returns_the_callers_ids() -> None:
    rng = np.random.default_rng(4)
    centres = unit(40, 32, 5)
    bank = centres[rng.integers(0, 40, 6000)] + 0.15 * rng.standard_normal((6000, 32))
    bank = (bank / np.linalg.norm(bank, axis=1, keepdims=True)).astype(np.float32)
    ids = np.arange(6000, dtype=np.int64) + 10_000
    ivf = VectorIndex(bank, ids, method="ivf")
    assert ivf.recall_at_10 is not None and ivf.recall_at_10 >= index_module.TARGET_RECALL
    queries = bank[:50] + 0.05 * rng.standard_normal((50, 32)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    scores, found = ivf.search(queries, 10)
    truth = VectorIndex(bank, ids, method="exact").search(queries, 10)[1]
    assert recall_at_k(found, truth) >= 0.9
    assert found.min() >= 10_000 and (np.diff(scores, axis=1) <= 1e-6).all()


def test_recall_at_k_counts_shared_ids() -> None:
    assert recall_at_k(np.array([[1, 2, 3]]), np.array([[3, 2, 9]])) == pytest.approx(2 / 3)


def test_the_thread_budget_comes_from_the_cpu_count_or_threads() -> None:
    assert threads.plan_threads(None, cpus=8).compute == 8
    assert threads.plan_threads(3, cpus=8).compute == 3
    two = threads.plan_threads(None, cpus=2)
    assert two.decoder_threads(on_gpu=False) == 1 and two.decoder_threads(on_gpu=True) == 2
    big = threads.plan_threads(None, cpus=64)
    assert big.decoder_threads(on_gpu=False) == 8 and big.decoder_threads(on_gpu=True) == 8
    with pytest.raises(EngineError, match="--threads"):
        threads.plan_threads(0)


def test_one_budget_reaches_torch_blas_and_faiss(minilm) -> None:
    import faiss
    import torch
    from threadpoolctl import threadpool_info

    before = threads.thread_budget().requested
    try:
        threads.set_thread_budget(1)
        minilm.encode(["a"])  # torch applies the budget on the next encode
        VectorIndex(unit(20, 4, 6), method="faiss-flat").search(unit(1, 4, 7), 2)
        assert torch.get_num_threads() == 1
        assert faiss.omp_get_max_threads() == 1
        assert all(
            pool["num_threads"] == 1 for pool in threadpool_info() if pool["user_api"] == "blas"
        )
    finally:
        threads.set_thread_budget(before)
    assert torch.get_num_threads() == threads.thread_budget().compute


def test_cli_engine_commands_take_threads(seeded_store, minilm) -> None:
    from memscope.cli import app

    runner = CliRunner()
    before = threads.thread_budget().requested
    try:
        result = runner.invoke(app, ["search", str(KITCHEN), "brass knob", "--threads", "1"])
        assert result.exit_code == 0, result.output
        assert "K1:3" in result.stdout and threads.thread_budget().compute == 1
    finally:
        threads.set_thread_budget(before)
    refused = runner.invoke(app, ["search", str(KITCHEN), "brass knob", "--threads", "0"])
    assert refused.exit_code != 0 and "--threads" in refused.output
