"""Search for the app: free text over round texts (real MiniLM), and look-alike images.

Look-alike tests use the tiny open_clip with random weights: they check the mechanics
(own round excluded, best first, k rounds), not which images look alike.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.engine_helpers import KITCHEN
from memscope.cli import app
from memscope.engine_jobs.engine import EngineOptions, open_dataset, search_text, similar_images
from memscope.errors import EngineError, NotFoundError

runner = CliRunner()


def test_free_text_search_finds_the_round_that_says_it(seeded_store, minilm) -> None:
    store = seeded_store
    """Real MiniLM weights: the round about the brass knob answers "brass knob"."""
    dataset_id = open_dataset(store, KITCHEN).dataset_id
    hits = search_text(store, dataset_id, "round brass knob", k=3)
    assert len(hits) == 3 and hits[0].round_id == "K1:3"
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    assert search_text(store, dataset_id, "   ", k=3) == []


def test_search_reuses_its_index_until_the_store_changes(seeded_store, minilm) -> None:
    store = seeded_store
    from memscope.engine_jobs import search

    dataset_id = open_dataset(store, KITCHEN).dataset_id
    search_text(store, dataset_id, "paint", k=2)
    key = next(key for key in search._indexes if key[1] == dataset_id and key[0] == str(store.path))
    cached = search._indexes[key]
    search_text(store, dataset_id, "cabinet", k=2)
    assert search._indexes[key] is cached


def test_similar_images_with_random_weight_clip_excludes_the_round_itself(
    seeded_store, minilm
) -> None:
    store = seeded_store  # its images are embedded with the tiny random-weight open_clip
    dataset_id = open_dataset(store, KITCHEN).dataset_id
    hits = similar_images(store, dataset_id, "K1:2", k=3)
    assert 0 < len(hits) <= 3 and "K1:2" not in {hit.round_id for hit in hits}
    assert all(hit.item_id.startswith(f"{hit.round_id}#image") for hit in hits)
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    with pytest.raises(NotFoundError, match="has no embedded image"):
        similar_images(store, dataset_id, "K1:3", k=3)


def test_image_channel_search_with_random_weight_clip(
    seeded_store, tiny_clip_checkpoint: Path, minilm
) -> None:
    store = seeded_store
    from engine.engine_helpers import TINY_CLIP_CONFIG

    dataset_id = open_dataset(store, KITCHEN).dataset_id
    options = EngineOptions(
        image_model=str(TINY_CLIP_CONFIG), image_pretrained=str(tiny_clip_checkpoint)
    )
    hits = search_text(store, dataset_id, "a brass compass", k=4, channel="image", options=options)
    assert 0 < len(hits) <= 4 and len({hit.round_id for hit in hits}) == len(hits)


def test_similar_images_before_indexing_says_how_to_index(store, minilm) -> None:
    dataset_id = open_dataset(store, KITCHEN).dataset_id
    with pytest.raises(EngineError, match="memscope index"):
        similar_images(store, dataset_id, "K1:2")


def test_cli_search_prints_hits_as_table_and_json(seeded_store, minilm) -> None:
    table = runner.invoke(app, ["search", str(KITCHEN), "brass knob", "--k", "2"])
    assert table.exit_code == 0, table.output
    assert "K1:3" in table.stdout
    as_json = runner.invoke(
        app, ["search", str(KITCHEN), "brass knob", "--k", "2", "--format", "json"]
    )
    hits = json.loads(as_json.stdout)["hits"]
    assert hits[0]["round_id"] == "K1:3" and "brass" in hits[0]["text"]


def test_cli_search_needs_a_query_or_a_round(minilm) -> None:
    result = runner.invoke(app, ["search", str(KITCHEN)])
    assert result.exit_code == 1 and "--similar-to" in result.output


def test_importing_the_engine_core_loads_no_model_library() -> None:
    code = (
        "import sys, memscope.engine_jobs.engine, memscope.engine_jobs.gap_fill, memscope.engine_jobs.native_run, memscope.cli; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'open_clip', 'sentence_transformers', 'faiss', 'transformers'}))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert output.strip() == "[]"
