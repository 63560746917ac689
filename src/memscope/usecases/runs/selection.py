"""Turning what the user typed into run ids: :func:`select_runs`, the one way every command
and the app do it.

A reference is a run id (exact, or as memscope prints it: ``srag_v\\u200b``), a run
directory (ingested when new or changed), ``DIR:PART`` for one run of a directory that holds
several, or, where :attr:`SelectOptions.folders` allows it, a folder of runs (every run at or
below it). No reference means the run opened or ingested last; the selection says so
(:attr:`RunSelection.defaulted`), and the CLI prints it on stderr, so a default never picks a
run silently. Look-alike names are refused with the candidates listed
(``usecases.runs.names``), never one of them picked.

:func:`check_refs` looks at references without ingesting anything, so ``memscope open``
refuses a bad one before the terminal is taken.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memscope.adapters import ReadOptions
from memscope.errors import RunDirError
from memscope.store import Store
from memscope.usecases.runs.ingest import IngestFailure, ingest_paths, resolve_run

Progress = Callable[[str], None]
"""Told, in words, what is being read (the app's loading line)."""


@dataclass(frozen=True)
class SelectOptions:
    """How :func:`select_runs` reads the references."""

    read: ReadOptions | None = None
    """The read options for run directories that are ingested on the way (``--dataset`` …)."""
    ingest: bool = True
    """Ingest run directories that are new or changed; False: only runs already stored."""
    folders: bool = False
    """A directory names every run at or below it (``table runs/``; ``open`` of one folder);
    False: a directory must be one run (``DIR:PART`` picks one of several)."""
    progress: Progress | None = None


@dataclass(frozen=True)
class RunSelection:
    """The runs a command works on, in the order they were named."""

    run_ids: list[str]
    """One id per reference, or every run of a folder; duplicates kept (``compare A A``)."""
    defaulted: bool = False
    """No reference was given: :attr:`run_ids` holds the run opened or ingested last."""
    folder: str | None = None
    """The one directory named, when the selection is exactly one folder's runs."""
    left_out: list[IngestFailure] = field(default_factory=list)
    """Run directories below a named folder that could not be read (the others were kept)."""

    @property
    def first(self) -> str:
        """The first (for most commands, the only) run."""
        return self.run_ids[0]

    @property
    def distinct_ids(self) -> list[str]:
        """The run ids in order, each once."""
        return list(dict.fromkeys(self.run_ids))


def select_runs(
    store: Store, refs: Sequence[str | None], options: SelectOptions | None = None
) -> RunSelection:
    """The runs ``refs`` name (see the module); ``[]`` or ``[None]``: the run opened last.

    Raises:
        NotFoundError: an unknown run, naming the runs that look like it (never picking one)
            or the nearest ids; no run at all, or no store yet, when none is named.
        RunDirError: a named folder holds no run.
        InputError: a directory holding several runs where :attr:`SelectOptions.folders`
            is False, naming them.
    """
    options = options or SelectOptions()
    named = [ref for ref in refs if ref is not None]
    if not named:
        last = resolve_run(store, None, options=options.read, ingest=options.ingest)
        return RunSelection([last], defaulted=True)
    run_ids: list[str] = []
    left_out: list[IngestFailure] = []
    folders: list[str] = []
    for ref in named:
        path = Path(ref).expanduser()
        if options.progress is not None:
            options.progress(f"Reading {ref} …")
        if options.folders and options.ingest and path.is_dir():
            outcomes, failures = ingest_paths(store, [path], options.read or ReadOptions())
            run_ids += list(dict.fromkeys(outcome.run_id for outcome in outcomes))
            left_out += failures
            folders.append(str(path))
        else:
            run_ids.append(resolve_run(store, ref, options=options.read, ingest=options.ingest))
    folder = folders[0] if len(named) == 1 and folders else None
    return RunSelection(run_ids, folder=folder, left_out=left_out)


def _stored(store: Store, run_id: str) -> bool:
    """Whether the store holds a run of id ``run_id`` (False without a store)."""
    if not store.exists:
        return False
    from memscope.store import queries

    with store.read() as con:
        return queries.get_run(con, run_id) is not None


def check_refs(store: Store, refs: Sequence[str]) -> None:
    """Refuse a reference that is neither a directory nor an ingested run, ingesting nothing
    (``memscope open`` checks before the app starts).

    Raises:
        RunDirError: a path that does not exist.
        NotFoundError: an unknown run id, naming the nearest ones; with no reference, no run
            to default to.
    """
    if not refs:  # the run opened last: there must be one (and a store to hold it)
        resolve_run(store, None, ingest=False)
    for ref in refs:
        if Path(ref).expanduser().exists():
            continue
        directory, _, part = ref.rpartition(":")
        if directory and part and Path(directory).expanduser().is_dir():
            continue  # DIR:PART, one run of a directory that holds several
        if ("/" in ref or ref.startswith(".")) and not _stored(store, ref):
            # A run id memscope printed may hold a "/" (``gpt-4o-mini/con``, parent folders
            # prefixed to tell two same-named directories apart): a stored id is not a path.
            raise RunDirError(
                "no such run directory",
                where=ref,
                fix="Check the path, or name an ingested run (memscope runs).",
            )
        resolve_run(store, ref, ingest=False)
