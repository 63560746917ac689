"""The embedding cache: a second ``memscope index`` embeds nothing, changed content re-embeds.

Image items use the tiny open_clip with random weights (mechanics only).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.engine_helpers import KITCHEN, UPSTREAM
from memscope.cli import app
from memscope.engine import corpus
from memscope.engine_jobs import engine as pipeline_engine
from memscope.store import embeddings as cache

runner = CliRunner()


def index(*args: str) -> dict:
    result = runner.invoke(app, ["index", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def dataset_copy(tmp_path: Path) -> Path:
    """A writable copy of the upstream data folder (dialog + images)."""
    target = tmp_path / "memeye"
    shutil.copytree(UPSTREAM / "data", target / "data")
    return target / "data" / "dialog" / KITCHEN.name


def test_second_index_embeds_nothing_and_loads_no_model(
    dataset_copy: Path, monkeypatch: pytest.MonkeyPatch, minilm
) -> None:
    first = index(str(dataset_copy), "--no-images")
    assert first["embedded"] > 0
    kinds = {kind["kind"]: kind for kind in first["kinds"]}
    assert set(kinds) == {"round_text", "round_dialogue", "caption", "question"}
    assert kinds["round_text"]["items"] == 11 and kinds["question"]["items"] == 6

    def no_model(*args: object, **kwargs: object) -> None:
        raise AssertionError("a model was loaded although everything is cached")

    monkeypatch.setattr(pipeline_engine.EngineSession, "text_encoder", no_model)
    second = index(str(dataset_copy), "--no-images")
    assert second["embedded"] == 0
    assert all(
        kind["embedded"] == 0 and kind["cached"] == kind["items"] for kind in second["kinds"]
    )


def test_images_are_cached_too_with_random_weight_clip(
    dataset_copy: Path, tiny_clip_args: list[str], minilm
) -> None:
    first = index(str(dataset_copy), *tiny_clip_args)
    images = next(kind for kind in first["kinds"] if kind["kind"] == "image")
    assert images["items"] == 8 and images["embedded"] == 8
    second = index(str(dataset_copy), *tiny_clip_args)
    assert second["embedded"] == 0


def test_changed_content_is_embedded_again_and_only_it(
    dataset_copy: Path, seeded_store, minilm
) -> None:
    store = seeded_store
    assert index(str(dataset_copy), "--no-images")["embedded"] == 0
    with store.read() as con:
        datasets_before = len(cache.dataset_ids(con))
    data = json.loads(dataset_copy.read_text())
    data["multi_session_dialogues"][0]["dialogues"][0]["user"] = (
        "A completely new first message about tiles."
    )
    dataset_copy.write_text(json.dumps(data))
    again = index(str(dataset_copy), "--no-images")
    kinds = {kind["kind"]: kind for kind in again["kinds"]}
    assert kinds["round_text"]["embedded"] == 1 and kinds["round_dialogue"]["embedded"] == 1
    assert kinds["caption"]["embedded"] == 0 and kinds["question"]["embedded"] == 0
    with store.read() as con:
        assert (
            len(cache.dataset_ids(con)) == datasets_before + 1
        )  # a changed file is a new dataset; vectors are shared


def test_vectors_round_trip_through_the_store(dataset_copy: Path, seeded_store, minilm) -> None:
    import numpy as np

    store = seeded_store
    summary = index(str(dataset_copy), "--no-images")
    with store.read() as con:
        found = cache.item_vectors(con, summary["dataset_id"], corpus.ROUND_TEXT, minilm.model_id)
    dataset = pipeline_engine.open_dataset(store, str(dataset_copy))
    texts = {
        item.item_id: item.text for item in corpus.round_items(dataset.rounds, ("round_text",))[0]
    }
    expected = minilm.encode([texts[item_id] for item_id in found.item_ids])
    assert found.vectors.dtype == np.float32 and np.allclose(found.vectors, expected, atol=1e-6)
    assert found.round_ids == found.item_ids


def test_missing_default_image_model_is_a_note_not_a_failure(
    dataset_copy: Path, seeded_store, minilm
) -> None:
    from memscope.engine.models import resolve_image_model
    from memscope.errors import EngineError

    try:
        resolve_image_model(None, None)
        pytest.skip("SigLIP-2 weights are on this machine")
    except EngineError:
        pass
    result = runner.invoke(app, ["index", str(dataset_copy)])
    assert result.exit_code == 0, result.output
    assert "images not embedded" in result.output and "--image-pretrained" in result.output


def test_a_named_image_model_that_is_missing_is_an_error(
    dataset_copy: Path, tmp_path: Path
) -> None:
    result = runner.invoke(
        app,
        [
            "index",
            str(dataset_copy),
            "--image-model",
            "ViT-B-16-SigLIP2-384",
            "--image-pretrained",
            str(tmp_path / "nope.pt"),
        ],
    )
    assert result.exit_code == 1
    assert "error:" in result.output and "Traceback" not in result.output


def test_an_unknown_dataset_names_close_matches(minilm) -> None:
    result = runner.invoke(app, ["index", "kitchen_renovaton"])
    assert result.exit_code == 1
    assert "no dialog file, dataset or run" in result.output


def test_corpus_text_is_memeyes_round_retrieval_text() -> None:
    """build_round_retrieval_text: user, assistant, then captions (text_only), single spaces."""
    data = json.loads(KITCHEN.read_text())
    turn = next(
        t for s in data["multi_session_dialogues"] for t in s["dialogues"] if t.get("image_caption")
    )
    round_ = corpus.CorpusRound(
        turn["round"], 1, turn["user"], turn["assistant"], turn["image_caption"]
    )
    expected = " ".join(
        [
            turn["user"].strip(),
            turn["assistant"].strip(),
            " ".join(c.strip() for c in turn["image_caption"]),
        ]
    )
    assert corpus.round_corpus_text(round_, "text_only") == expected
    assert (
        corpus.round_corpus_text(round_, "multimodal")
        == f"{turn['user'].strip()} {turn['assistant'].strip()}"
    )
    empty = corpus.CorpusRound("x", 2, "  ", "", ["  "])
    assert corpus.round_corpus_text(empty, "text_only") == ""


def test_engine_defaults_come_from_the_config_file(
    isolated_env: Path, dataset_copy: Path, seeded_store, minilm
) -> None:
    from memscope.engine.models import packaged_minilm_dir

    (isolated_env / "config.toml").write_text(
        f'[engine]\ntext_model = "{packaged_minilm_dir()}"\nimage_model = "no-such-open-clip-model"\ndevice = "cpu"\n'
    )
    result = runner.invoke(app, ["index", str(dataset_copy)])
    assert (
        result.exit_code == 1
    )  # an image model named in the config is a choice: missing is an error
    assert "'no-such-open-clip-model' is not an open_clip model" in result.output
    result = runner.invoke(app, ["index", str(dataset_copy), "--no-images", "--format", "json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert {kind["model"] for kind in summary["kinds"]} == {str(packaged_minilm_dir())}
    assert (
        summary["embedded"] == 0
    )  # the same weights by path: the vectors cached under the alias serve
    text = runner.invoke(
        app, ["index", str(dataset_copy), "--no-images", "--text-model", str(packaged_minilm_dir())]
    )
    assert text.exit_code == 0
