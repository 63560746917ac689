"""Label changes from the triage app, written to the store in order, one at a time.

Key presses become :class:`LabelOp` s in a queue; :func:`write_pending` (run in a thread
worker) drains it in FIFO order so "toggle, toggle, undo" lands exactly in that order,
however fast the keys come. Each op calls ``memscope.usecases.labels.events``, which commits
before it returns; only then is ``LabelSaved`` posted and the screen shows the label as
saved.

Opening the store costs tens of milliseconds, a committed insert a few, so the writer
keeps one connection (``Store.writing``) while labels keep coming and gives the store back
:data:`LINGER_S` after the last one: other memscope processes wait that long at most.

No change is ever dropped because the store is busy: each op is journalled durably
(``memscope.usecases.labels.journal``) before it is queued, and while another process holds
the store the writer keeps the ops queued and retries every :data:`RETRY_S` until they are
committed (or the app quits; the journal replays them at the next start).
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from memscope.errors import MemscopeError, StoreBusyError, StoreError
from memscope.usecases.labels.events import CurrentLabel
from memscope.usecases.labels.journal import LabelJournal, LabelOp, apply_op
from memscope.usecases.runs.store_access import Store

__all__ = [
    "LINGER_S",
    "RETRY_S",
    "VERDICT_ACTIONS",
    "LabelEvent",
    "LabelFailed",
    "LabelOp",
    "LabelQueue",
    "LabelSaved",
    "LabelsWaiting",
    "apply_op",
]


@dataclass(frozen=True)
class LabelSaved:
    """The store committed an op; ``label`` is the question's label now (None: none)."""

    run_id: str
    qid: str
    label: CurrentLabel | None
    action: str
    verdict: str | None = None
    """After a verdict op (:data:`VERDICT_ACTIONS`): the question's verdict now (None: none)."""


@dataclass(frozen=True)
class LabelFailed:
    """An op could not be written; nothing of it was saved."""

    run_id: str
    qid: str
    action: str
    error: MemscopeError


@dataclass(frozen=True)
class LabelsWaiting:
    """Another process holds the store: ``count`` changes wait (kept, retried)."""

    count: int
    error: MemscopeError


VERDICT_ACTIONS = ("verdict", "undo_verdict")
"""Ops that change the person's verdict on the answer, never the label."""

LabelEvent = LabelSaved | LabelFailed | LabelsWaiting
"""What the writer reports, one event per op (the app wraps each in a Textual message)."""

LINGER_S = 1.0
"""How long the label writer keeps the store after the last label, waiting for the next."""
RETRY_S = 1.0
"""How often the writer tries again while another process holds the store."""


