"""Adapters: read benchmark run directories into records (files in, records out).

Every benchmark is a package with a :class:`~memscope.adapters.spec.Benchmark` spec,
found through the registry (``adapters.registry``). ``detect`` picks the benchmark of a run
directory; ``find_run_dirs`` finds every run below a folder. Adapters know files, not
DuckDB, not Textual, not torch.
"""

from __future__ import annotations

import os
from pathlib import Path

from memscope.adapters.base import ReadOptions
from memscope.adapters.registry import benchmark, benchmarks, built_ins, unavailable
from memscope.adapters.registry import registry as loaded_registry
from memscope.adapters.spec import Benchmark, RunReader
from memscope.errors import RunDirError
from memscope.file_kinds import not_regular
from memscope.records import RunRecord

__all__ = [
    "Benchmark",
    "ReadOptions",
    "RunReader",
    "benchmark",
    "benchmarks",
    "detect",
    "find_run_dirs",
    "read_run",
    "read_runs",
    "resolved_run_dirs",
]


def _plugin(spec: Benchmark) -> bool:
    """Whether ``spec`` comes from a third-party package (not one of memscope's own)."""
    return bool(getattr(spec.reader, "plugin", False))


class _Readers:
    """The readers to ask: memscope's own first, the plugins imported only when no built-in
    reader claims a folder (so a plugin is never imported for a folder of built-in runs)."""

    def __init__(self) -> None:
        self.own = built_ins()
        self._plugins: list[Benchmark] | None = None

    def plugins(self) -> list[Benchmark]:
        if self._plugins is None:
            self._plugins = [spec for spec in benchmarks() if _plugin(spec)]
        return self._plugins


def _claimant(path: Path, readers: _Readers, skip: Benchmark | None = None) -> Benchmark | None:
    """The benchmark whose reader claims the directory ``path`` (None: no reader does).

    memscope's own readers are asked first, in sniffing order, and a built-in's claim is
    final: a plugin's sniff never takes memscope's own runs (so the plugins need not even
    be imported). Only where no built-in claims the folder are the plugins asked, in
    sniffing order; where several claim it, the first is told so in ``failures`` (``memscope
    benchmarks`` and "not a run directory" messages show it). ``skip``: a benchmark not to
    ask (a plugin that claimed a folder above).
    """
    own = next((s for s in readers.own if s is not skip and s.reader.sniff(path)), None)
    if own is not None:
        return own
    claims = [s for s in readers.plugins() if s is not skip and s.reader.sniff(path)]
    if not claims:
        return None
    first, others = claims[0], claims[1:]
    if others:
        names = ", ".join(spec.name for spec in others)
        loaded_registry().failures[first.name] = (
            f"its sniff claims {path}, which {names} also claims; memscope reads it as {first.name}"
        )
    return first


def detect(path: Path) -> Benchmark:
    """The benchmark whose runs the directory ``path`` holds.

    Raises:
        RunDirError: when no installed benchmark recognises it.
    """
    if not path.exists():
        raise RunDirError("no such file or directory", where=str(path), fix="Check the path.")
    if not path.is_dir():
        raise RunDirError(
            "not a directory; memscope opens run directories",
            where=str(path),
            fix="Pass the folder that holds the run's files (e.g. predictions.jsonl).",
        )
    claimant = _claimant(path, _Readers())
    if claimant is not None:
        return claimant
    known = benchmarks()
    # A run whose marking file is a FIFO or a folder: say so, not "no run".
    for name in (name for spec in known for name in spec.marker_files):
        kind = not_regular(path / name)
        if kind is not None:
            raise RunDirError(
                f"{name} is {kind}, not a regular file",
                where=str(path / name),
                fix="memscope reads a run's files as regular files; restore the file.",
            )
    names = [spec.run_files for spec in known]
    marks = (
        ", ".join(names[:-1]) + (" or " if len(names) > 1 else "") + names[-1] if names else "run"
    )
    failing = unavailable()
    also = (
        "; not loaded or failing: "
        + "; ".join(f"{name} ({why})" for name, why in sorted(failing.items()))
        if failing
        else ""
    )
    raise RunDirError(
        f"not a run directory: no {marks} found{also}",
        where=str(path),
        fix="Point at a run directory, or run `memscope ingest ROOT` to find every run below a folder.",
    )


