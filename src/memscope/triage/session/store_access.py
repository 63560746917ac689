"""The store held for one thread (every worker's store access), and the writer lease that
makes this app the store's one labeller."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from memscope.triage.loaded_run import LoadedRun
from memscope.triage.session.state import SessionState
from memscope.usecases.runs.store_access import Store


class StoreAccess(SessionState):
    """The store under the session's lock, and the lease."""

    @contextmanager
    def using_store(self) -> Iterator[Store]:
        """The store, held for this thread (every worker's store access goes through here)."""
        with self.store_lock:
            yield self.store

    def take_lease(self) -> bool:
        """Become the store's labeller; False when another app is (then the session browses
        read-only and :attr:`read_only_reason` says why)."""
        if self.lease.acquire():
            return True
        failure = self.lease.failure
        if failure is not None:  # not another app: the lock file itself cannot be used
            self.read_only_reason = f"{failure.cause}; browsing works, {failure.fix}"
            return False
        self.read_only_reason = (
            f"another memscope app ({self.lease.current_holder()}) is labelling this store; "
            "browsing works, close that app to label here"
        )
        return False

    def release(self) -> None:
        """Give the lease back (the app is closing)."""
        self.lease.release()

    @property
    def is_open(self) -> bool:
        """Whether a run is loaded."""
        return self.run is not None

    def _loaded(self) -> LoadedRun:
        if self.run is None:
            raise RuntimeError("no run is loaded")  # a bug: callers check is_open
        return self.run