class LabelQueue:
    """Pending label ops and the lock that makes their writer single-file."""

    def __init__(
        self,
        linger_s: float = LINGER_S,
        journal: LabelJournal | None = None,
        retry_s: float = RETRY_S,
    ) -> None:
        self.journal = journal
        self.retry_s = retry_s
        self.waiting: MemscopeError | None = None
        """Set while the store is busy and ops wait for it (None otherwise)."""
        self._pending: deque[LabelOp] = deque()
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._writing = threading.Lock()
        self.linger_s = linger_s
        self._closing = False
        self._giving_back = False
        self.in_flight: dict[str, int] = {}
        """qid -> number of ops queued or being written (the screen shows "saving …")."""

    def push(self, op: LabelOp, *, journalled: bool = False) -> None:
        """Queue ``op`` (call from the app's thread), journalling it first."""
        if self.journal is not None and not journalled:
            with contextlib.suppress(OSError):  # an unwritable journal must not block labelling
                op = self.journal.add(op)
        with self._lock:
            self._pending.append(op)
            self._arrived.notify()
        self.in_flight[op.qid] = self.in_flight.get(op.qid, 0) + 1

    def done(self, qid: str) -> None:
        """One op of ``qid`` finished (saved or failed)."""
        left = self.in_flight.get(qid, 0) - 1
        if left > 0:
            self.in_flight[qid] = left
        else:
            self.in_flight.pop(qid, None)

    def busy(self, qid: str) -> bool:
        """Whether ``qid`` has unsaved changes."""
        return qid in self.in_flight

    def write_pending(
        self,
        store: Store,
        post: Callable[[LabelEvent], object],
        store_lock: AbstractContextManager[Any] | None = None,
    ) -> None:
        """Write every queued op in order, posting LabelSaved / LabelFailed for each.

        Runs in a thread worker; concurrent callers wait, so ops never overtake each other.
        ``store_lock`` (the app's) is held while the writer holds the store, so the app's
        other workers never open a second connection meanwhile.
        """
        with self._writing:
            while self._has_pending():
                try:
                    with store_lock or contextlib.nullcontext(), store.writing():
                        self.waiting = None
                        self._drain(store, post)
                except StoreBusyError as error:  # keep every op; try again until it commits
                    first, self.waiting = self.waiting is None, error
                    if first:  # say so once, not at every retry
                        post(LabelsWaiting(self.pending_count(), error))
                    with self._lock:
                        if self._arrived.wait_for(lambda: self._closing, self.retry_s):
                            return  # quitting: the journal keeps the ops for the next start
                except MemscopeError as error:  # the store could not be opened at all
                    self._fail_pending(post, error)
            self.waiting = None

    def pending_count(self) -> int:
        """How many label changes are not committed yet."""
        return sum(self.in_flight.values())

    def stop_lingering(self) -> None:
        """Give the store back as soon as the pending ops are written (the app is quitting)."""
        with self._lock:
            self._closing = True
            self._arrived.notify_all()

    def give_back_store(self) -> None:
        """Stop lingering with the store once the pending ops are written (the app's
        thread needs a short read meanwhile); the next label takes it again."""
        with self._lock:
            self._giving_back = True
            self._arrived.notify_all()

    def _has_pending(self) -> bool:
        with self._lock:
            return bool(self._pending)

    def _drain(self, store: Store, post: Callable[[LabelEvent], object]) -> None:
        """Write ops as they come; return once none arrived for ``linger_s``."""
        while True:
            with self._lock:
                arrived = self._arrived.wait_for(
                    lambda: bool(self._pending) or self._closing or self._giving_back,
                    self.linger_s,
                )
                if not self._pending or not arrived:
                    self._giving_back = False
                    return
                op = self._pending.popleft()
            try:
                label = apply_op(store, op)
                verdict = _verdict_after(store, op)
            except StoreBusyError:
                with self._lock:
                    self._pending.appendleft(op)
                raise
            except MemscopeError as error:
                self._forget(op)
                post(LabelFailed(op.run_id, op.qid, op.action, error))
                continue
            except Exception as error:  # a bug must not lose the ops behind it silently
                self._forget(op)
                post(
                    LabelFailed(
                        op.run_id, op.qid, op.action, StoreError(f"{type(error).__name__}: {error}")
                    )
                )
                continue
            self._forget(op)
            post(LabelSaved(op.run_id, op.qid, label, op.action, verdict))

    def _forget(self, op: LabelOp) -> None:
        """``op`` is committed (or refused for good): the journal need not keep it."""
        if self.journal is not None:
            with contextlib.suppress(OSError):
                self.journal.done(op)

    def _fail_pending(self, post: Callable[[LabelEvent], object], error: MemscopeError) -> None:
        with self._lock:
            failed, self._pending = list(self._pending), deque()
        for op in failed:
            post(LabelFailed(op.run_id, op.qid, op.action, error))


def _verdict_after(store: Store, op: LabelOp) -> str | None:
    """The verdict the store holds after a verdict op (None for any other op)."""
    if op.action not in VERDICT_ACTIONS:
        return None
    from memscope.usecases.labels.verdicts import current_verdict

    return current_verdict(store, op.run_id, op.qid, annotator=op.annotator)
