"""Finding runs: ingesting run directories and resolving what the user names a run."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memscope.adapters import ReadOptions, detect, find_run_dirs
from memscope.adapters.files import current_stats
from memscope.errors import MemscopeError, NotFoundError, RunDirError
from memscope.store import Store, queries
from memscope.store.ingest import IngestOutcome, ingest_run, stored_run_state

DEFAULT_K = 10


@dataclass
class IngestFailure:
    """A run directory that could not be ingested, with the reason."""

    path: str
    error: MemscopeError


def ingest_dir(store: Store, run_dir: Path, options: ReadOptions, *, strict: bool = False) -> IngestOutcome:
    """Ingest one run directory unless the store already has it unchanged."""
    run_dir = run_dir.resolve()
    adapter = detect(run_dir)
    with store.read() as con:
        state = stored_run_state(con, str(run_dir))
    if state is not None and state.file_stats:
        try:
            unchanged = current_stats([run_dir / name for name in state.file_stats]) == state.file_stats
        except OSError:
            unchanged = False
        if unchanged:
            return IngestOutcome(state.run_id, str(run_dir), "unchanged", state.n_questions)
    record = adapter.read(run_dir, options)
    with store.write() as con:
        return ingest_run(con, record, strict=strict)


def ingest_paths(
    store: Store,
    paths: list[Path],
    options: ReadOptions,
    *,
    strict: bool = False,
    on_outcome: Callable[[IngestOutcome | IngestFailure], None] | None = None,
) -> tuple[list[IngestOutcome], list[IngestFailure]]:
    """Ingest every run directory at or below each path.

    A path that is itself a run directory is ingested; any other directory is searched
    recursively. One broken run does not stop the others.

    Raises:
        RunDirError: when a path does not exist or holds no run at all.
    """
    outcomes: list[IngestOutcome] = []
    failures: list[IngestFailure] = []
    for path in paths:
        run_dirs = find_run_dirs(path)
        if not run_dirs:
            detect(path)  # raises the specific "not a run directory" message
            raise RunDirError("no run directories found", where=str(path))
        for run_dir in run_dirs:
            try:
                result: IngestOutcome | IngestFailure = ingest_dir(store, run_dir, options, strict=strict)
                outcomes.append(result)
            except MemscopeError as error:
                result = IngestFailure(str(run_dir), error)
                failures.append(result)
            if on_outcome:
                on_outcome(result)
    return outcomes, failures


def resolve_run(store: Store, ref: str | None, *, options: ReadOptions | None = None, ingest: bool = True) -> str:
    """Turn what the user typed into a run id.

    ``ref`` may be a run id, or a run directory (ingested first when ``ingest``); None
    means the run opened or ingested last.

    Raises:
        NotFoundError: naming the nearest known run ids.
    """
    with store.read() as con:
        if ref is None:
            last = queries.last_run_id(con)
            if last is None:
                raise NotFoundError(
                    "the store holds no runs yet",
                    where=str(store.path),
                    fix="Ingest one first: `memscope ingest RUN_DIR` (or `memscope open RUN_DIR`).",
                )
            return last
        if queries.get_run(con, ref):
            return ref
        path = Path(ref).expanduser()
        if path.exists():
            known = queries.run_id_for_path(con, str(path.resolve()))
        else:
            known = None
        ids = queries.run_ids(con)
    if path.is_dir():
        if ingest:
            return ingest_dir(store, path, options or ReadOptions()).run_id
        if known:
            return known
    if known:
        return known
    close = difflib.get_close_matches(ref, ids, n=3, cutoff=0.4)
    hint = f"Did you mean {', '.join(close)}?" if close else "See `memscope runs` for the ingested runs."
    raise NotFoundError(f"no run {ref!r} in the store", where=str(store.path), fix=hint)


def effective_k(run: dict, k: int | None) -> int:
    """The cut-off K: ``--k``, else the run's ``top_k``, else 10."""
    if k is not None:
        return k
    return int(run.get("top_k") or DEFAULT_K)
