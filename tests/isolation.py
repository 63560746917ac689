"""What a test run must leave alone: the repository's store and the user's memscope files.

``tests/conftest.py`` snapshots these places when the run starts and around every test,
and fails the test (and the run) that changed one. A snapshot is cheap (a few ``stat``
calls): the watched folders are memscope's own and normally hold a handful of files.

The repository's store is also the user's (the README's commands fill ``.memscope/``),
and they may use it while the suite runs. A change there is therefore blamed on a test
only when this test process was seen reaching it (``StoreTouches``, a Python audit hook:
a file opened, made, moved or removed under it, or a process started that names it or
would find it from its working folder); a change nobody here made is the user's.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STORE_DIR = REPO / ".memscope"
"""The clone's own store folder, which the user's commands write into as well."""
GENERATED_AT_ROOT = frozenset(
    {
        *(".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis", ".import_linter_cache"),
        *(".venv", "build", "dist", ".coverage", "htmlcov", ".tox", ".nox", "__pycache__"),
    }
)
"""Entries at the repository's top level that tools (not tests) create while tests run
(``.memscope`` is watched on its own, below)."""

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
        Watched(repo, top_level_only=True, ignored=GENERATED_AT_ROOT | {".memscope"}),
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


def changes(
    before: dict[Path, Entry],
    after: dict[Path, Entry],
    touched: Sequence[str] | None = None,
    store: Path = STORE_DIR,
) -> list[str]:
    """What differs between two snapshots, one line per path ("created", "changed", "removed").

    With ``touched`` (what ``StoreTouches`` saw this process do in the meantime), a change
    under ``store`` counts only when something was seen reaching it, and the lines say what.
    """
    lines = []
    for path in sorted(set(before) | set(after)):
        if touched is not None and not touched and path.is_relative_to(store):
            continue  # the user's own memscope, run beside the suite
        if path not in before:
            lines.append(f"created {path}")
        elif path not in after:
            lines.append(f"removed {path}")
        elif before[path] != after[path]:
            lines.append(f"changed {path}")
    if touched and lines:
        lines += [f"reached the store: {what}" for what in dict.fromkeys(touched)]
    return lines


PATH_EVENTS = frozenset(
    {
        *("open", "os.mkdir", "os.rename", "os.replace", "os.remove", "os.rmdir"),
        *("os.truncate", "os.chmod", "os.chown", "os.utime", "os.link", "os.symlink"),
        *("shutil.rmtree", "shutil.copyfile", "shutil.copytree", "shutil.move"),
    }
)
"""Audit events whose arguments include a path this process opens or changes."""


class StoreTouches:
    """What this process did that could reach a store folder, recorded by an audit hook.

    ``hook`` is installed once (audit hooks cannot be removed); ``mark`` and ``since``
    give what was recorded in between, one line per event.
    """

    def __init__(self, store: Path = STORE_DIR, repo: Path = REPO) -> None:
        self.store = os.path.abspath(store)
        self.repo = os.path.abspath(repo)
        self.seen: list[str] = []

    def install(self) -> StoreTouches:
        sys.addaudithook(self.hook)
        return self

    def mark(self) -> int:
        return len(self.seen)

    def since(self, mark: int) -> list[str]:
        return self.seen[mark:]

    def _inside(self, value: object, root: str) -> bool:
        if not isinstance(value, (str, bytes, os.PathLike)):
            return False
        path = os.path.abspath(os.fsdecode(os.fspath(value)))
        return path == root or path.startswith(root + os.sep)

    def hook(self, event: str, args: tuple[object, ...]) -> None:
        """Record ``event`` if it reaches the store; never raises (that would fail the call)."""
        if event not in PATH_EVENTS and event != "subprocess.Popen":
            return
        try:
            if event == "subprocess.Popen":
                self._started(args)
            elif any(self._inside(arg, self.store) for arg in args):
                self.seen.append(f"{event} {args[0]!r}")
        except Exception:
            pass

    def _started(self, args: tuple[object, ...]) -> None:
        """A process that names the store, or that would find it: started in the clone with
        no ``MEMSCOPE_DB`` (memscope looks for ``.memscope/`` above its working folder)."""
        _executable, argv, cwd, env = args
        words = [argv] if isinstance(argv, (str, bytes, os.PathLike)) else list(argv or ())
        environment = os.environ if env is None else env
        if any(isinstance(w, (str, bytes)) and self.store in os.fsdecode(w) for w in words) or (
            self._inside(environment.get("MEMSCOPE_DB", ""), self.store)
        ):
            self.seen.append(f"started {words!r} naming it")
        elif not environment.get("MEMSCOPE_DB") and self._inside(cwd or os.getcwd(), self.repo):
            self.seen.append(f"started {words!r} in {cwd or os.getcwd()} without MEMSCOPE_DB")
