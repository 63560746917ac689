"""The store's handoff lock: processes take turns with the store file, never overlapping.

DuckDB guards its file with a POSIX record lock, and that is not enough when processes take
turns: measured with DuckDB 2.0.1, two processes saving 15 labels each, one connection per
label, lost a committed label in about one round of 60, and a reader now and then found the
file shorter than its header said (a plain DuckDB script taking turns the same way loses
the same way). A POSIX record lock is also dropped when its process closes *any*
descriptor of the file, which memscope does when it looks at a file's first bytes.

memscope therefore takes its own lock first: ``flock`` on a file beside the store
(``<store>.lock``), shared to read and exclusive to write, from before DuckDB opens the
store until after DuckDB has closed it. Readers in one process share it; a writer waits for
everyone. Where the lock file cannot be made (a read-only folder, where nothing can write
the store either), the store is opened without it, as before.
"""

from __future__ import annotations

import fcntl
import os
import stat
import time
from contextlib import suppress
from pathlib import Path

LOCK_SUFFIX = ".lock"


def lock_path(store_path: Path) -> Path:
    """The handoff lock file of the store at ``store_path``."""
    return store_path.with_name(store_path.name + LOCK_SUFFIX)


class LockBusy(Exception):
    """Another process held the handoff lock until the deadline."""


def take(store_path: Path, *, exclusive: bool, deadline: float, interval_s: float) -> int | None:
    """Hold the handoff lock (exclusive to write, shared to read); returns the descriptor
    that holds it (:func:`let_go` releases it), or None where no lock file can be made.

    Waits, trying every ``interval_s``, until ``deadline`` (``time.monotonic()``).

    Raises:
        LockBusy: another process still held it at the deadline.
    """
    path = lock_path(store_path)
    try:
        # O_NONBLOCK: a FIFO put there must not block the open (it is passed over below).
        fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
    except OSError:
        return None  # a folder that cannot be written: no writer can use this store there
    held = False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        operation = (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB
        while True:
            try:
                fcntl.flock(fd, operation)
            except BlockingIOError:
                pass
            except OSError:
                return None  # a file system without flock: DuckDB's own lock only
            else:
                held = True
                return fd
            if time.monotonic() >= deadline:
                raise LockBusy(str(path))
            time.sleep(interval_s)
    finally:
        if not held:
            os.close(fd)


def let_go(fd: int) -> None:
    """Release the handoff lock held by ``fd`` (closing it releases the ``flock``)."""
    with suppress(OSError):
        os.close(fd)
