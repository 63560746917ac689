"""The session's store lock: one lock every worker takes to use the store.

DuckDB refuses a read-only and a read-write connection to one file open at once in the
same process, so every use of the store in the app takes turns on this lock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class StoreLock:
    """The session's store lock: exclusive (``with lock:``, ``acquire``/``release``) for
    whatever may write or holds the store long, shared (``acquire_shared``) for short
    reads, which DuckDB serves side by side on read-only connections. Re-entrant on the
    thread that holds it (the run's reads on first access happen inside a worker's hold),
    and it says whether anyone holds it (``threading.RLock`` does not in Python 3.11).

    Shared holders are the queue's page reads on the app's thread and the evidence read:
    so scrolling the queue never waits for the run's evidence to load.
    """

    def __init__(self) -> None:
        self._changed = threading.Condition(threading.Lock())
        self._owner: int | None = None
        self._depth = 0
        self._readers: dict[int, int] = {}

    def _wait(self, free: Callable[[], bool], blocking: bool, timeout: float) -> bool:
        if not blocking:
            return free()
        return self._changed.wait_for(free, None if timeout < 0 else timeout)

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        """Hold the lock alone (again, on the thread holding it); False when it timed out."""
        me = threading.get_ident()
        with self._changed:
            if self._owner == me:
                self._depth += 1
                return True
            if not self._wait(
                lambda: self._owner is None and not set(self._readers) - {me}, blocking, timeout
            ):
                return False
            self._owner, self._depth = me, 1
            return True

    def release(self) -> None:
        """Give one exclusive hold back."""
        with self._changed:
            self._depth -= 1
            if self._depth == 0:
                self._owner = None
                self._changed.notify_all()

    def acquire_shared(self, blocking: bool = True, timeout: float = -1) -> bool:
        """Hold the lock beside other readers (on a thread holding it: again); False when
        it timed out."""
        me = threading.get_ident()
        with self._changed:
            held = self._owner == me or me in self._readers
            if not held and not self._wait(lambda: self._owner is None, blocking, timeout):
                return False
            self._readers[me] = self._readers.get(me, 0) + 1
            return True

    def release_shared(self) -> None:
        """Give one shared hold back."""
        me = threading.get_ident()
        with self._changed:
            left = self._readers[me] - 1
            if left:
                self._readers[me] = left
            else:
                del self._readers[me]
                self._changed.notify_all()

    @contextmanager
    def shared(self) -> Iterator[None]:
        """Held shared meanwhile."""
        self.acquire_shared()
        try:
            yield
        finally:
            self.release_shared()

    def locked(self) -> bool:
        """Whether a thread holds the lock (alone or shared)."""
        with self._changed:
            return self._owner is not None or bool(self._readers)

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
