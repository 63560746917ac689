"""Encoders: shapes, unit length, determinism, batching, offline model sources.

Text tests use the real packaged all-MiniLM-L6-v2. Image tests use a tiny open_clip
architecture with random weights: they check mechanics only, never retrieval quality.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.engine_helpers import KITCHEN, TINY_CLIP_CONFIG
from memscope.engine.models import (
    DEFAULT_TEXT_MODEL,
    packaged_minilm_dir,
    resolve_image_model,
    resolve_text_model,
)
from memscope.errors import EngineError

SENTENCES = [
    "a brass compass on the shelf",
    "sage green walls",
    "",
    "The cabinet doors arrived today.",
    "42",
]
IMAGES = sorted(
    str(p) for p in (KITCHEN.parent.parent / "image" / "Kitchen_Renovation").glob("*.png")
)


def test_the_default_text_model_is_the_packaged_minilm() -> None:
    source = resolve_text_model(None)
    assert source.path == packaged_minilm_dir() and source.label == DEFAULT_TEXT_MODEL
    assert resolve_text_model("sentence-transformers/all-MiniLM-L6-v2").model_id == source.model_id
    assert resolve_text_model(str(source.path)).model_id == source.model_id  # identified by content


def test_minilm_vectors_are_unit_float32_rows(minilm) -> None:
    vectors = minilm.encode(SENTENCES)
    assert vectors.shape == (len(SENTENCES), 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_minilm_is_deterministic_and_batch_size_does_not_matter(minilm) -> None:
    first = minilm.encode(SENTENCES, batch_size=64)
    again = minilm.encode(SENTENCES, batch_size=64)
    one_by_one = minilm.encode(SENTENCES, batch_size=1)
    assert np.array_equal(first, again)
    assert np.allclose(first, one_by_one, atol=1e-5)


def test_minilm_reports_each_batch(minilm) -> None:
    seen: list[int] = []
    minilm.encode(SENTENCES, batch_size=2, on_batch=seen.append)
    assert seen == [2, 2, 1]


def test_minilm_puts_related_sentences_closer(minilm) -> None:
    """Real weights: a paraphrase is nearer than an unrelated sentence."""
    anchor, paraphrase, unrelated = minilm.encode(
        ["paint colour for the walls", "which wall paint shade", "a brass compass"]
    )
    assert anchor @ paraphrase > anchor @ unrelated


def test_a_missing_text_model_folder_says_what_to_pass(tmp_path: Path) -> None:
    with pytest.raises(EngineError) as caught:
        resolve_text_model(str(tmp_path / "nowhere"))
    assert "--text-model" in caught.value.message and "never downloads" in caught.value.message


def test_an_uncached_text_model_name_is_not_downloaded() -> None:
    with pytest.raises(EngineError, match="is not on this machine"):
        resolve_text_model("no-such-org/no-such-model-xyz")


def test_a_folder_that_is_not_a_model_is_refused(tmp_path: Path) -> None:
    with pytest.raises(EngineError, match="not a sentence-transformers model folder"):
        resolve_text_model(str(tmp_path))


def test_missing_siglip_weights_give_one_message_naming_the_options() -> None:
    try:
        resolve_image_model(None, None)
    except EngineError as error:
        message = error.message
    else:
        pytest.skip("SigLIP-2 weights are in this machine's cache")
    assert "ViT-B-16-SigLIP2-384" in message
    for option in ("--image-model", "--image-pretrained", "[engine]"):
        assert option in message


def test_an_unknown_open_clip_name_suggests_close_ones() -> None:
    with pytest.raises(EngineError, match="Did you mean"):
        resolve_image_model("ViT-B-16-SigLIP2-38", "webli")


def test_a_tag_the_model_does_not_have_is_refused() -> None:
    with pytest.raises(EngineError, match="neither a checkpoint file nor a pretrained tag"):
        resolve_image_model("ViT-B-16-SigLIP2-384", "no-such-tag")


def test_random_weights_need_an_integer_seed() -> None:
    with pytest.raises(EngineError, match="integer seed"):
        resolve_image_model(str(TINY_CLIP_CONFIG), "random:abc")


def test_a_local_checkpoint_is_identified_by_its_content(
    tiny_clip_checkpoint: Path, tmp_path: Path
) -> None:
    first = resolve_image_model(str(TINY_CLIP_CONFIG), str(tiny_clip_checkpoint))
    copy = tmp_path / "copy.pt"
    copy.write_bytes(tiny_clip_checkpoint.read_bytes())
    assert (
        resolve_image_model(str(TINY_CLIP_CONFIG), str(copy)).model_id.split("@")[1]
        == first.model_id.split("@")[1]
    )
    copy.write_bytes(tiny_clip_checkpoint.read_bytes()[:-4] + b"\0\0\0\1")
    assert resolve_image_model(str(TINY_CLIP_CONFIG), str(copy)).model_id != first.model_id


def test_random_weight_clip_image_vectors_are_unit_rows(tiny_clip) -> None:
    result = tiny_clip.encode_images(IMAGES, batch_size=3)
    assert result.vectors.shape == (len(IMAGES), 32) and result.vectors.dtype == np.float32
    assert result.failed == {}
    assert np.allclose(np.linalg.norm(result.vectors, axis=1), 1.0, atol=1e-5)


def test_random_weight_clip_is_deterministic_across_batch_sizes(tiny_clip) -> None:
    one_batch = tiny_clip.encode_images(IMAGES, batch_size=len(IMAGES)).vectors
    singles = tiny_clip.encode_images(IMAGES, batch_size=1).vectors
    assert np.allclose(one_batch, singles, atol=1e-5)
    assert np.array_equal(
        one_batch, tiny_clip.encode_images(IMAGES, batch_size=len(IMAGES)).vectors
    )


def test_random_weight_clip_reports_unreadable_images(tiny_clip, tmp_path: Path) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not a png")
    result = tiny_clip.encode_images([IMAGES[0], str(broken), str(tmp_path / "missing.png")])
    assert set(result.failed) == {1, 2}
    assert np.allclose(np.linalg.norm(result.vectors[0]), 1.0, atol=1e-5)
    assert not result.vectors[1:].any()


def test_random_weight_clip_text_queries_are_unit_rows(tiny_clip) -> None:
    seen: list[int] = []
    vectors = tiny_clip.encode_texts(
        ["brass compass", "green paint", "x"], batch_size=2, on_batch=seen.append
    )
    assert vectors.shape == (3, 32) and seen == [2, 1]
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_the_same_seed_gives_the_same_random_weights(cpu) -> None:
    from memscope.engine.image import ImageEncoder

    first = ImageEncoder(resolve_image_model(str(TINY_CLIP_CONFIG), "random:7"), cpu)
    second = ImageEncoder(resolve_image_model(str(TINY_CLIP_CONFIG), "random:7"), cpu)
    assert np.array_equal(first.encode_texts(["a"]), second.encode_texts(["a"]))
