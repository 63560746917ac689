"""Test isolation: every test gets its own store, config and home folders, never the user's.

Nothing a test does may reach the repository's ``.memscope/`` or the user's memscope
files: the environment points memscope (and platformdirs) into a temp folder twice over
(for the whole session at import, so even a test that undoes its monkeypatch stays inside,
and per test in its ``tmp_path``), and ``isolation.py`` snapshots the real places around
every test and the session, failing whichever changed one.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from cli_runner import build_commands_once
from isolation import StoreTouches, changes, snapshot, watched_places
from parallel import (
    accept_xdist_options,
    group_engine_tests,
    group_reference_tests,
    group_wheel_modules,
)
from shared_inputs import ingested_store, store_templates  # noqa: F401 (fixtures)
from support import DATA

settings.register_profile("memscope", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("memscope")
"""Hypothesis checks properties, not speed: its per-example deadline and its "data generation
is slow" health check measure the machine (they failed on a loaded one) and are off. How
fast memscope is belongs to benchmarks/."""

build_commands_once()

WATCHED = watched_places()
"""The real places, computed before the environment below is redirected."""
TOUCHES = StoreTouches().install()
"""What this process did that could reach the clone's store (a change there by anyone
else, such as the user's own memscope, is theirs: tests/isolation.py)."""
_REAL_PIP_CONFIG = Path(
    os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config", "pip", "pip.conf"
)
HOME_DIRS = {
    "XDG_CONFIG_HOME": "config",
    "XDG_STATE_HOME": "state",
    "XDG_DATA_HOME": "data",
}
"""platformdirs' per-user folders (memscope's default config lives in the first); caches
(pip's, Hugging Face's, matplotlib's fonts) stay where they are: tests read them offline."""


def _sandbox(root: Path) -> dict[str, str]:
    """The environment that keeps memscope inside ``root``."""
    return {
        "MEMSCOPE_DB": str(root / "store" / "memscope.duckdb"),
        "MEMSCOPE_CONFIG": str(root / "home" / "config.toml"),
        **{name: str(root / "xdg" / folder) for name, folder in HOME_DIRS.items()},
    }


_SESSION_SANDBOX = Path(tempfile.mkdtemp(prefix="memscope-tests-"))
atexit.register(shutil.rmtree, _SESSION_SANDBOX, ignore_errors=True)
os.environ.update(_sandbox(_SESSION_SANDBOX))
# pytest-xdist's workers start with COLUMNS=80 and LINES=24; a Rich console made while they
# are set keeps that width for good, so the per-test COLUMNS below would be ignored.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)
if _REAL_PIP_CONFIG.is_file():  # the wheel tests' pip still reads the user's pip config
    os.environ.setdefault("PIP_CONFIG_FILE", str(_REAL_PIP_CONFIG))

# PortAudio reads the ALSA configuration when sounddevice is first imported: route the
# default device to ALSA's null sink so audio tests play for real but silently (and work
# on machines without sound hardware).
os.environ["ALSA_CONFIG_PATH"] = str(Path(__file__).parent / "alsa-null.conf")


@pytest.fixture(scope="session", autouse=True)
def nothing_outside_tmp_changes() -> Iterator[None]:
    """Fail the run if, by its end, the repository's store or the user's files changed
    (the per-test check below names the test; this one also catches session fixtures)."""
    before, mark = snapshot(WATCHED), TOUCHES.mark()
    yield
    changed = changes(before, snapshot(WATCHED), TOUCHES.since(mark))
    if changed:
        pytest.fail(
            "the test run changed files outside its temp folders:\n  " + "\n  ".join(changed),
            pytrace=False,
        )


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point the store, the config and the user folders at a temp dir; make lock waits
    short; fail the test if it changed the repository's store or the user's files."""
    home = tmp_path / "home"
    home.mkdir()
    for name, value in _sandbox(tmp_path).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("MEMSCOPE_LOCK_WAIT", "0.5")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.delenv("MEMSCOPE_DEBUG", raising=False)
    monkeypatch.setenv("COLUMNS", "120")
    before, mark = snapshot(WATCHED), TOUCHES.mark()
    yield home
    changed = changes(before, snapshot(WATCHED), TOUCHES.since(mark))
    if changed:
        pytest.fail(
            "this test changed files outside its temp folder:\n  " + "\n  ".join(changed),
            pytrace=False,
        )


@pytest.fixture(autouse=True)
def notices_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Record every notification an app posts (read them with ``support.notices``)."""
    from textual.app import App

    shown = App._on_notify

    def recording(self: App, event: object) -> None:
        self.__dict__.setdefault("notices_posted", []).append(event.notification)  # type: ignore[attr-defined]
        shown(self, event)  # type: ignore[arg-type]

    monkeypatch.setattr(App, "_on_notify", recording)


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


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """``pytest -p no:xdist`` still accepts the ``-n``/``--dist`` of pyproject's addopts."""
    accept_xdist_options(parser, pluginmanager)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that loads the real MiniLM (the ``minilm`` fixture) as ``slow``, and
    keep each ``wheel`` module's tests, the engine's tests and the tests checked against
    reference libraries on one xdist worker each (tests/parallel.py).

    CI runs all tests; ``pytest -m "not slow"`` is the quick local run.
    """
    for item in items:
        if "minilm" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
    group_wheel_modules(config, items)
    group_engine_tests(config, items)
    group_reference_tests(config, items)
