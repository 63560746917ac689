"""Choosing the torch device once per process: ``auto`` picks CUDA when present, else the CPU."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

from memscope.engine.threads import configure_torch
from memscope.errors import EngineError

DEVICE_SPEC = re.compile(r"^(auto|cpu|cuda(?::(\d+))?)$")
DEVICE_FIX = "Use --device auto, cpu, cuda or cuda:N (or set device under [engine] in the config)."

_resolved: dict[str, ResolvedDevice] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class ResolvedDevice:
    """The device a ``--device`` value resolved to."""

    requested: str
    """What the user asked for (``auto``, ``cpu``, ``cuda``, ``cuda:1``)."""
    name: str
    """The torch device string: ``cpu`` or ``cuda:N``."""
    description: str
    """One line for the log, e.g. ``cuda:0 (NVIDIA H200)``."""

    @property
    def is_cuda(self) -> bool:
        """Whether the work runs on a GPU."""
        return self.name.startswith("cuda")


def parse_device(requested: str | None) -> str:
    """Normalise a ``--device`` value, refusing anything that is not auto/cpu/cuda[:N].

    Raises:
        EngineError: for an unknown value.
    """
    spec = (requested or "auto").strip().lower()
    if not DEVICE_SPEC.match(spec):
        raise EngineError(f"unknown device {requested!r}", where="--device", fix=DEVICE_FIX)
    return spec


def resolve_device(requested: str | None = "auto") -> ResolvedDevice:
    """Resolve a device request once; later calls with the same request return the same answer.

    Raises:
        EngineError: for an unknown value, or CUDA asked for where torch sees none (or
            fewer devices than the index asked for).
    """
    spec = parse_device(requested)
    with _lock:
        if spec not in _resolved:
            _resolved[spec] = _resolve(spec)
        return _resolved[spec]


def _resolve(spec: str) -> ResolvedDevice:
    import torch

    configure_torch()  # so the thread count described below is the one the models get

    available = torch.cuda.is_available()
    count = torch.cuda.device_count() if available else 0
    if spec == "cpu" or (spec == "auto" and not available):
        why = "auto: no CUDA device" if spec == "auto" else "requested"
        return ResolvedDevice(spec, "cpu", f"cpu ({why}, {torch.get_num_threads()} threads)")
    index = 0 if spec in ("auto", "cuda") else int(spec.split(":", 1)[1])
    if not available:
        built = (
            "torch was built without CUDA"
            if torch.version.cuda is None
            else "no CUDA device is visible"
        )
        raise EngineError(
            f"CUDA was requested but is not available here ({built})",
            where=f"--device {spec}",
            fix="Use --device cpu (or auto, which falls back to the CPU); on a GPU machine check the "
            "driver and CUDA_VISIBLE_DEVICES.",
        )
    if index >= count:
        raise EngineError(
            f"CUDA device {index} was requested but only {count} device(s) are visible",
            where=f"--device {spec}",
            fix=f"Use --device cuda:0 .. cuda:{count - 1}, or auto.",
        )
    name = f"cuda:{index}"
    return ResolvedDevice(spec, name, f"{name} ({torch.cuda.get_device_name(index)})")


def forget_resolved_devices() -> None:
    """Drop the remembered resolutions (tests that fake the hardware use this)."""
    with _lock:
        _resolved.clear()
