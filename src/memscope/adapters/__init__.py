"""Adapters: read benchmark run directories into records (files in, records out).

``detect`` picks the adapter for a run directory; ``find_run_dirs`` finds every run below
a folder. Adapters know files, not DuckDB, not Textual, not torch.
"""

from __future__ import annotations

import os
from pathlib import Path

from memscope.adapters.base import ReadOptions, RunAdapter
from memscope.adapters.memeye import is_memeye_run, read_memeye_run
from memscope.errors import RunDirError
from memscope.file_kinds import not_regular
from memscope.records import RunRecord

RUN_FILE_NAMES = ("predictions.jsonl", "metrics.json", "f2_per_probe.csv")
"""The files that make a folder a run (CUE-Mem's ``*_results.json`` names vary)."""

__all__ = [
    "ReadOptions",
    "RunAdapter",
    "adapters",
    "detect",
    "find_run_dirs",
    "read_run",
    "read_runs",
]


class MemEyeAdapter:
    """MemEye runs: config.json, metrics.json, predictions.jsonl."""

    name = "memeye"

    def sniff(self, path: Path) -> bool:
        return is_memeye_run(path)

    def read(self, path: Path, options: ReadOptions) -> RunRecord:
        return read_memeye_run(path, options.dataset)


class _ManyRunsAdapter:
    """A format whose directory can hold several runs (``read_all``); ``read`` wants exactly one."""

    name = ""

    def read_all(self, path: Path, options: ReadOptions) -> list[RunRecord]:
        raise NotImplementedError

    def read(self, path: Path, options: ReadOptions) -> RunRecord:
        records = self.read_all(path, options)
        if len(records) != 1:
            raise RunDirError(
                f"this directory holds {len(records)} runs: {', '.join(r.run_id for r in records)}",
                where=str(path),
                fix="Ingest the directory, then name one run by its id.",
            )
        return records[0]


class DmvAdapter(_ManyRunsAdapter):
    """DMV-Bench F2 runs: f2_per_probe.csv (one run per system), logs, cue registry."""

    name = "dmv"

    # DMV-Bench and CUE-Mem modules load on first use: most sessions never need them.
    def sniff(self, path: Path) -> bool:
        from memscope.adapters.dmv import is_dmv_run

        return is_dmv_run(path)

    def read_all(self, path: Path, options: ReadOptions) -> list[RunRecord]:
        from memscope.adapters.dmv import read_dmv_runs

        return read_dmv_runs(path, options)


class CueMemAdapter(_ManyRunsAdapter):
    """CUE-Mem runs: one per *_results.json (RQ1/RQ2 or RQ3), joined to a history file."""

    name = "cuemem"

    def sniff(self, path: Path) -> bool:
        from memscope.adapters.cuemem import is_cuemem_run

        return is_cuemem_run(path)

    def read_all(self, path: Path, options: ReadOptions) -> list[RunRecord]:
        from memscope.adapters.cuemem import read_cuemem_runs

        return read_cuemem_runs(path, options)


def adapters() -> list[RunAdapter]:
    """Every supported run format, most specific first."""
    return [MemEyeAdapter(), DmvAdapter(), CueMemAdapter()]


def detect(path: Path) -> RunAdapter:
    """Return the adapter that reads the run directory ``path``.

    Raises:
        RunDirError: when no adapter recognises it.
    """
    if not path.exists():
        raise RunDirError("no such file or directory", where=str(path), fix="Check the path.")
    if not path.is_dir():
        raise RunDirError(
            "not a directory; memscope opens run directories",
            where=str(path),
            fix="Pass the folder that holds the run's files (e.g. predictions.jsonl).",
        )
    for adapter in adapters():
        if adapter.sniff(path):
            return adapter
    for name in RUN_FILE_NAMES:  # a run whose file is a FIFO or folder: say so, not "no run"
        kind = not_regular(path / name)
        if kind is not None:
            raise RunDirError(
                f"{name} is {kind}, not a regular file",
                where=str(path / name),
                fix="memscope reads a run's files as regular files; restore the file.",
            )
    raise RunDirError(
        "not a run directory: no MemEye predictions.jsonl + metrics.json, DMV-Bench f2_per_probe.csv "
        "or CUE-Mem *_results.json found",
        where=str(path),
        fix="Point at a run directory, or run `memscope ingest ROOT` to find every run below a folder.",
    )


def read_run(path: Path, options: ReadOptions | None = None) -> RunRecord:
    """Detect the format of ``path`` and read it."""
    return detect(path).read(path, options or ReadOptions())


def read_runs(path: Path, options: ReadOptions | None = None) -> list[RunRecord]:
    """Every run of the directory ``path`` (a DMV-Bench or CUE-Mem directory can hold several)."""
    adapter = detect(path)
    read_all = getattr(adapter, "read_all", None)
    options = options or ReadOptions()
    return read_all(path, options) if read_all is not None else [adapter.read(path, options)]


def find_run_dirs(root: Path, unreadable: list[tuple[Path, str]] | None = None) -> list[Path]:
    """Every run directory at or below ``root``, in path order.

    Symlinked folders are not followed, so a symlink loop cannot trap the search. A folder
    that cannot be read is skipped and, when ``unreadable`` is given, recorded there as
    ``(folder, reason)`` so the caller can say so.
    """
    if not root.exists():
        raise RunDirError("no such file or directory", where=str(root), fix="Check the path.")
    found: list[Path] = []
    known = adapters()

    def skipped(error: OSError) -> None:
        if unreadable is not None:
            unreadable.append((Path(error.filename or root), error.strerror or str(error)))

    for current, dirnames, _files in os.walk(root, followlinks=False, onerror=skipped):
        directory = Path(current)
        if any(adapter.sniff(directory) for adapter in known):
            found.append(directory)
            dirnames.clear()  # a run dir does not contain other runs
            continue
        dirnames[:] = sorted(name for name in dirnames if not name.startswith("."))
    return sorted(found)
