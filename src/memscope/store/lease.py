"""The writer lease: one labelling app per store, the others browse read-only.

DuckDB itself cannot say "someone else is labelling here", because memscope never holds
the store open while idle. The app therefore takes an exclusive ``flock`` on a lock file
beside the store (``<store>.app.lock``) for as long as it runs; a second app finds it held,
reads who holds it from the file, and disables labelling. The operating system drops the
lock when the holder exits, even on SIGKILL, so a crashed app never blocks the next one.
A lock file that cannot be used at all (a read-only file system, no write permission, a
folder in its place) is not "another app": :attr:`WriterLease.failure` says what it is.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO

try:
    import fcntl
except (
    ImportError
):  # Windows: no flock; every app may label (DuckDB's own lock still protects the file)
    fcntl = None  # type: ignore[assignment]

LOCK_SUFFIX = ".app.lock"


def lease_path(store_path: Path) -> Path:
    """The lock file of the store at ``store_path``."""
    return store_path.with_name(store_path.name + LOCK_SUFFIX)


@dataclass(frozen=True)
class LeaseFailure:
    """Why the lock file cannot be used at all (so nobody can label from here), and the fix."""

    cause: str
    fix: str


def _cannot_use(path: Path, exc: OSError) -> LeaseFailure:
    """Why the lock file at ``path`` cannot be used, in words (the OS's cause named)."""
    copy = "copy the store somewhere writable and open the copy with --db to label"
    if exc.errno == errno.EROFS:
        return LeaseFailure(
            f"the store's folder is on a read-only file system ({path.parent})", copy
        )
    if exc.errno in (errno.EACCES, errno.EPERM):
        return LeaseFailure(
            f"memscope may not write its lock file {path} ({exc.strerror})",
            f"get write access to {path.parent}, or {copy}",
        )
    if exc.errno == errno.EISDIR:
        return _folder(path)
    code = errno.errorcode.get(exc.errno or 0, "")
    cause = f"the lock file {path} cannot be used: {exc.strerror or exc}"
    return LeaseFailure(cause + (f" [{code}]" if code else ""), copy)


def _folder(path: Path) -> LeaseFailure:
    return LeaseFailure(
        f"the lock path {path} is a folder, not memscope's lock file",
        "remove or rename that folder to label here",
    )


class WriterLease:
    """An exclusive, non-blocking lease on a store for one labelling app.

    Args:
        store_path: The DuckDB store file (it need not exist yet).
        holder: Who takes the lease, written into the lock file for others to read
            (e.g. ``"alice"``); the process id is added.
    """

    def __init__(self, store_path: Path, holder: str) -> None:
        self.path = lease_path(Path(store_path))
        self.holder = holder
        self._file: IO[str] | None = None
        self.failure: LeaseFailure | None = None
        """Why the last :meth:`acquire` could not even try for the lease (a read-only file
        system, a lock path that is a folder); None when it was tried (taken or held)."""

    @property
    def held(self) -> bool:
        """Whether this object holds the lease."""
        return self._file is not None

    def acquire(self) -> bool:
        """Take the lease if nobody holds it; return whether it is now held by us.

        False with :attr:`failure` None: another app holds it (:meth:`current_holder`);
        with :attr:`failure` set: the lock file itself cannot be used, and it says why.
        """
        if self._file is not None:
            return True
        self.failure = None
        if self.path.is_dir():
            self.failure = _folder(self.path)
            return False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            lock_file = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - kept open while held
        except OSError as exc:
            self.failure = _cannot_use(self.path, exc)
            return False
        if fcntl is not None:
            try:
                fcntl.flock(lock_file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                lock_file.close()
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    self.failure = _cannot_use(self.path, exc)  # e.g. ENOLCK: no locks here
                return False
        lock_file.seek(0)
        lock_file.truncate()
        lock_file.write(f"{self.holder} (process {os.getpid()})\n")
        lock_file.flush()
        self._file = lock_file
        return True

    def current_holder(self) -> str:
        """Who holds the lease, as its lock file says (``"another memscope app"`` if unknown)."""
        try:
            text = self.path.read_text(encoding="utf-8").strip()
        except OSError:
            text = ""
        return text.splitlines()[0][:200] if text else "another memscope app"

    def release(self) -> None:
        """Give the lease up (idempotent)."""
        if self._file is None:
            return
        try:
            if fcntl is not None:
                fcntl.flock(self._file.fileno(), fcntl.LOCK_UN)
        finally:
            self._file.close()
            self._file = None
