"""Fixtures for the app's tests: a deterministic image renderer, demo runs in a temp dir,
and helpers that wait for the app's workers instead of sleeping.

textual-image never talks to a terminal here: its cached cell size is pre-seeded and the
renderer is forced to half-cell blocks, so images render the same everywhere.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO_RUNS = REPO / "runs"
DEMO_FIXTURES = REPO / "fixtures"


@pytest.fixture(autouse=True, scope="session")
def deterministic_images() -> None:
    """Half-cell image rendering with a fixed 10x20 pixel cell, for every app test."""
    from textual_image._terminal import CellSize, get_cell_size

    get_cell_size._result = CellSize(10, 20)  # type: ignore[attr-defined]
    import textual_image.widget as image_widgets

    from memscope.tui.widgets.image_preview import ImagePreview

    ImagePreview.renderer = image_widgets.HalfcellImage


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """A private copy of the demo runs and their benchmark (``<tmp>/runs/srag_v`` …)."""
    if not (DEMO_RUNS / "srag_v").is_dir():
        pytest.skip("the demo runs (runs/, fixtures/) are not in this checkout")
    root = tmp_path / "demo"
    shutil.copytree(DEMO_FIXTURES, root / "fixtures")
    shutil.copytree(DEMO_RUNS, root / "runs", ignore=shutil.ignore_patterns("README.md"))
    return root
