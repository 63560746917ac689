"""Opening the DuckDB store: short-lived connections, lock waits and migrations.

DuckDB lets one process write a database file, and no other process can even read it
meanwhile. memscope therefore never keeps the store open while idle: every command and
every app action opens a connection, does its work and closes it. Two scopes stretch one
connection over a short burst: ``reading()`` (a command that reads in several steps) and
``writing()`` (labels saved one keypress after another; the app lets go a second after
the last). Processes take turns through memscope's own lock beside the store
(``handoff.py``: DuckDB's lock alone lost committed writes). When another process holds
the file, opening waits briefly and then fails with one clear message. The file is opened
by attaching it to one DuckDB instance per process (``attached.py``): a few milliseconds
where a DuckDB connection of its own costs tens.
"""

from __future__ import annotations

import os
import re
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING

from memscope.errors import StoreBusyError, StoreDamagedError, StoreError
from memscope.file_kinds import not_regular
from memscope.store import attached, handoff

if TYPE_CHECKING:
    import duckdb

WAIT_ENV = "MEMSCOPE_LOCK_WAIT"
DEFAULT_WAIT_S = 5.0
RETRY_INTERVAL_S = 0.05
PID_IN_MESSAGE = re.compile(r"PID (\d+)")
FOREIGN_HEADERS = {b"SQLite format 3\x00": "a SQLite database"}
DAMAGE_SIGNS = (
    (
        "Could not read enough bytes",
        "the file is shorter than its contents say (truncated: a full disk, an interrupted "
        "copy or download)",
    ),
    ("Corrupt database file", "part of the file fails DuckDB's checksums (changed on disk)"),
    ("does not match stored checksum", "part of the file fails DuckDB's checksums"),
    ("not a valid DuckDB database file", "the file is not a DuckDB database"),
    ("Failed to deserialize", "DuckDB cannot read the store's catalog"),
)
"""DuckDB error texts that mean the file is damaged, and what that means in words."""
NOT_DUCKDB = DAMAGE_SIGNS[3][1]
NAMES_A_FILE = ("Could not read enough bytes", "not a valid DuckDB database file")
"""Signs that name the file they concern: damage only when that file is the store (an
input file DuckDB reads can be short too)."""
MISSING_TABLE = re.compile(r"Table with name (\S+) does not exist")
EXISTING_TABLE = re.compile(r'(?:Table|Sequence|Index) with name "?([^"\s]+)"? already exists')


def damage_of(error: BaseException, path: Path | None = None) -> str | None:
    """What is wrong with the store file (at ``path``), when a DuckDB error means it is
    damaged; None for any other error."""
    text = str(error)
    for sign, meaning in DAMAGE_SIGNS:
        if sign in text and (sign not in NAMES_A_FILE or path is None or str(path) in text):
            return meaning
    return None


def recovery_advice(path: Path) -> str:
    """What to do about a damaged store at ``path`` (the fix of every StoreDamagedError)."""
    import shlex

    db = shlex.quote(str(path))
    return (
        "Restore it from a backup, or re-ingest the runs into a new store (--db NEW.duckdb). "
        f"First run `memscope store check --db {db}`: it says what can still be read, and "
        "saves the labels (--save-labels FILE) for `memscope import-labels` if they can be."
    )


def damaged(path: Path, what: str) -> StoreDamagedError:
    """The one error for a damaged store: what is wrong, and what to do."""
    if what == NOT_DUCKDB:  # maybe damaged, maybe just the wrong file
        return StoreDamagedError(
            "this file is not a DuckDB database (empty, overwritten, or not a memscope store)",
            where=str(path),
            fix="If it is your store, it is damaged: "
            + recovery_advice(path)[0].lower()
            + recovery_advice(path)[1:]
            + " Otherwise use --db to pick your store.",
        )
    return StoreDamagedError(
        f"the store is damaged: {what}", where=str(path), fix=recovery_advice(path)
    )


def load_driver() -> None:
    """Import DuckDB now (a front end that opens the store on every path imports it with
    its own modules, rather than in the middle of its first screen)."""
    import duckdb  # noqa: F401


