"""Building memscope's wheel from this checkout, and running commands in fresh venvs: what
the wheel tests (``test_wheel.py``: core only; ``test_wheel_engine.py``: with ``[engine]``)
share (the ``wheel`` fixture is in this folder's ``conftest.py``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "src", "fixtures", "runs")


def run(args: list[str | Path], cwd: Path | None = None, timeout: float = 600):
    """Run a command as a user's shell would: none of this test process's Python or
    memscope environment (its store, its debug switch) goes along."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.pop("MEMSCOPE_DB", None)
    env.pop("MEMSCOPE_DEBUG", None)
    return subprocess.run(
        [str(arg) for arg in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    """``done``, after asserting it succeeded (its output in the failure's message)."""
    assert done.returncode == 0, f"{done.args}\n{done.stdout}\n{done.stderr}"
    return done


def new_venv(path: Path) -> Path:
    """A fresh venv at ``path`` (with pip, nothing else); returns its bin/ folder."""
    ok(run([sys.executable, "-m", "venv", path]))
    return path / "bin"


def build_wheel(root: Path) -> Path:
    """Build the wheel under ``root`` from a clean copy of the sources (no stale build/
    folder); returns its path."""
    tree = root / "memscope-src"
    for name in SOURCES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(
                source, tree / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
            )
        else:
            tree.mkdir(exist_ok=True)
            shutil.copyfile(source, tree / name)
    ok(
        run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
            + ["-w", root / "dist", tree]
        )
    )
    (built,) = (root / "dist").glob("*.whl")
    return built
