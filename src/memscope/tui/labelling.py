"""Label changes from the question screen, written to the store in order, one at a time.

Key presses become :class:`LabelOp` s in a queue; :func:`write_pending` (run in a thread
worker) drains it in FIFO order so "toggle, toggle, undo" lands exactly in that order,
however fast the keys come. Each op calls ``memscope.pipeline.labels``, which commits
before it returns; only then is ``LabelSaved`` posted and the screen shows the label as
saved.

Opening the store costs tens of milliseconds, a committed insert a few, so the writer
keeps one connection (``Store.writing``) while labels keep coming and gives the store back
:data:`LINGER_S` after the last one: other memscope processes wait that long at most.
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from memscope.errors import MemscopeError, StoreError
from memscope.store import Store
from memscope.tui.messages import LabelFailed, LabelSaved

LINGER_S = 1.0
"""How long the label writer keeps the store after the last label, waiting for the next."""


@dataclass(frozen=True)
class LabelOp:
    """One change to one question's label."""

    action: str
    """``set`` (codes/note), ``accept`` (the suggestion), ``clear`` or ``undo``."""
    run_id: str
    qid: str
    annotator: str
    codes: tuple[str, ...] = ()
    primary: str | None = None
    note: str | None = None
    params: dict[str, Any] = field(default_factory=dict)


def apply_op(store: Store, op: LabelOp) -> Any:
    """Write ``op`` and return the question's current label as committed.

    After a set (or an accepted suggestion) the current label *is* that event, and after a
    clear there is none, so only an undo needs to read the history back.
    """
    from memscope.pipeline import labels

    if op.action == "set":
        event = labels.record_label(
            store,
            op.run_id,
            op.qid,
            codes=list(op.codes),
            primary=op.primary,
            note=op.note,
            annotator=op.annotator,
            source="human",
            params=op.params,
        )
        return _as_current(store, op, event)
    if op.action == "accept":
        event = labels.accept_suggestion(
            store, op.run_id, op.qid, annotator=op.annotator, params=op.params
        )
        return _as_current(store, op, event)
    if op.action == "clear":
        labels.clear_label(store, op.run_id, op.qid, annotator=op.annotator)
        return None
    if op.action == "undo":
        labels.undo_label(store, op.run_id, op.qid, annotator=op.annotator)
        return labels.current_labels(store, op.run_id, annotator=op.annotator).get(op.qid)
    raise ValueError(f"unknown label action {op.action!r}")


def _as_current(store: Store, op: LabelOp, event: Any) -> Any:
    """The current label a just-committed set event makes (read back if it cannot be built)."""
    from memscope.pipeline import labels

    values = {}
    for item in fields(labels.CurrentLabel):
        if hasattr(event, item.name):
            values[item.name] = getattr(event, item.name)
        elif item.name in ("labelled_at", "first_labelled_at"):
            values[item.name] = event.created_at
    try:
        return labels.CurrentLabel(**values)
    except TypeError:  # the label model grew a field the event lacks: ask the store
        return labels.current_labels(store, op.run_id, annotator=op.annotator).get(op.qid)


class LabelQueue:
    """Pending label ops and the lock that makes their writer single-file."""

    def __init__(self, linger_s: float = LINGER_S) -> None:
        self._pending: deque[LabelOp] = deque()
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._writing = threading.Lock()
        self.linger_s = linger_s
        self._closing = False
        self.in_flight: dict[str, int] = {}
        """qid -> number of ops queued or being written (the screen shows "saving …")."""

    def push(self, op: LabelOp) -> None:
        """Queue ``op`` (call from the app's thread)."""
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
        self, store: Store, post: Callable[[Any], Any], store_lock: Any = None
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
                        self._drain(store, post)
                except MemscopeError as error:  # the store could not be opened at all
                    self._fail_pending(post, error)

    def stop_lingering(self) -> None:
        """Give the store back as soon as the pending ops are written (the app is quitting)."""
        with self._lock:
            self._closing = True
            self._arrived.notify_all()

    def _has_pending(self) -> bool:
        with self._lock:
            return bool(self._pending)

    def _drain(self, store: Store, post: Callable[[Any], Any]) -> None:
        """Write ops as they come; return once none arrived for ``linger_s``."""
        while True:
            with self._lock:
                arrived = self._arrived.wait_for(
                    lambda: bool(self._pending) or self._closing, self.linger_s
                )
                if not self._pending or not arrived:
                    return
                op = self._pending.popleft()
            try:
                label = apply_op(store, op)
            except MemscopeError as error:
                post(LabelFailed(op.run_id, op.qid, op.action, error))
                continue
            except Exception as error:  # a bug must not lose the ops behind it silently
                post(
                    LabelFailed(
                        op.run_id, op.qid, op.action, StoreError(f"{type(error).__name__}: {error}")
                    )
                )
                continue
            post(LabelSaved(op.run_id, op.qid, label, op.action))

    def _fail_pending(self, post: Callable[[Any], Any], error: MemscopeError) -> None:
        with self._lock:
            failed, self._pending = list(self._pending), deque()
        for op in failed:
            post(LabelFailed(op.run_id, op.qid, op.action, error))
