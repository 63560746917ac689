"""Where an ``--out`` goes, and never over a file memscope did not write as that output.

``export-labels --out``, ``table --out`` and ``plot --out`` create or replace one file. A
file already there is replaced only when it is **empty** or memscope **recognises it as
that command's output** by its first bytes (:data:`LABEL_EXPORT`, :data:`TABLE`,
:data:`FIGURE` say how): a previous export is overwritten, while the store, its
write-ahead log, label journal or app lock, a symlink or hard link to one of them, a run's
files or any other file are refused with one message and left as they are. The store's own
files are refused even before they exist.

An ``--out`` that is not a regular file is the user's explicit choice of a stream: a
terminal, a pipe, ``/proc/self/fd/1`` or a device such as ``/dev/null`` is written straight
through. A FIFO that no process reads is refused at once (it would block forever), and a
folder is refused. A file is written whole or not at all: a temporary file beside it,
renamed over it (a symlink ``--out`` replaces the file it points to; the link stays).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from memscope.errors import InputError, MemscopeError
from memscope.file_kinds import NoReaderError, open_stream_for_writing, path_kind, same_file

if TYPE_CHECKING:
    from memscope.store import Store

STREAMS = ("a FIFO (named pipe)", "a character device")
"""What an ``--out`` may be besides a regular file: written straight through."""
SNIFF_BYTES = 64 * 1024
"""How much of an existing file is read to recognise it."""


def _head(handle: IO[bytes]) -> bytes:
    handle.seek(0)
    return handle.read(SNIFF_BYTES)


def _label_export(handle: IO[bytes]) -> bool:
    """jsonl (``{"run_id":`` first), csv (a ``run_id,`` header) or parquet with a run_id column."""
    head = _head(handle)
    if head.startswith((b'{"run_id":', b"run_id,")):
        return True
    return _parquet_with(handle, b"run_id")


def _parquet_with(handle: IO[bytes], column: bytes) -> bool:
    """Whether the file is Parquet (``PAR1`` at both ends) whose footer names ``column``."""
    handle.seek(0, os.SEEK_END)
    size = handle.tell()
    if size < 12 or not _head(handle).startswith(b"PAR1"):
        return False
    handle.seek(size - 8)
    tail = handle.read(8)
    if tail[4:] != b"PAR1":
        return False
    footer = int.from_bytes(tail[:4], "little")
    if footer <= 0 or footer > size - 12:
        return False
    handle.seek(size - 8 - footer)
    return column in handle.read(min(footer, SNIFF_BYTES))


def _table(handle: IO[bytes]) -> bool:
    """``memscope table``'s csv, json, markdown or latex (by the lines each one starts with)."""
    head = _head(handle)
    lines = head.split(b"\n", 3)
    if head.startswith((b"system,runs,n_questions", b'{\n  "benchmark":')):
        return True
    if len(lines) > 2 and lines[1] == b"" and lines[2].startswith(b"| system |"):
        return True  # markdown: the caption, a blank line, the header row
    return head.startswith(b"% ") and len(lines) > 1 and lines[1].startswith(b"\\begin{tabular}")


def _figure(handle: IO[bytes]) -> bool:
    """An svg, png or pdf that carries memscope's creator tag (``plot`` writes one in each)."""
    head = _head(handle)
    if head.startswith(b"\x89PNG"):
        return b"Software\x00memscope" in head
    if head.startswith(b"<?xml") and b"<svg" in head:
        return b"<dc:title>memscope</dc:title>" in head
    if head.startswith(b"%PDF-"):
        handle.seek(0, os.SEEK_END)
        handle.seek(max(0, handle.tell() - SNIFF_BYTES))
        return b"/Creator (memscope)" in handle.read(SNIFF_BYTES)
    return False


@dataclass(frozen=True)
class OutputKind:
    """One command's kind of output, and how a file it wrote is recognised."""

    name: str
    """What the output is called in messages ("label export")."""
    command: str
    """The command that writes it."""
    recognises: Callable[[IO[bytes]], bool]


def _saved_input(handle: IO[bytes]) -> bool:
    """``store check --save-labels``: JSON lines, each row ``{"event_kind":`` first (an
    older memscope's saved label events: ``{"event_id":`` first)."""
    return _head(handle).startswith((b'{"event_kind":', b'{"event_id":'))


LABEL_EXPORT = OutputKind("label export", "export-labels", _label_export)
SAVED_INPUT = OutputKind("saved labels file", "store check", _saved_input)
TABLE = OutputKind("table", "table", _table)
FIGURE = OutputKind("figure", "plot", _figure)


@dataclass(frozen=True)
class OutputTarget:
    """Where one output goes: a regular file (replaced whole) or a stream (written through)."""

    given: Path
    """The path as the user gave it (``~`` expanded)."""
    file: Path | None
    """The regular file to create or replace (symlinks resolved); None for a stream (a
    terminal, pipe or device, written straight through)."""


def store_files(store: Store) -> dict[Path, str]:
    """The files of ``store`` no output may replace, with what each one is."""
    from memscope.store.handoff import lock_path
    from memscope.store.lease import lease_path
    from memscope.usecases.labels.journal import journal_path

    path = Path(store.path)
    return {
        path: "the memscope store",
        path.with_name(path.name + ".wal"): "the memscope store's write-ahead log",
        lock_path(path): "the store's handoff lock",
        journal_path(path): "the store's label journal",
        lease_path(path): "the store's app lock",
    }


def _protected(destination: Path, protected: dict[Path, str]) -> str | None:
    for path, what in protected.items():
        resolved = path.expanduser().resolve()
        if destination == resolved or same_file(destination, resolved):
            return what
    return None


def _recognised(path: Path, kind: OutputKind) -> bool:
    try:
        with path.open("rb") as handle:
            return os.fstat(handle.fileno()).st_size == 0 or kind.recognises(handle)
    except OSError:
        return False


def plan_output(
    out: Path, kind: OutputKind, protected: dict[Path, str], option: str = "--out"
) -> OutputTarget:
    """Check ``out`` for ``kind`` before anything is computed or written.

    Args:
        out: The ``--out`` value.
        kind: What will be written there.
        protected: Files never to replace, with what each one is (:func:`store_files`).
        option: The option that named ``out``, for messages.

    Raises:
        InputError: a folder, a missing parent folder, a store file, or a file memscope
            did not write as ``kind``.
    """
    given = out.expanduser()
    what = path_kind(given)
    if what == "a folder":
        raise InputError(f"{option} is a folder: {given}", fix="Name a file in it.")
    if what in STREAMS:
        return OutputTarget(given, None)  # a terminal, pipe or device: the user's choice
    if what not in (None, "a regular file", "a broken symbolic link"):
        raise InputError(
            f"{option} is {what}",
            where=str(given),
            fix="Name a file, or a terminal, pipe or character device to write through.",
        )
    destination = given.resolve()
    if not destination.parent.is_dir():
        raise InputError(
            f"the folder of {option} does not exist: {destination.parent}",
            fix="Create it, or pick another path.",
        )
    owner = _protected(destination, protected)
    if owner is not None:
        raise InputError(
            f"{option} names {owner}; memscope does not write a {kind.name} over it",
            where=str(given),
            fix="Name a new file for the output.",
        )
    if what == "a regular file" and not _recognised(destination, kind):
        raise InputError(
            f"{option} names a file memscope did not write as a {kind.name}; it is left as it is",
            where=str(given),
            fix=f"Name a new file, an empty one, or one a previous `memscope {kind.command} {option}` wrote.",
        )
    return OutputTarget(given, destination)


def cannot_write(exc: OSError, where: Path, what: str, option: str = "--out") -> MemscopeError:
    """The one message for an output that cannot be written."""
    if isinstance(exc, NoReaderError):
        return InputError(
            f"{option} is a FIFO (named pipe) that no process reads; the {what} was not written",
            where=str(where),
            fix="Start the reader first (e.g. `cat FIFO &`), or name a file.",
        )
    return MemscopeError(
        f"cannot write the {what}: {exc.strerror or exc}",
        where=str(where),
        fix=f"Pick a folder you can write to with {option} PATH, or write to stdout.",
    )


@contextlib.contextmanager
def stream_writer(target: OutputTarget) -> Iterator[IO[bytes]]:
    """A binary handle on the stream ``target`` (a FIFO without reader raises at once)."""
    fd = open_stream_for_writing(target.given)
    with os.fdopen(fd, "wb") as handle:
        yield handle


def write_output(target: OutputTarget, data: bytes, what: str) -> None:
    """Write ``data`` to ``target``: through a stream, or a whole file renamed into place.

    Raises:
        MemscopeError: it cannot be written (:func:`cannot_write`).
    """
    try:
        if target.file is None:
            with stream_writer(target) as handle:
                handle.write(data)
            return
        replace_whole(target.file, data)
    except OSError as exc:
        raise cannot_write(exc, target.given, what) from None


def current_umask() -> int:
    """The process's umask (Linux reads it without changing it; elsewhere it is set and reset)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def user_file_mode() -> int:
    """The mode a new file gets under the umask (0644 under 022), as ``open()`` would give it.

    ``mkstemp`` makes its file 0600 whatever the umask; a file written for the user is set
    to this mode before it is renamed into place, so it reads like any other file they make.
    """
    return 0o666 & ~current_umask()


def replace_whole(destination: Path, data: bytes) -> None:
    """Create or replace ``destination`` with ``data`` atomically (a temp file beside it,
    renamed), with the mode the umask gives a new file."""
    if destination.exists() and not os.access(destination, os.W_OK):
        raise PermissionError(13, "Permission denied", str(destination))
    handle, temp = tempfile.mkstemp(
        dir=destination.parent, prefix=f".{destination.name}.", suffix=".tmp"
    )
    try:
        os.fchmod(handle, user_file_mode())
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temp, destination)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
