"""LongMemEval test data: the invented tree ``scripts/demo/make_longmemeval_demo.py``
writes in upstream's formats, and the benchmark registered beside the installed ones
(the shared environment's package metadata may predate the ``longmemeval`` entry point)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from types import ModuleType

from memscope.adapters import registry
from memscope.adapters.registry import GROUP

ROOT = Path(__file__).resolve().parents[1]
GENERATOR = ROOT / "scripts" / "demo" / "make_longmemeval_demo.py"
POINT = metadata.EntryPoint(
    name="longmemeval", value="memscope.adapters.longmemeval:BENCHMARK", group=GROUP
)


def generator() -> ModuleType:
    """The demo generator, imported from its file."""
    name = "make_longmemeval_demo"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, GENERATOR)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def registered() -> Iterator[None]:
    """The installed benchmarks plus ``longmemeval`` (for a fixture)."""
    points = [point for point in metadata.entry_points(group=GROUP) if point.name != POINT.name]
    registry.reset([*points, POINT])
    yield
    registry.reset()
