"""What a test run must leave alone: the repository's store and the user's memscope files.

``tests/conftest.py`` snapshots these places when the run starts and around every test,
and fails the test (and the run) that changed one. A snapshot is cheap (a few ``stat``
calls): the watched folders are memscope's own and normally hold a handful of files.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GENERATED_AT_ROOT = frozenset(
    {
        *(".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis", ".import_linter_cache"),
        *(".venv", "build", "dist", ".coverage", "htmlcov", ".tox", ".nox", "__pycache__"),
    }
)
"""Entries at the repository's top level that tools (not tests) create while tests run."""

Entry = tuple[bool, int, int]
"""(is a folder, size, mtime in ns) of one path."""


@dataclass(frozen=True)
class Watched:
    """A place no test may change: a folder watched recursively, or only its top level."""

    path: Path
    top_level_only: bool = False
    ignored: frozenset[str] = frozenset()


def user_memscope_dirs() -> list[Path]:
    """Where memscope keeps the user's files by default (platformdirs), and their config."""
    import platformdirs

    dirs = [
        Path(platformdirs.user_config_dir("memscope")),
        Path(platformdirs.user_state_dir("memscope")),
        Path(platformdirs.user_data_dir("memscope")),
        Path(platformdirs.user_cache_dir("memscope")),
        Path.home() / ".memscope",
    ]
    configured = os.environ.get("MEMSCOPE_CONFIG")
    if configured:
        dirs.append(Path(configured).expanduser().parent)
    return dirs


def watched_places(repo: Path = REPO) -> list[Watched]:
    """The repository's store folder and top level, and the user's memscope folders.

    Computed once, before the test environment is redirected into temp folders, so the
    real locations are watched.
    """
    return [
        Watched(repo / ".memscope"),
        Watched(repo, top_level_only=True, ignored=GENERATED_AT_ROOT),
        *(Watched(path) for path in dict.fromkeys(user_memscope_dirs())),
    ]


def _entry(path: Path) -> Entry | None:
    try:
        info = path.lstat()
    except OSError:
        return None
    return (path.is_dir() and not path.is_symlink(), info.st_size, info.st_mtime_ns)


def snapshot(places: Iterable[Watched]) -> dict[Path, Entry]:
    """Every path under the watched places, with its kind, size and modification time."""
    found: dict[Path, Entry] = {}
    for place in places:
        top = _entry(place.path)
        if top is None:
            continue
        if place.top_level_only:
            try:
                names = os.listdir(place.path)
            except OSError:
                continue
            for name in names:
                if name in place.ignored or name.endswith(".egg-info"):
                    continue
                entry = _entry(place.path / name)
                if entry is not None:  # only the name matters at the top level
                    found[place.path / name] = (entry[0], 0, 0)
            continue
        found[place.path] = (top[0], 0, 0)  # a folder's own mtime changes with its entries
        for root, dirnames, filenames in os.walk(place.path):
            for name in (*dirnames, *filenames):
                entry = _entry(Path(root) / name)
                if entry is not None:
                    found[Path(root) / name] = entry if not entry[0] else (True, 0, 0)
    return found


def changes(before: dict[Path, Entry], after: dict[Path, Entry]) -> list[str]:
    """What differs between two snapshots, one line per path ("created", "changed", "removed")."""
    lines = []
    for path in sorted(set(before) | set(after)):
        if path not in before:
            lines.append(f"created {path}")
        elif path not in after:
            lines.append(f"removed {path}")
        elif before[path] != after[path]:
            lines.append(f"changed {path}")
    return lines
