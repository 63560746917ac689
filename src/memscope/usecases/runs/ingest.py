"""Finding runs: ingesting run directories and resolving what the user names a run."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path

from memscope.adapters import Benchmark, ReadOptions, detect, find_run_dirs, resolved_run_dirs
from memscope.adapters.files import current_stats
from memscope.adapters.guarded import reader_is_current
from memscope.adapters.run_sources import recorded_sources
from memscope.errors import InputError, MemscopeError, NotFoundError, RunDirError
from memscope.identity import relabelled, run_labels
from memscope.json_types import JSONValue
from memscope.records import RunRecord
from memscope.store import Store, queries
from memscope.store.ingest import (
    IngestOutcome,
    StoredRunState,
    ingest_run,
    stored_parts,
    stored_run_state,
    stored_run_states,
    stored_runs_under,
)
from memscope.store.ingest_batch import batchable, first_of_new_datasets, ingest_batch
from memscope.textsafe import parse_id, printable_id
from memscope.usecases.runs.names import printed_match, two_readings, unknown_run
from memscope.usecases.runs.run_info import RunInfo

WRITE_HOLD_S = 1.0
"""How long an ingest of many runs holds the store's write connection before letting go
for a moment (another process waiting for the store gets in; opening it costs tens of ms)."""
BATCH_RUNS = 256
"""How many changed run directories are read before their plain new runs are stored in one
batch (``store.ingest_batch``)."""
BATCH_BYTES = 64 * 1024 * 1024
"""… or fewer, once their files add up to this many bytes (a batch stages them all at once)."""


@dataclass
class IngestFailure:
    """A run directory that could not be ingested, with the reason."""

    path: str
    error: MemscopeError
    below_root: bool = False
    """A folder found below a path given that could not be read as a run (unreadable, or
    holding a run's file name that no reader claims): the CLI lists these in one summary."""


def ingest_dir(
    store: Store, run_dir: Path, options: ReadOptions, *, strict: bool = False
) -> IngestOutcome:
    """Ingest one run directory unless the store already has it unchanged.

    Raises:
        InputError: when the directory holds several runs (a DMV-Bench directory with
            several systems, a CUE-Mem directory with several result files); they are
            ingested first, and the message lists their ids. Use :func:`ingest_dir_runs`
            to get every outcome.
    """
    outcomes = ingest_dir_runs(store, run_dir, options, strict=strict)
    if len(outcomes) == 1:
        return outcomes[0]
    raise InputError(
        f"this directory holds {len(outcomes)} runs: {', '.join(o.run_id for o in outcomes)}",
        where=str(run_dir),
        fix=f"Name one run by its id (e.g. {outcomes[0].run_id}) or as DIR:PART (e.g. {run_dir}:{outcomes[0].run_id.rpartition(':')[2]}).",
    )


def ingest_dir_runs(
    store: Store,
    run_dir: Path,
    options: ReadOptions,
    *,
    strict: bool = False,
    label: str | None = None,
    verify: bool = False,
) -> list[IngestOutcome]:
    """Ingest every run of one directory (a directory may hold several runs).

    ``label`` replaces the folder name at the start of the new runs' ids (see
    :func:`memscope.identity.run_labels`); a run already in the store keeps its id. Where
    the store already holds runs of this directory, the data files it joined them to last
    time are used again unless a flag names others, so a run ingested with ``--dataset``
    or a benchmark's own option needs neither afterwards. A run whose files kept their
    sizes and modification times is unchanged without being read; ``verify`` reads and
    hashes it all the same (a file changed in place with its time kept back).
    """
    run_dir = run_dir.resolve()
    spec = detect(run_dir)
    if not verify and not options.reread:
        unchanged = _unchanged_run(store, run_dir)
        if unchanged is not None:
            return unchanged
    records = _read_records(store, run_dir, options, spec, strict=strict, label=label)
    with store.write() as con:
        return [ingest_run(con, record, strict=strict) for record in records]


def _read_records(
    store: Store,
    run_dir: Path,
    options: ReadOptions,
    spec: Benchmark,
    *,
    strict: bool,
    label: str | None,
    look_up: bool = True,
) -> list[RunRecord]:
    """The runs of ``run_dir`` (resolved) as its benchmark's reader reads them, with the
    data files remembered for it (``look_up=False``: the caller knows the store holds no
    run of it) and their ids relabelled (see :func:`ingest_dir_runs`)."""
    if look_up:
        options = _with_remembered_sources(store, run_dir, options, spec)
    records = spec.reader.read_all(run_dir, replace(options, strict=strict or options.strict))
    used = _sources_used(options, spec)
    for record in records:
        record.run_id = relabelled(record.run_id, run_dir.name, label or run_dir.name)
        if used:  # a later read of this directory (table DIR, report DIR …) uses them again
            record.config[READ_SOURCES] = dict[str, JSONValue](used)
    return records


READ_SOURCES = "read_sources"
"""The run config's record of the read options a run was read with (``dataset`` and the
benchmark's own options, as absolute paths), so any later read of its directory uses them
again without the flags."""


def _sources_used(options: ReadOptions, spec: Benchmark) -> dict[str, str]:
    """``--dataset`` and the benchmark's options the read used, as absolute paths."""
    used: dict[str, str] = {}
    if options.dataset is not None:
        used["dataset"] = str(Path(options.dataset).expanduser().resolve())
    for option in spec.read_options:
        path = options.path_option(option.key)
        if path is not None:
            used[option.key] = str(path.expanduser().resolve())
    return used


def _unchanged_run(store: Store, run_dir: Path) -> list[IngestOutcome] | None:
    """The stored runs of exactly this directory, when none of their files changed since
    (a read-only look, so an unchanged run never takes the write lock); else None."""
    if not store.exists:
        return None
    with store.read() as con:
        state = stored_run_state(con, str(run_dir))
        parts = [] if state is not None else list(stored_parts(con, str(run_dir)).values())
    if state is not None:
        unchanged = _unchanged_by_stats(state, run_dir)
        return None if unchanged is None else [unchanged]
    return _unchanged_parts(parts, run_dir)


def _unchanged_parts(states: list[StoredRunState], run_dir: Path) -> list[IngestOutcome] | None:
    """The runs of a directory that holds several (stored as ``<dir>#<part>``), when every
    one is unchanged by its files' stats and every file now in the directory is one of
    theirs (a new run file, or any file no run named, makes the directory read again)."""
    if not states:
        return None
    outcomes = []
    for state in states:
        unchanged = _unchanged_by_stats(state, run_dir)
        if unchanged is None:
            return None
        outcomes.append(replace(unchanged, path=state.path))
    named = {name for state in states for name in state.file_stats}
    try:
        present = {entry.name for entry in run_dir.iterdir() if entry.is_file()}
    except OSError:
        return None
    return outcomes if present <= named else None


def _unchanged_by_stats(state: StoredRunState | None, run_dir: Path) -> IngestOutcome | None:
    """The outcome of a run directory whose files all kept the size and modification time
    recorded at its last ingest (a ``stat`` per file, nothing read); else None."""
    if state is None or not state.file_stats or not reader_is_current(state.content_hash):
        return None
    try:
        unchanged = current_stats([run_dir / name for name in state.file_stats]) == state.file_stats
    except OSError:
        return None
    if not unchanged:
        return None
    return IngestOutcome(state.run_id, str(run_dir), "unchanged", state.n_questions)


def _with_remembered_sources(
    store: Store, run_dir: Path, options: ReadOptions, spec: Benchmark
) -> ReadOptions:
    """``options`` plus the data files the store used for this directory before: the
    history files of its results (by file name) and every option of the benchmark that is
    remembered (``ReadOption.remembered_as``), unless given now or in the directory's
    ``memscope_sources.json``."""
    if not store.exists:
        return options
    with store.read() as con:
        stored = stored_runs_under(con, str(run_dir))
    extra = dict(options.extra)
    dataset = options.dataset
    histories = {}
    recorded = None
    keys = [option.key for option in spec.read_options]

    def own_sources(run_dir: Path) -> dict[str, Path]:
        return recorded_sources(run_dir, keys)

    for path, config in stored:
        history = config.get("history_file")
        if isinstance(history, str) and Path(history).is_file():
            histories[Path(path).name] = history
        sources = config.get(READ_SOURCES)
        if isinstance(sources, dict):
            for key, value in sources.items():
                known = key == "dataset" or any(o.key == key for o in spec.read_options)
                given = dataset if key == "dataset" else extra.get(key)
                if not known or given or not isinstance(value, str) or not Path(value).exists():
                    continue
                recorded = own_sources(run_dir) if recorded is None else recorded
                if key in recorded:  # the directory's memscope_sources.json says otherwise
                    continue
                if key == "dataset":
                    dataset = Path(value)
                else:
                    extra[key] = Path(value)
        for option in spec.read_options:
            if option.remembered_as is None or extra.get(option.key):
                continue
            value = config.get(option.remembered_as)
            if not isinstance(value, str) or not Path(value).is_file():
                continue
            recorded = own_sources(run_dir) if recorded is None else recorded
            if option.key not in recorded:
                extra[option.key] = Path(value)
    return replace(options, dataset=dataset, extra=extra, remembered=histories)


def ingest_paths(
    store: Store,
    paths: list[Path],
    options: ReadOptions,
    *,
    strict: bool = False,
    verify: bool = False,
    on_outcome: Callable[[IngestOutcome | IngestFailure], None] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> tuple[list[IngestOutcome], list[IngestFailure]]:
    """Ingest every run directory at or below each path.

    A path that is itself a run directory is ingested; any other directory is searched
    recursively. One broken run does not stop the others. The store is looked at once for
    every run's recorded file stats, so an unchanged run costs a ``stat`` per file
    (``verify``: every run is read and hashed); the changed ones share one write
    connection, let go now and then so that another process can get a word in. They are
    read ``BATCH_RUNS`` at a time; the plain new runs among them are stored in one batch
    (``store.ingest_batch``), the others one by one, and every outcome is reported in the
    order of the folders. ``on_progress(done, total)`` is called with the run directories
    found, then as they are stored.

    Raises:
        RunDirError: when a path does not exist or holds no run at all.
    """
    new_store = not store.exists
    new_folder = not store.path.parent.exists()
    try:
        outcomes, failures = _ingest_paths(
            store,
            paths,
            options,
            strict=strict,
            verify=verify,
            on_outcome=on_outcome,
            on_progress=on_progress,
        )
    except BaseException:
        if new_store:  # a refused ingest leaves no new store file behind
            store.discard_if_empty(folder_too=new_folder)
        raise
    if new_store and not outcomes:
        store.discard_if_empty(folder_too=new_folder)
    return outcomes, failures


def _ingest_paths(
    store: Store,
    paths: list[Path],
    options: ReadOptions,
    *,
    strict: bool,
    verify: bool,
    on_outcome: Callable[[IngestOutcome | IngestFailure], None] | None,
    on_progress: Callable[[int, int], None] | None,
) -> tuple[list[IngestOutcome], list[IngestFailure]]:
    """:func:`ingest_paths` itself (the store file it may create is its caller's to remove)."""
    outcomes: list[IngestOutcome] = []
    failures: list[IngestFailure] = []
    found: list[list[Path]] = []
    found_resolved: list[list[Path]] = []  # the same, each resolved
    for path in paths:
        unreadable: list[tuple[Path, str]] = []
        not_runs: list[tuple[Path, str]] = []
        run_dirs = find_run_dirs(path, unreadable, not_runs)
        if not run_dirs and [folder for folder, _why in not_runs] == [path]:
            detect(path)  # the path itself: its own specific message
        skipped = [
            (folder, f"cannot read this folder ({reason}); any run in it was skipped")
            for folder, reason in unreadable
        ] + not_runs
        for folder, why in sorted(skipped):
            failure = IngestFailure(
                str(folder),
                RunDirError(
                    why,
                    where=str(folder),
                    fix="Give memscope read access to it, or leave it out."
                    if (folder, why) not in not_runs
                    else "Restore the run's files, or leave the folder out.",
                ),
                below_root=True,
            )
            failures.append(failure)
            if on_outcome:
                on_outcome(failure)
        if not run_dirs and skipped:
            continue
        if not run_dirs:
            detect(path)  # raises the specific "not a run directory" message
            raise RunDirError("no run directories found", where=str(path))
        found.append(run_dirs)
        found_resolved.append(resolved_run_dirs(path, run_dirs))
    # Run ids are settled over everything found together (identity.run_labels).
    labels = run_labels([run_dir for run_dirs in found_resolved for run_dir in run_dirs])
    stored: dict[str, StoredRunState] = {}
    if store.exists:
        with store.read() as con:
            stored = stored_run_states(con)
    # The folders whose stored runs _with_remembered_sources would find: a run directory
    # outside them has no data files to remember, and its look-up is skipped.
    related = _RelatedFolders(stored)
    if verify or options.reread:
        stored = {}  # every run is read and hashed
    parts_of: dict[str, list[StoredRunState]] = {}
    for stored_path, stored_state in stored.items():
        stored_dir, part, _ = stored_path.partition("#")
        if part:
            parts_of.setdefault(stored_dir, []).append(stored_state)

    def report(results: list[IngestOutcome] | list[IngestFailure]) -> None:
        if on_outcome:
            for result in results:
                on_outcome(result)

    total = sum(len(run_dirs) for run_dirs in found)
    done = 0
    if on_progress:
        on_progress(done, total)
    writer = _HeldWriter(store)
    pending: list[_ReadRunDir] = []  # changed run directories read, not yet stored
    pending_bytes = 0
    with writer:

        def store_pending() -> None:
            nonlocal done, pending_bytes
            for results in _store_read_runs(writer, pending, strict=strict):
                done += 1
                if isinstance(results, IngestFailure):
                    failures.append(results)
                    report([results])
                else:
                    outcomes.extend(results)
                    report(results)
                if on_progress:
                    on_progress(done, total)
            pending.clear()
            pending_bytes = 0

        for run_dirs, resolved_dirs in zip(found, found_resolved, strict=True):
            for run_dir, resolved in zip(run_dirs, resolved_dirs, strict=True):
                dir_state = stored.get(str(resolved))
                found_unchanged = (
                    _unchanged_parts(parts_of.get(str(resolved), []), resolved)
                    if dir_state is None
                    else [u]
                    if (u := _unchanged_by_stats(dir_state, resolved))
                    else None
                )
                if found_unchanged is not None:
                    store_pending()  # outcomes are reported in the order of the folders
                    done += 1
                    outcomes.extend(found_unchanged)
                    report(found_unchanged)
                    if on_progress:
                        on_progress(done, total)
                    continue
                look_up = str(resolved) in related
                if look_up:
                    store_pending()  # its look-up must see the runs read before it stored
                read = _read_run_dir(
                    writer,
                    run_dir,
                    options,
                    strict=strict,
                    label=labels[resolved],
                    look_up=look_up,
                )
                pending.append(read)
                related.add(record.path for record in read.records)
                pending_bytes += read.size
                if len(pending) >= BATCH_RUNS or pending_bytes >= BATCH_BYTES:
                    store_pending()
        store_pending()
    return outcomes, failures


@dataclass
class _ReadRunDir:
    """A changed run directory read by its benchmark's reader (or the error of reading it)."""

    path: Path
    records: list[RunRecord]
    error: MemscopeError | None = None

    @property
    def size(self) -> int:
        """The bytes of its files (what staging it in a batch costs)."""
        return sum(stats[0] for record in self.records for stats in record.file_stats.values())


def _read_run_dir(
    writer: _HeldWriter,
    run_dir: Path,
    options: ReadOptions,
    *,
    strict: bool,
    label: str,
    look_up: bool,
) -> _ReadRunDir:
    """Read one changed run directory, the write connection held (the store's look-ups of
    its remembered data files go through it instead of opening the store each time);
    ``look_up``: whether the store may hold runs of it (see :class:`_RelatedFolders`)."""
    try:
        writer.hold()
        resolved = run_dir.resolve()
        spec = detect(resolved)
        records = _read_records(
            writer.store, resolved, options, spec, strict=strict, label=label, look_up=look_up
        )
    except MemscopeError as error:
        return _ReadRunDir(run_dir, [], error)
    return _ReadRunDir(run_dir, records)


class _RelatedFolders:
    """The folders whose runs ``store.ingest.stored_runs_under`` finds, for a set of run
    paths: each path itself, every part of it before a ``#`` (``<dir>#<system>``) and its
    parent (a results file directly in a folder). A folder outside them has no stored run."""

    def __init__(self, paths: Iterable[str]) -> None:
        self._folders: set[str] = set()
        self.add(paths)

    def add(self, paths: Iterable[str]) -> None:
        for path in paths:
            self._folders.add(path)
            self._folders.add(path.rpartition("/")[0])
            self._folders.update(path[:at] for at, char in enumerate(path) if char == "#")

    def __contains__(self, folder: str) -> bool:
        return folder in self._folders


class _HeldWriter:
    """The write connection an ingest of many runs shares, let go when held longer than
    ``WRITE_HOLD_S`` (checked before each write) so that another process gets a word in."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._held = ExitStack()
        self._since = 0.0

    def __enter__(self) -> _HeldWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self._held.close()

    def hold(self) -> None:
        """Hold the write connection (again, after letting go when held too long).

        Raises:
            MemscopeError: when the store cannot be opened for writing.
        """
        if self._since and time.monotonic() - self._since > WRITE_HOLD_S:
            self._held.close()
            self._since = 0.0
        if not self._since:
            self._held.enter_context(self.store.writing())
            self._since = time.monotonic()


def _store_read_runs(
    writer: _HeldWriter, read: list[_ReadRunDir], *, strict: bool
) -> list[list[IngestOutcome] | IngestFailure]:
    """Store the runs read, each directory's outcomes (or failure) in the order given.

    The plain new runs (one per directory) go in one batch (``store.ingest_batch``); every
    other run, and any the batch leaves out, is ingested alone by ``ingest_run``, which
    reports its problems as it always has.
    """
    results: list[list[IngestOutcome] | IngestFailure | None] = [
        IngestFailure(str(item.path), item.error) if item.error else None for item in read
    ]
    single = [index for index, item in enumerate(read) if not item.error and len(item.records) == 1]
    # The first run of a new dataset stores it in the batch when it is plain itself; one
    # that is not is ingested alone first (and the batch is tried again that way when such
    # a run fails the batch's checks), so that the runs after it can still be batched.
    first_alone = False
    for _attempt in range(2):
        if len(single) < 2:
            break
        _ingest_openers(writer, read, single, results, strict=strict, all_of_them=first_alone)
        single = [index for index in single if results[index] is None]
        if len(single) < 2:
            break
        try:
            writer.hold()
            with writer.store.write() as con:
                batch = ingest_batch(
                    con, [read[index].records[0] for index in single], strict=strict
                )
        except MemscopeError:
            break  # every run goes the per-run way, which reports the problem
        for position, outcome in batch.outcomes.items():
            results[single[position]] = [outcome]
        if not batch.openers_alone:
            break
        first_alone = True
    for index, item in enumerate(read):
        if results[index] is None:
            results[index] = _ingest_alone(writer, item, strict=strict)
    return [result for result in results if result is not None]


def no_store_yet(store: Store, ref: str | None = None) -> NotFoundError:
    """The error of a command that needs a run where no store exists yet (nothing is created)."""
    return NotFoundError(
        (f"no run {ref!r} in the store: " if ref is not None else "") + "no store here yet",
        where=str(store.path),
        fix="Ingest a run first: `memscope ingest RUN_DIR` (or `memscope open RUN_DIR`); "
        "or name an existing store with --db PATH or $MEMSCOPE_DB.",
    )


def resolve_run(
    store: Store, ref: str | None, *, options: ReadOptions | None = None, ingest: bool = True
) -> str:
    """Turn what the user typed into a run id.

    ``ref`` may be a run id, or a run directory (ingested first when ``ingest``), or
    ``DIR:PART`` for one run of a directory that holds several (``runs/f2:TextOnly``), or a
    run id as memscope prints it (``srag_v\\u200b``, ``usecases.runs.names``); None means the
    run opened or ingested last.

    Raises:
        NotFoundError: naming the runs that look like ``ref`` (never picking one of them),
            else the nearest known run ids; or saying there is no store yet.
    """
    with store.read() as con:
        if ref is None:
            last = queries.last_run_id(con)
            if last is None and not store.exists:
                raise no_store_yet(store)
            if last is None:
                raise NotFoundError(
                    "the store holds no runs yet",
                    where=str(store.path),
                    fix="Ingest one first: `memscope ingest RUN_DIR` (or `memscope open RUN_DIR`).",
                )
            return last
        if queries.get_run(con, ref):
            printed = parse_id(ref)
            if printed != ref and queries.get_run(con, printed):
                raise two_readings(ref, printed, where=str(store.path))
            return ref
        path = Path(ref).expanduser()
        known = queries.run_id_for_path(con, str(path.resolve())) if path.exists() else None
        ids = queries.run_ids(con)
    if path.is_dir():
        if ingest:
            return ingest_dir(store, path, options or ReadOptions()).run_id
        if known:
            return known
    directory, _, part = ref.rpartition(":")
    if directory and part and not path.exists() and Path(directory).expanduser().is_dir():
        outcomes = (
            ingest_dir_runs(store, Path(directory).expanduser(), options or ReadOptions())
            if ingest
            else []
        )
        matching = [o.run_id for o in outcomes if o.run_id.rpartition(":")[2] == part]
        if matching:
            return matching[0]
        if outcomes:
            raise NotFoundError(
                f"no run {part!r} in this directory",
                where=directory,
                fix=f"Its runs: {', '.join(printable_id(o.run_id) for o in outcomes)}.",
            )
    if known:
        return known
    named = printed_match(ref, ids)
    if named is not None:
        return named
    if not store.exists:
        raise no_store_yet(store, ref)
    raise unknown_run(ref, ids, where=str(store.path))


def effective_k(run: RunInfo, k: int | None) -> int:
    """The cut-off K: ``--k``, else the run's ``top_k``, else 10."""
    return run.effective_k(k)


def _ingest_openers(
    writer: _HeldWriter,
    read: list[_ReadRunDir],
    single: list[int],
    results: list[list[IngestOutcome] | IngestFailure | None],
    *,
    strict: bool,
    all_of_them: bool,
) -> None:
    """Ingest alone the first run of each dataset the store lacks among ``single`` (the
    directories of one run) that a batch cannot store it with (``all_of_them``: every one)."""
    try:
        writer.hold()
        with writer.store.write() as con:
            records = [read[index].records[0] for index in single]
            openers = first_of_new_datasets(con, records)
    except MemscopeError:
        return  # the per-run path meets the problem and reports it
    for position in openers:
        if all_of_them or strict or not batchable(records[position]):
            index = single[position]
            results[index] = _ingest_alone(writer, read[index], strict=strict)


def _ingest_alone(
    writer: _HeldWriter, item: _ReadRunDir, *, strict: bool
) -> list[IngestOutcome] | IngestFailure:
    """Ingest the runs of one directory read, one transaction each (``ingest_run``)."""
    try:
        writer.hold()
        with writer.store.write() as con:
            return [ingest_run(con, record, strict=strict) for record in item.records]
    except MemscopeError as error:
        return IngestFailure(str(item.path), error)
