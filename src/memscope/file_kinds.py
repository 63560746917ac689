"""What a path is on disk, and opening only what memscope can use there.

memscope reads regular files. Anything else at a path a user gave would go wrong in a way
that says nothing: a FIFO blocks ``open`` until some writer comes (a hang), a device such
as ``/dev/zero`` never ends (memory runs out), a folder is "not found" to a file reader.
So readers open with ``O_NONBLOCK`` (a FIFO then opens at once), check with ``fstat`` on
the descriptor they will read (no race with the path changing) and refuse anything but a
regular file, naming what the path is (:func:`describe_mode`).

Writers are given more: an output that is a terminal, a pipe or a device (``--out
/proc/self/fd/1``, ``/dev/null``) is the user's explicit choice and is written straight
through; only a FIFO that nobody reads is refused (:func:`open_stream_for_writing`)
instead of waiting for a reader forever.

The errors are ``OSError`` subclasses, so a caller that already turns ``OSError`` into its
own message keeps doing so; :attr:`NotRegularFileError.kind` and the size fields let it
say more.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

NONBLOCK = getattr(os, "O_NONBLOCK", 0)
CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def describe_mode(mode: int) -> str:
    """What a ``st_mode`` is, in words ("a folder", "a FIFO (named pipe)", ...)."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def path_kind(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is (symlinks followed), or None when nothing is there.

    A symlink whose target is missing is "a broken symbolic link", one that loops "a
    symbolic link loop"; a path that cannot be looked at says why.
    """
    try:
        return describe_mode(os.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return "a broken symbolic link" if os.path.islink(path) else None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symbolic link loop"
        return f"a path that cannot be looked at ({exc.strerror or exc})"


def not_regular(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is when something other than a regular file is there, else None."""
    kind = path_kind(path)
    return None if kind in (None, "a regular file") else kind


class NotRegularFileError(OSError):
    """The path holds something other than a regular file (``kind`` says what)."""

    def __init__(self, path: str | os.PathLike[str], kind: str) -> None:
        super().__init__(errno.EINVAL, f"{kind}, not a regular file", str(path))
        self.kind = kind


class FileTooLargeError(OSError):
    """A file is larger than the reader accepts."""

    def __init__(self, path: str | os.PathLike[str], size: int, limit: int) -> None:
        super().__init__(
            errno.EFBIG, f"{size:,} bytes, more than the {limit:,} accepted", str(path)
        )
        self.size = size
        self.limit = limit


class NoReaderError(OSError):
    """An output that is a FIFO has no process reading it."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(errno.ENXIO, "a FIFO (named pipe) that no process reads", str(path))


def open_regular(path: str | os.PathLike[str]) -> int:
    """A read-only descriptor of the regular file at ``path`` (the caller closes it).

    Raises:
        FileNotFoundError: nothing is there.
        NotRegularFileError: a folder, FIFO, device or socket is there.
        OSError: it cannot be opened (permissions, ...).
    """
    fd = os.open(path, os.O_RDONLY | NONBLOCK | CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFileError(path, describe_mode(mode))
        if NONBLOCK:  # a regular file ignores the flag; cleared for readers that inherit it
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: str | os.PathLike[str], *, limit: int | None = None) -> bytes:
    """The bytes of the regular file at ``path``, refused beyond ``limit`` bytes.

    Raises:
        FileNotFoundError, NotRegularFileError, FileTooLargeError, OSError.
    """
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if limit is not None and size > limit:
            raise FileTooLargeError(path, size, limit)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read() if limit is None else handle.read(limit + 1)
    finally:
        os.close(fd)
    if limit is not None and len(data) > limit:  # it grew while being read
        raise FileTooLargeError(path, len(data), limit)
    return data


def open_stream_for_writing(path: str | os.PathLike[str]) -> int:
    """A blocking write descriptor of the terminal, pipe or device at ``path``.

    The open itself does not block: a FIFO that no process reads raises
    :class:`NoReaderError` at once instead of waiting for a reader forever.

    Raises:
        NoReaderError, OSError.
    """
    try:
        fd = os.open(path, os.O_WRONLY | NONBLOCK | CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise NoReaderError(path) from None
        raise
    if NONBLOCK:
        os.set_blocking(fd, True)
    return fd


def same_file(first: Path, second: Path) -> bool:
    """Whether two paths name one file (hard links and symlinks included; False if either is missing)."""
    try:
        return os.path.samefile(first, second)
    except OSError:
        return False
