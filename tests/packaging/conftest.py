"""The packaging tests' shared fixture: memscope's wheel, built once per module that uses it
(``test_wheel.py``, ``test_wheel_engine.py``: each module's tests stay on one worker, and
the two modules run side by side)."""

from __future__ import annotations

from pathlib import Path

import pytest
from wheel_build import build_wheel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from a clean copy of this checkout's sources."""
    return build_wheel(tmp_path_factory.mktemp("wheel"))
