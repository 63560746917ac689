"""Test isolation: every test gets its own store and config, and never the user's."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from support import DATA

# PortAudio reads the ALSA configuration when sounddevice is first imported: route the
# default device to ALSA's null sink so audio tests play for real but silently (and work
# on machines without sound hardware).
os.environ["ALSA_CONFIG_PATH"] = str(Path(__file__).parent / "alsa-null.conf")


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the store and the config at a temp dir; make lock waits short."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("MEMSCOPE_DB", str(tmp_path / "store" / "memscope.duckdb"))
    monkeypatch.setenv("MEMSCOPE_CONFIG", str(home / "config.toml"))
    monkeypatch.setenv("MEMSCOPE_LOCK_WAIT", "0.5")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.delenv("MEMSCOPE_DEBUG", raising=False)
    monkeypatch.setenv("COLUMNS", "120")
    return home


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """The store file the isolated environment points at."""
    return Path(os.environ["MEMSCOPE_DB"])


@pytest.fixture
def store(store_path: Path):
    """A Store on the isolated path."""
    from memscope.store import Store

    return Store(store_path)


@pytest.fixture
def upstream_copy(tmp_path: Path) -> Path:
    """A writable copy of the real MemEye runner samples (data/ and runs/)."""
    target = tmp_path / "memeye_runner"
    shutil.copytree(DATA / "memeye_runner", target)
    return target


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that loads the real MiniLM (the ``minilm`` fixture) as ``slow``.

    CI runs all tests; ``pytest -m "not slow"`` is the quick local run.
    """
    for item in items:
        if "minilm" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