def rollback_quietly(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back if a transaction is open; never mask the error that led here.

    A failed COMMIT (disk full, read-only folder) has already ended the transaction, and
    ``ROLLBACK`` would then raise "no transaction is active" in place of the real cause.
    """
    import duckdb

    with suppress(duckdb.Error):
        con.rollback()


def foreign_file_kind(path: Path) -> str | None:
    """What a non-DuckDB file at ``path`` is (e.g. "a SQLite database"), or None."""
    try:
        with path.open("rb") as handle:
            head = handle.read(16)
    except OSError:
        return None
    return next((kind for magic, kind in FOREIGN_HEADERS.items() if head.startswith(magic)), None)


def refuse_non_regular(path: Path) -> None:
    """Refuse a store (or its write-ahead log) that is a FIFO, device or folder.

    DuckDB would block on a FIFO forever, and read a device without end.
    """
    for file, what in (
        (path, "the store"),
        (path.with_name(path.name + ".wal"), "the store's WAL"),
    ):
        kind = not_regular(file)
        if kind is not None:
            raise StoreError(
                f"{what} is {kind}, not a DuckDB file",
                where=str(file),
                fix="Use --db PATH (or $MEMSCOPE_DB) to name a store file, or remove what is there.",
            )


def lock_wait_seconds() -> float:
    """How long to wait for another process to release the store (``$MEMSCOPE_LOCK_WAIT``)."""
    try:
        return max(0.0, float(os.environ.get(WAIT_ENV, DEFAULT_WAIT_S)))
    except ValueError:
        return DEFAULT_WAIT_S


def is_lock_conflict(error: Exception) -> bool:
    """Whether a DuckDB error means another process holds the file."""
    text = str(error)
    return "Could not set lock" in text or "Conflicting lock" in text


def empty_store() -> attached.Opened:
    """An in-memory store with the current schema and nothing in it (what a read of a store
    that does not exist yet sees); give it back when done."""
    from memscope.store.migrations import migrate

    opened = attached.open_memory()
    try:
        migrate(opened.connection)
    except BaseException:
        opened.connection.close()
        opened.give_back()
        raise
    return opened


def store_writable(path: Path) -> bool:
    """Whether the store file and its folder (DuckDB's write-ahead log goes beside it) can
    be written: False on read-only media even for root (``access`` reports EROFS)."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


class Store:
    """The memscope store at one path: hands out connections and keeps the schema current.

    Args:
        path: The DuckDB file (created with its folder on first write).
        wait_s: How long to wait when another process holds the file.
    """

    def __init__(self, path: Path, wait_s: float | None = None) -> None:
        self.path = Path(path)
        self.wait_s = lock_wait_seconds() if wait_s is None else wait_s
        self._schema_checked = False
        self._shared: tuple[int, duckdb.DuckDBPyConnection] | None = None
        self._shared_writable = False
        # What each open connection holds (its attachment, its handoff lock), given back
        # once: by close_connection, or when a connection handed out (open_as_is) is dropped.
        self._handoffs: weakref.WeakKeyDictionary[
            duckdb.DuckDBPyConnection,
            weakref.finalize[[Callable[[], None], int | None], duckdb.DuckDBPyConnection],
        ] = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    @property
    def exists(self) -> bool:
        """Whether the store file has been created."""
        return self.path.is_file()

    def discard_if_empty(self, *, folder_too: bool = False) -> bool:
        """Remove the store file (and its write-ahead log and handoff lock) when it holds no
        run, label or verdict: what a refused command that created it leaves. ``folder_too``:
        its folder as well when that is left empty (the caller created it). Returns whether
        it did.
        """
        import duckdb

        if not self.exists:
            return False
        try:
            locked = handoff.take(
                self.path, exclusive=True, deadline=time.monotonic(), interval_s=RETRY_INTERVAL_S
            )
        except handoff.LockBusy:
            return False  # someone else uses it now: not only this command's
        try:
            try:
                con, give_back = attached.open_file(str(self.path), read_only=True)
                try:
                    held = sum(
                        int(con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0])
                        for table in ("runs", "label_events", "verdict_events")
                    )
                finally:
                    con.close()
                    give_back()
            except duckdb.Error:
                return False  # not a store this command just made: left alone
            if held:
                return False
            for path in (self.path, self.path.with_name(self.path.name + ".wal")):
                path.unlink(missing_ok=True)
            # Removed while held: a store made a moment ago that nobody else has opened.
            handoff.lock_path(self.path).unlink(missing_ok=True)
        finally:
            if locked is not None:
                handoff.let_go(locked)
        if folder_too:
            with suppress(OSError):
                self.path.parent.rmdir()  # only when empty
        return True

    @contextmanager
    def write(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A read-write connection, migrated to the current schema; closed afterwards.

        Inside :meth:`reading` on the same thread, the shared read-only connection is closed
        for the write and opened again after it: DuckDB refuses a read-only and a read-write
        connection to one file in the same process.
        """
        shared = self._shared
        if shared is not None and shared[0] == threading.get_ident():
            if self._shared_writable:  # inside writing(): the held connection serves
                with self._translated_errors():
                    yield shared[1]
                return
            self.close_connection(shared[1])
            self._shared = None
            try:
                with self.write() as con:
                    yield con
            finally:
                self._shared = (shared[0], self._connect(read_only=True))
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the store folder: {exc.strerror or exc}",
                where=str(self.path.parent),
                fix="Use --db PATH or $MEMSCOPE_DB to put the store somewhere writable.",
            ) from None
        con = self._connect(read_only=False)
        try:
            if not self._schema_checked:
                self._ensure_schema(con)
            with self._translated_errors():
                yield con
        finally:
            self.close_connection(con)

    @contextmanager
    def read(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A read-only connection; an outdated store is migrated first.

        A store that does not exist yet is not created by a read: the reader gets an
        empty in-memory store with the current schema instead, so ``memscope runs`` in a
        folder without a store lists nothing and leaves no ``.memscope/`` behind.
        Inside :meth:`reading` or :meth:`writing` on the same thread, the one shared
        connection is handed out.
        """
        shared = self._shared
        if shared is not None and shared[0] == threading.get_ident():
            with self._translated_errors():
                yield shared[1]
            return
        if not self.exists and not self.path.exists():
            empty = empty_store()
            try:
                with self._translated_errors():
                    yield empty.connection
            finally:
                empty.connection.close()
                empty.give_back()
            return
        con = self._connect(read_only=True) if self.exists else None
        if con is not None and not self._schema_checked:
            if self._schema_is_current(con):
                self._schema_checked = True
            else:
                self.close_connection(con)
                con = None
        if con is None:
            con = self._upgraded_or_as_is()
        try:
            with self._translated_errors():
                yield con
        finally:
            self.close_connection(con)

    def _upgraded_or_as_is(self) -> duckdb.DuckDBPyConnection:
        """A read-only connection to the store upgraded first; where the file cannot be
        written (read-only media, no permission) and the missing steps are ones reads do
        not need, the store as it is; else one message saying it needs an upgrade that
        cannot be written here.

        Raises:
            StoreError: the upgrade is needed and cannot be written.
        """
        if store_writable(self.path):
            with self.write():
                pass
            return self._connect(read_only=True)
        from memscope.store.migrations import (
            applied_versions,
            latest_version,
            reads_need,
            shipped_versions,
        )

        con = self._connect(read_only=True)
        with self._translated_errors():
            done = applied_versions(con)
        missing = sorted(shipped_versions() - done)
        if done and max(done) > latest_version():
            self.close_connection(con)
            with self.write():  # refused with the "newer than this memscope" message
                pass
        if not any(reads_need(version) for version in missing):
            return con  # read as it is: nothing reads what the missing steps make
        self.close_connection(con)
        raise StoreError(
            f"this store was written by an earlier memscope (schema version "
            f"{max(done, default=0)}) and needs an upgrade to version {latest_version()} "
            "before this memscope can read it, but its file cannot be written here "
            "(read-only media, or no permission); nothing was changed",
            where=str(self.path),
            fix="Copy the store somewhere writable and pass the copy with --db (it is "
            "upgraded on first use), or read it with the memscope release that wrote it.",
        )

    def open_as_is(self) -> duckdb.DuckDBPyConnection:
        """A read-only connection that neither checks nor migrates the schema (for
        ``memscope store check``, which must look at a store without changing it); close it
        with :meth:`close_connection` (dropping it also lets go of its handoff lock).

        Raises:
            StoreDamagedError: the file cannot be opened because it is damaged.
            StoreBusyError: another process holds it for writing.
        """
        return self._connect(read_only=True)

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Share one read-only connection among the ``read()`` calls of this thread meanwhile.

        A command that reads in several steps pays for opening the store once. No write can
        happen in between (this process holds the file), so use it for read-only work.
        """
        if self._shared is not None:
            yield
            return
        with self.read() as con:
            self._shared = (threading.get_ident(), con)
            try:
                yield
            finally:
                current, self._shared = self._shared, None
                if current is not None and current[1] is not con:  # reopened after a write
                    self.close_connection(current[1])

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Hold one read-write connection for every ``read()`` / ``write()`` of this thread meanwhile.

        For a burst of small writes (labels saved one keypress after another): opening the
        store costs tens of milliseconds, a committed insert a few. While it is held, no
        other process can use the store, so hold it briefly; and no other thread of this
        process may open the store meanwhile (DuckDB refuses mixed connections in one
        process), so callers serialise with their own lock. Inside :meth:`reading` on the
        same thread, the shared read-only connection is closed meanwhile and opened again
        after.
        """
        shared = self._shared
        if shared is not None and self._shared_writable:
            yield
            return
        if shared is not None:
            if shared[0] != threading.get_ident():
                raise StoreError(
                    "writing() while another thread is inside reading() is not supported",
                    where=str(self.path),
                )
            # Inside reading(): the read-only connection makes way for the write one
            # meanwhile (as write() does) and is opened again afterwards.
            self.close_connection(shared[1])
            self._shared = None
            try:
                with self.writing():
                    yield
            finally:
                self._shared = (shared[0], self._connect(read_only=True))
            return
        with self.write() as con:
            self._shared, self._shared_writable = (threading.get_ident(), con), True
            try:
                yield
            finally:
                self._shared, self._shared_writable = None, False

    @contextmanager
    def _translated_errors(self) -> Iterator[None]:
        import duckdb

        try:
            yield
        except duckdb.Error as exc:
            raise self._store_error(exc) from exc

    def _store_error(self, exc: Exception) -> StoreError:
        """A DuckDB error as the StoreError it means (a damaged store said as such)."""
        damage = damage_of(exc, self.path)
        if damage is not None:
            return damaged(self.path, damage)
        missing = MISSING_TABLE.search(str(exc))
        if missing is not None:  # the schema says it has every table; one is gone
            return damaged(self.path, f"its table {missing.group(1)} is missing")
        return StoreError(f"the store reported an error: {exc}", where=str(self.path))

    def _connect(self, *, read_only: bool) -> duckdb.DuckDBPyConnection:
        """A connection to the store file, holding its handoff lock (``handoff.py``) until
        :meth:`close_connection`; waits up to ``wait_s`` for other processes in all."""
        refuse_non_regular(self.path)
        # Open already in this process, it is a DuckDB file; reading its first bytes again
        # would drop DuckDB's POSIX lock on it (closing any descriptor of a file does).
        kind = None if attached.is_attached(str(self.path)) else foreign_file_kind(self.path)
        if kind is not None:
            raise StoreError(
                f"this file is {kind}, not a memscope store",
                where=str(self.path),
                fix="Use --db to pick a memscope store (a DuckDB file), or a new path to create one.",
            )
        deadline = time.monotonic() + self.wait_s
        try:
            locked = handoff.take(
                self.path, exclusive=not read_only, deadline=deadline, interval_s=RETRY_INTERVAL_S
            )
        except handoff.LockBusy:
            raise StoreBusyError(
                "the store is in use: another memscope process holds it"
                + (" for writing" if read_only else ""),
                where=str(self.path),
                fix="Wait for that process to finish (or close it), or use --db to pick another store.",
            ) from None
        try:
            con, give_back = self._connect_duckdb(read_only=read_only, deadline=deadline)
        except BaseException:
            if locked is not None:
                handoff.let_go(locked)
            raise
        self._handoffs[con] = weakref.finalize(con, _give_back_then_let_go, give_back, locked)
        return con

    def close_connection(self, con: duckdb.DuckDBPyConnection) -> None:
        """Close a connection to the store, then give it back (the last one in this process
        detaches the file) and let go of its handoff lock, in that order."""
        try:
            con.close()
        finally:
            release = self._handoffs.pop(con, None)
            if release is not None:
                release()

    def _connect_duckdb(self, *, read_only: bool, deadline: float) -> attached.Opened:
        """DuckDB's connection to the store, waiting until ``deadline`` while a process that
        does not take the handoff lock (another program using DuckDB) holds the file."""
        import duckdb

        while True:
            try:
                return attached.open_file(str(self.path), read_only=read_only)
            except duckdb.IOException as exc:
                damage = damage_of(exc, self.path)
                if damage is not None:
                    raise damaged(self.path, damage) from None
                if not is_lock_conflict(exc):
                    unwritable = not read_only and any(
                        cause in str(exc)
                        for cause in ("Read-only file system", "Permission denied")
                    )
                    raise StoreError(
                        f"cannot open the store: {exc}",
                        where=str(self.path),
                        fix="This command writes to the store, and its file cannot be written: "
                        "copy it somewhere writable and use --db, or fix the permissions."
                        if unwritable
                        else None,
                    ) from None
                if time.monotonic() >= deadline:
                    pid = PID_IN_MESSAGE.search(str(exc))
                    holder = f"process {pid.group(1)}" if pid else "another process"
                    raise StoreBusyError(
                        f"the store is in use: {holder} holds it for writing",
                        where=str(self.path),
                        fix="Wait for that process to finish (or close it), or use --db to pick another store.",
                    ) from None
                time.sleep(RETRY_INTERVAL_S)
            except duckdb.Error as exc:
                damage = damage_of(exc, self.path)
                if damage is not None:
                    raise damaged(self.path, damage) from None
                raise StoreError(
                    f"cannot open the store: {exc}",
                    where=str(self.path),
                    fix="Is this a memscope DuckDB file? Use --db to pick another store.",
                ) from None

    def _schema_is_current(self, con: duckdb.DuckDBPyConnection) -> bool:
        from memscope.store.migrations import applied_versions, shipped_versions

        with self._translated_errors():
            done = applied_versions(con)
        return done == shipped_versions()

    def _ensure_schema(self, con: duckdb.DuckDBPyConnection) -> None:
        import duckdb

        from memscope.store.migrations import applied_versions, latest_version, migrate

        newest = latest_version()
        with self._translated_errors():
            done = applied_versions(con)
        if done and max(done) > newest:
            raise StoreError(
                f"the store has schema version {max(done)}, newer than this memscope ({newest})",
                where=str(self.path),
                fix="Upgrade memscope, or use --db to pick another store.",
            )
        try:
            migrate(con)  # all or nothing: a failure leaves the store as it was
        except duckdb.Error as exc:
            existing = EXISTING_TABLE.search(str(exc))
            if existing is not None and not done:
                raise StoreError(
                    f"this DuckDB file already has {existing.group(1)} but no memscope schema: "
                    "it is not a memscope store",
                    where=str(self.path),
                    fix="Use --db to pick a memscope store, or a new path to create one.",
                ) from None
            if existing is not None:
                raise damaged(
                    self.path,
                    f"its schema is half-made: it records versions up to {max(done)}, but "
                    f"{existing.group(1)}, made by a later version, already exists (an upgrade "
                    "that was cut off, or tables changed by hand)",
                ) from None
            damage = damage_of(exc, self.path)
            if damage is not None:
                raise damaged(self.path, damage) from None
            raise StoreError(
                f"cannot upgrade the store to schema version {newest}: {exc}",
                where=str(self.path),
                fix=f"Nothing was changed (it is still at version {max(done, default=0)}). "
                "Free disk space or fix the folder's permissions, then run the command again.",
            ) from None
        self._schema_checked = True


def _give_back_then_let_go(give_back: Callable[[], None], locked: int | None) -> None:
    """Give a connection back (DuckDB closes the file when it was the last), then let go of
    the handoff lock: another process may open the file only after DuckDB has closed it."""
    try:
        give_back()
    finally:
        if locked is not None:
            handoff.let_go(locked)
