"""Test isolation: every test gets its own store and config, and never the user's."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"

# PortAudio reads the ALSA configuration when sounddevice is first imported: route the
# default device to ALSA's null sink so audio tests play for real but silently (and work
# on machines without sound hardware).
os.environ["ALSA_CONFIG_PATH"] = str(Path(__file__).parent / "alsa-null.conf")
UPSTREAM_RUNS = DATA / "memeye_runner" / "runs" / "kitchen_renovation"


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
def store(store_path: Path):  # noqa: ANN201
    """A Store on the isolated path."""
    from memscope.store import Store

    return Store(store_path)


@pytest.fixture
def upstream_copy(tmp_path: Path) -> Path:
    """A writable copy of the real MemEye runner samples (data/ and runs/)."""
    target = tmp_path / "memeye_runner"
    shutil.copytree(DATA / "memeye_runner", target)
    return target


def upstream_run(name_part: str, mode: str) -> Path:
    """The upstream sample run whose directory name contains ``name_part`` and has ``mode``."""
    import json

    for run_dir in sorted(UPSTREAM_RUNS.iterdir()):
        if name_part in run_dir.name:
            first = json.loads((run_dir / "predictions.jsonl").read_text().splitlines()[0])
            if first["mode"] == mode:
                return run_dir
    raise LookupError(name_part)
