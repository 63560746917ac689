"""DuckDB databases opened by attaching them to one in-memory DuckDB per process.

``duckdb.connect`` builds a new database instance each time a file is not open already in
the process, and most of that is DuckDB's catalog of built-in functions: 30–40 ms before
the file is even read, paid by every step of every command, since memscope opens the store
per step (``connection.py``). Attaching the file to an instance built once per process
costs about 4 ms; detaching it closes the file as closing the last connection did (the
write-ahead log checkpointed, DuckDB's file lock released), so processes take turns with
the store exactly as before.

A file is attached once per process and shared by every connection (a cursor of the
instance that ``USE``-s it) open on it; giving back the last one detaches it. The same
file cannot be open read-only and read-write at once in one process (DuckDB's own rule
for ``connect``). A private in-memory database (:func:`open_memory`) is attached the same
way, and :func:`scratch` is a connection for work that needs no database of its own.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import duckdb

OFFLINE_CONFIG = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
}
"""Nothing from the network, ever: DuckDB would otherwise download an extension the moment
a file needs one (a SQLite file passed as --db asks for the sqlite scanner)."""


class Opened(NamedTuple):
    """A connection to an attached database, and what gives it back (call it once, after
    closing the connection or when it is dropped: the last one detaches the database)."""

    connection: duckdb.DuckDBPyConnection
    give_back: Callable[[], None]


@dataclass
class _Attachment:
    name: str
    read_only: bool
    users: int = 0


_lock = threading.RLock()  # re-entrant: a dropped connection may be given back by the GC meanwhile
_instance: tuple[int, duckdb.DuckDBPyConnection] | None = None
_attached: dict[str, _Attachment] = {}
_names = itertools.count(1)


def _base() -> duckdb.DuckDBPyConnection:
    """The process's instance (under ``_lock``); a forked child builds its own."""
    global _instance
    if _instance is None or _instance[0] != os.getpid():
        _attached.clear()  # a parent's attachments are not this process's
        _instance = (os.getpid(), connect_offline())
    return _instance[1]


def connect_offline(
    path: str = ":memory:", *, read_only: bool = False
) -> duckdb.DuckDBPyConnection:
    """A DuckDB instance of its own (30–40 ms), set up as every memscope connection is: for
    programs beside memscope (tests, benchmarks) and the process's one instance here."""
    import duckdb

    return _session(duckdb.connect(path, read_only=read_only, config=dict(OFFLINE_CONFIG)), None)


def _session(con: duckdb.DuckDBPyConnection, database: str | None) -> duckdb.DuckDBPyConnection:
    """``con`` set up as every memscope connection is (settings are per connection)."""
    if database is not None:
        con.execute(f"USE {database}")
    # No progress bar: it would write to stdout, which carries JSON output.
    con.execute("SET enable_progress_bar = false")
    # Instants are stored as UTC (naive TIMESTAMP columns): now()::TIMESTAMP, a TIMESTAMPTZ
    # written to a file and a time text without an offset all mean UTC, whatever the
    # machine's zone (DuckDB's default is the local one).
    con.execute("SET TimeZone = 'UTC'")
    return con


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def open_file(path: str, *, read_only: bool) -> Opened:
    """A connection to the DuckDB file at ``path`` (attached unless it is already).

    Raises:
        duckdb.Error: as ``duckdb.connect`` would (a lock held by another process, a
            damaged file), or a ``ConnectionException`` when the file is open in this
            process in the other mode.
    """
    import duckdb

    key = os.path.realpath(path)
    with _lock:
        base = _base()
        attachment = _attached.get(key)
        if attachment is None:
            attachment = _Attachment(f"memscope_db_{next(_names)}", read_only)
            mode = "READ_ONLY" if read_only else "READ_WRITE"
            base.execute(f"ATTACH {_quoted(path)} AS {attachment.name} (TYPE DUCKDB, {mode})")
            _attached[key] = attachment
        elif attachment.read_only != read_only:
            raise duckdb.ConnectionException(
                "Can't open a connection to same database file with a different configuration "
                "than existing connections"
            )
        try:
            con = _session(base.cursor(), attachment.name)
        except BaseException:
            if not attachment.users:
                _detach(key, attachment)
            raise
        attachment.users += 1
    return Opened(con, _giver(key, attachment))


def open_memory() -> Opened:
    """A connection to a new, empty in-memory database of its own (gone when given back)."""
    with _lock:
        base = _base()
        attachment = _Attachment(f"memscope_memory_{next(_names)}", read_only=False, users=1)
        key = f":memory:{attachment.name}"
        base.execute(f"ATTACH ':memory:' AS {attachment.name}")
        _attached[key] = attachment
        try:
            con = _session(base.cursor(), attachment.name)
        except BaseException:
            _detach(key, attachment)
            raise
    return Opened(con, _giver(key, attachment))


def scratch() -> duckdb.DuckDBPyConnection:
    """A connection for work with no tables of its own (registered Arrow data, expressions);
    close it when done."""
    with _lock:
        return _session(_base().cursor(), None)


def _giver(key: str, attachment: _Attachment) -> Callable[[], None]:
    given: list[bool] = []

    def give_back() -> None:
        if given:
            return
        given.append(True)
        with _lock:
            attachment.users -= 1
            if attachment.users <= 0 and _attached.get(key) is attachment:
                _detach(key, attachment)

    return give_back


def _detach(key: str, attachment: _Attachment) -> None:
    """Detach (under ``_lock``): DuckDB checkpoints a written database and closes its file."""
    _attached.pop(key, None)
    if _instance is not None and _instance[0] == os.getpid():
        _instance[1].execute(f"DETACH {attachment.name}")


def is_attached(path: str) -> bool:
    """Whether the file at ``path`` is open (attached) in this process now."""
    with _lock:
        return os.path.realpath(path) in _attached


def attached_files() -> list[str]:
    """The files attached in this process now (their real paths)."""
    with _lock:
        return [key for key in _attached if not key.startswith(":memory:")]
