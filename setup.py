"""Builds memscope's wheel with the demo inside: ``fixtures/`` and ``runs/`` as package data.

The repository's ``fixtures/`` and ``runs/`` stay the one source of truth; each build copies
them to ``memscope/demo/`` in the wheel, where ``memscope demo`` finds them. An editable
install needs no copy: ``memscope demo`` reads the checkout's folders directly.
Everything else about the package is in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
DEMO_TREES = ("fixtures", "runs")
"""Repository folders the demo is made of (runs point at ../../fixtures/...)."""


def demo_files() -> list[Path]:
    """Every demo file, relative to the repository (no hidden files, no caches)."""
    found = []
    for tree in DEMO_TREES:
        for path in sorted((ROOT / tree).rglob("*")):
            relative = path.relative_to(ROOT)
            if path.is_file() and not any(
                part.startswith(".") or part == "__pycache__" for part in relative.parts
            ):
                found.append(relative)
    return found


class BuildWithDemo(build_py):
    """build_py that also copies the demo into the built package."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # the checkout's own folders are used
            return
        target = Path(self.build_lib) / "memscope" / "demo"
        if target.exists():
            shutil.rmtree(target)
        for relative in demo_files():
            destination = target / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / relative, destination)


setup(cmdclass={"build_py": BuildWithDemo})