def read_runs(path: Path, options: ReadOptions | None = None) -> list[RunRecord]:
    """Every run of the directory ``path`` (one directory can hold several)."""
    return detect(path).reader.read_all(path, options or ReadOptions())


def read_run(path: Path, options: ReadOptions | None = None) -> RunRecord:
    """The one run of the directory ``path``.

    Raises:
        RunDirError: the directory holds several runs (naming them).
    """
    records = read_runs(path, options)
    if len(records) != 1:
        raise RunDirError(
            f"this directory holds {len(records)} runs: {', '.join(r.run_id for r in records)}",
            where=str(path),
            fix="Ingest the directory, then name one run by its id.",
        )
    return records[0]


def find_run_dirs(
    root: Path,
    unreadable: list[tuple[Path, str]] | None = None,
    not_runs: list[tuple[Path, str]] | None = None,
) -> list[Path]:
    """Every run directory at or below ``root``, in path order.

    A run directory is not searched further unless its benchmark's runs nest
    (``Benchmark.runs_nest``). Symlinked folders are not followed, so a symlink loop cannot
    trap the search. A folder that cannot be read is skipped and, when ``unreadable`` is
    given, recorded there as ``(folder, reason)`` so the caller can say so. A folder that
    holds a benchmark's marking file name (``predictions.jsonl``, ``f2_per_probe.csv``)
    that no reader claims (the file is a folder or FIFO, the run is incomplete) is recorded
    in ``not_runs`` as ``(folder, why)``, ``why`` being what :func:`detect` says of it.
    """
    if not root.exists():
        raise RunDirError("no such file or directory", where=str(root), fix="Check the path.")
    found: list[Path] = []
    readers = _Readers()
    markers = {name for spec in readers.own for name in spec.marker_files}

    def skipped(error: OSError) -> None:
        if unreadable is not None:
            unreadable.append((Path(error.filename or root), error.strerror or str(error)))

    # Folders a plugin claimed without nesting: below them only another benchmark's runs
    # count, so a greedy sniff cannot hide them (and is named when it would have).
    claimed: dict[Path, Benchmark] = {}
    for current, dirnames, _files in os.walk(root, followlinks=False, onerror=skipped):
        directory = Path(current)
        dirnames[:] = sorted(name for name in dirnames if not name.startswith("."))
        above = (
            next((claimed[p] for p in directory.parents if p in claimed), None) if claimed else None
        )
        spec = _claimant(directory, readers, skip=above)
        if spec is None:
            # No built-in claimed it, so the plugins were asked: their marks count too.
            markers |= {name for plugin in readers.plugins() for name in plugin.marker_files}
            if not_runs is not None and markers & {*dirnames, *_files}:
                try:
                    detect(directory)
                except RunDirError as error:
                    not_runs.append((directory, error.what))
                dirnames[:] = [name for name in dirnames if name not in markers]
            continue
        found.append(directory)
        if above is not None:
            loaded_registry().failures[above.name] = (
                f"its sniff claims {_parent_in(directory, claimed)}, which holds runs of "
                f"{spec.name} below it ({directory}); memscope reads those too"
            )
        if spec.runs_nest:
            continue
        if _plugin(spec):
            claimed[directory] = spec
        else:
            dirnames.clear()  # its runs are all here
    return sorted(found)


def _parent_in(directory: Path, claimed: dict[Path, Benchmark]) -> Path:
    return next(parent for parent in directory.parents if parent in claimed)


def resolved_run_dirs(root: Path, run_dirs: list[Path]) -> list[Path]:
    """Each of ``run_dirs`` (what ``find_run_dirs(root)`` found) as ``Path.resolve`` gives it.

    ``root`` is resolved once and the rest of each path appended: the search never enters a
    symlinked folder below ``root``, so nothing below it has a link to follow (a resolve per
    run costs a ``lstat`` per folder of its path: 0.2 s over 1,280 runs).
    """
    base = root.resolve()
    resolved = []
    for run_dir in run_dirs:
        try:
            below = run_dir.relative_to(root)
        except ValueError:  # not found below root after all: resolved on its own
            resolved.append(run_dir.resolve())
            continue
        resolved.append(base / below)
    return resolved
