"""The writer lease: one labelling app per store, the others browse read-only.

DuckDB itself cannot say "someone else is labelling here", because memscope never holds
the store open while idle. The app therefore takes an exclusive ``flock`` on a lock file
beside the store (``<store>.app.lock``) for as long as it runs; a second app finds it held,
reads who holds it from the file, and disables labelling. The operating system drops the
lock when the holder exits, even on SIGKILL, so a crashed app never blocks the next one.
"""

from __future__ import annotations

import os
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

    @property
    def held(self) -> bool:
        """Whether this object holds the lease."""
        return self._file is not None

    def acquire(self) -> bool:
        """Take the lease if nobody holds it; return whether it is now held by us."""
        if self._file is not None:
            return True
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            lock_file = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - kept open while held
        except OSError:
            return False
        if fcntl is not None:
            try:
                fcntl.flock(lock_file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                lock_file.close()
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
