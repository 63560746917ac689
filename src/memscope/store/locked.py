"""A store whose every connection is opened under one lock, for threads of one process.

DuckDB refuses a read-only and a read-write connection to one file open at once in the
same process, so the app serialises its workers' store use with one lock. Long work that
touches the store only now and then (a memory-engine search: read the round texts, load a
model for seconds, write a few vectors) gets a :class:`LockedStore` instead of holding that
lock throughout: each ``read()`` / ``write()`` takes the lock for as long as its connection
is open and gives it back afterwards, so label saves slip in between.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from memscope.store.connection import Store

if TYPE_CHECKING:
    import duckdb


class LockedStore(Store):
    """``store`` with each connection scope held under ``lock`` (re-entrant within a thread).

    A ``read()`` nested in another scope on the same thread does not take the lock again
    (the app's lock is a plain ``threading.Lock``; taking it twice would deadlock).
    """

    def __init__(self, store: Store, lock: Any) -> None:
        super().__init__(store.path, store.wait_s)
        self.inner = store
        self.lock = lock
        self._depth = threading.local()

    def __repr__(self) -> str:
        return f"LockedStore({str(self.path)!r})"

    @contextmanager
    def _held(self) -> Iterator[None]:
        depth = getattr(self._depth, "value", 0)
        if depth:
            self._depth.value = depth + 1
            try:
                yield
            finally:
                self._depth.value = depth
            return
        with self.lock:
            self._depth.value = 1
            try:
                yield
            finally:
                self._depth.value = 0

    @contextmanager
    def read(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """The wrapped store's ``read()``, under the lock."""
        with self._held(), self.inner.read() as con:
            yield con

    @contextmanager
    def write(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """The wrapped store's ``write()``, under the lock."""
        with self._held(), self.inner.write() as con:
            yield con

    @contextmanager
    def reading(self) -> Iterator[None]:
        """The wrapped store's ``reading()``, under the lock for its whole span."""
        with self._held(), self.inner.reading():
            yield

    @contextmanager
    def writing(self) -> Iterator[None]:
        """The wrapped store's ``writing()``, under the lock for its whole span."""
        with self._held(), self.inner.writing():
            yield
