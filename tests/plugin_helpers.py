"""Hostile and test plugins as real packages: modules written to a temporary folder and
registered through real entry points beside memscope's MemEye and LoCoMo (issue 39)."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path

import pytest

from memscope.adapters import registry
from memscope.adapters.registry import GROUP

ROOT = Path(__file__).resolve().parents[1]
TOY = ROOT / "examples" / "benchmark-plugin"
MEMEYE = metadata.EntryPoint(name="memeye", value="memscope.adapters.memeye:BENCHMARK", group=GROUP)
LOCOMO = metadata.EntryPoint(name="locomo", value="memscope.adapters.locomo:BENCHMARK", group=GROUP)


def install_plugins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[dict[str, str], dict[str, str]], None]]:
    """Write plugin modules (name -> source) and register them beside MemEye."""
    folder = tmp_path / "plugins"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.syspath_prepend(str(TOY / "src"))
    written: list[str] = []

    def install(points: dict[str, str], modules: dict[str, str]) -> None:
        for module, source in modules.items():
            (folder / f"{module}.py").write_text(textwrap.dedent(source))
            written.append(module)
        entry = [
            metadata.EntryPoint(name=name, value=value, group=GROUP)
            for name, value in points.items()
        ]
        registry.reset([*entry, MEMEYE, LOCOMO])

    yield install
    registry.reset()
    for module in written:
        sys.modules.pop(module, None)


TOY_CLONE = """
    from dataclasses import replace
    from memscope.adapters.spec import DetailTable, ReadOption
    from memscope_toybench import BENCHMARK as TOY

    def clone(name, **changes):
        return replace(TOY, name=name, axes=replace(TOY.axes, benchmark=name), read_options=(),
                       **changes)

    class RenamedReader:
        # ToyBench's reader, its records under the clone's name

        def __init__(self, name):
            self.name = name

        def sniff(self, path):
            from memscope_toybench import run
            return run.sniff(path)

        def read_all(self, path, options):
            from memscope_toybench import run
            records = run.read_all(path, options)
            for record in records:
                record.benchmark = self.name
            return records
"""
