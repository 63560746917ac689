"""Device selection: auto, cpu, cuda[:N], resolved once, and clear errors without CUDA."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from memscope.cli import app
from memscope.engine.device import parse_device, resolve_device
from memscope.errors import EngineError


@pytest.fixture
def no_cuda(monkeypatch: pytest.MonkeyPatch, fresh_devices):
    """A machine where torch sees no CUDA device, whatever this one has."""
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)


def test_auto_picks_the_cpu_without_cuda(no_cuda) -> None:
    device = resolve_device("auto")
    assert device.name == "cpu" and not device.is_cuda
    assert "auto" in device.description


def test_a_device_is_resolved_once(no_cuda) -> None:
    assert resolve_device("auto") is resolve_device(None) is resolve_device(" AUTO ")


def test_cuda_requested_without_cuda_is_one_clear_error(no_cuda) -> None:
    with pytest.raises(EngineError) as caught:
        resolve_device("cuda")
    message = caught.value.message
    assert "CUDA was requested but is not available" in message
    assert "--device cpu" in message


def test_cuda_index_beyond_the_visible_devices(
    monkeypatch: pytest.MonkeyPatch, fresh_devices
) -> None:
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    with pytest.raises(EngineError, match="CUDA device 3 was requested but only 1"):
        resolve_device("cuda:3")


@pytest.mark.parametrize("value", ["gpu", "cuda:x", "cuda:", "tpu", "cpu0"])
def test_unknown_device_values_are_refused(value: str) -> None:
    with pytest.raises(EngineError, match="unknown device"):
        parse_device(value)


def test_cli_cuda_without_cuda_exits_1_with_one_message(no_cuda) -> None:
    from engine.engine_helpers import KITCHEN

    result = CliRunner().invoke(app, ["index", str(KITCHEN), "--no-images", "--device", "cuda"])
    assert result.exit_code == 1, result.output
    assert "CUDA was requested but is not available" in result.output
    assert "Traceback" not in result.output


@pytest.mark.gpu
def test_cuda_embeds_like_the_cpu(minilm) -> None:
    """On a CUDA machine: the same sentences give the same unit vectors on the GPU."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("CUDA must be available to compare GPU with CPU embeddings")
    from memscope.engine.text import load_text_encoder

    gpu = load_text_encoder(minilm.source, resolve_device("cuda"))
    texts = ["a brass compass", "the walls are sage green", "kitchen cabinets"]
    import numpy as np

    assert np.allclose(gpu.encode(texts), minilm.encode(texts), atol=1e-4)
