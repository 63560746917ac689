"""Label changes not yet committed, kept durably beside the store until they are.

When another process holds the store longer than the lock wait, a label change cannot be
written now; it must never be forgotten. Every change is first appended (and fsynced) to
``<store>.labels-pending.jsonl`` and marked done once committed; what is left is replayed
the next time the app starts, and before any label or export command reads labels.

The file is append-only JSON lines: ``{"id": ..., "op": {...}}`` for a change and
``{"done": id}`` once it is committed (or refused for good); it is removed when nothing is
pending. A torn last line (a crash mid-write) is ignored.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import threading
import uuid
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from memscope.errors import MemscopeError, StoreBusyError, StoreError
from memscope.file_kinds import NONBLOCK, NotRegularFileError, describe_mode, read_regular

SUFFIX = ".labels-pending.jsonl"


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
    entry_id: str = ""
    """The op's id in the journal ("" when not journalled)."""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LabelOp:
        known = {item.name for item in fields(cls)}
        values = {key: value for key, value in data.items() if key in known}
        values["codes"] = tuple(values.get("codes") or ())
        values["params"] = dict(values.get("params") or {})
        return cls(**values)


def apply_op(store: Any, op: LabelOp) -> Any:
    """Write ``op`` and return the question's current label as committed.

    After a set (or an accepted suggestion) the current label *is* that event, and after a
    clear there is none, so only an undo needs to read the history back.
    """
    from memscope.usecases import labels

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


def _as_current(store: Any, op: LabelOp, event: Any) -> Any:
    """The current label a just-committed set event makes (read back if it cannot be built)."""
    from memscope.usecases import labels

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


def journal_path(store_path: Path) -> Path:
    """Where the pending label changes of the store at ``store_path`` are kept."""
    store_path = Path(store_path)
    return store_path.with_name(store_path.name + SUFFIX)


class LabelJournal:
    """The pending-label file of one store (thread-safe within a process)."""

    def __init__(self, store_path: Path) -> None:
        self.path = journal_path(store_path)
        self._lock = threading.Lock()

    def add(self, op: LabelOp) -> LabelOp:
        """Record ``op`` durably; returns it with its journal id."""
        journalled = LabelOp(**{**asdict(op), "entry_id": op.entry_id or uuid.uuid4().hex})
        data = asdict(journalled)
        data["codes"] = list(journalled.codes)
        self._append({"id": journalled.entry_id, "op": data})
        return journalled

    def done(self, op: LabelOp) -> None:
        """Mark ``op`` committed (or refused for good); removes the file when nothing is left."""
        if not op.entry_id:
            return
        self._append({"done": op.entry_id})
        if not self.pending():
            with self._lock, contextlib.suppress(FileNotFoundError):
                self.path.unlink()

    def pending(self) -> list[LabelOp]:
        """The changes recorded and not yet done, in the order they were made."""
        with self._lock:
            try:
                raw = read_regular(self.path)
            except FileNotFoundError:
                return []
            except NotRegularFileError as exc:
                raise self._not_a_file(exc.kind) from None
        ops: dict[str, LabelOp] = {}
        for line in raw.splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a torn line from a crash mid-append
            if not isinstance(entry, dict):
                continue
            if "done" in entry:
                ops.pop(str(entry["done"]), None)
            elif isinstance(entry.get("op"), dict) and entry.get("id"):
                try:
                    ops[str(entry["id"])] = LabelOp.from_json(
                        {**entry["op"], "entry_id": str(entry["id"])}
                    )
                except TypeError:
                    continue
        return list(ops.values())

    def _not_a_file(self, kind: str) -> StoreError:
        return StoreError(
            f"the label journal is {kind}, not a regular file",
            where=str(self.path),
            fix="Remove what is there; memscope keeps label changes not yet saved in this file.",
        )

    def _append(self, entry: dict[str, Any]) -> None:
        line = (json.dumps(entry, ensure_ascii=False) + "\n").encode()
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | NONBLOCK, 0o644)
            try:
                status = os.fstat(fd)
                if not stat.S_ISREG(status.st_mode):
                    raise self._not_a_file(describe_mode(status.st_mode))
                size = status.st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    line = b"\n" + line  # after a torn line (a crash mid-append): start afresh
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)


@dataclass
class ReplayResult:
    """What replaying the journal did."""

    saved: int = 0
    refused: list[tuple[LabelOp, MemscopeError]] = field(default_factory=list)
    left: int = 0
    """Changes still pending (the store was busy)."""


def replay_pending(store: Any) -> ReplayResult:
    """Commit every pending label change of ``store``, in order.

    A change the store refuses for good (an unknown run or code) is dropped and reported;
    when the store is busy, the rest stays pending for the next try.
    """
    journal = LabelJournal(store.path)
    result = ReplayResult()
    ops = journal.pending()
    for position, op in enumerate(ops):
        try:
            apply_op(store, op)
        except StoreBusyError:
            result.left = len(ops) - position
            return result
        except MemscopeError as error:
            result.refused.append((op, error))
        else:
            result.saved += 1
        journal.done(op)
    return result
