"""Label changes not yet committed, kept durably beside the store until they are.

When another process holds the store longer than the lock wait, a label change cannot be
written now; it must never be forgotten. Every change is first appended (and fsynced) to
``<store>.labels-pending.jsonl`` and marked done once committed; what is left is replayed
the next time the app starts, and before any label or export command reads labels.

The file is append-only JSON lines: ``{"id": ..., "op": {...}}`` for a change and
``{"done": id}`` once it is committed (or refused for good); it is removed when nothing is
pending. A torn last line (a crash mid-append) is ignored.

A line that is not one of those - not JSON, a truncated line followed by others, an
unknown action, a field of the wrong type - is quarantined before a replay: copied, with
its line number and what is wrong, to ``<store>.labels-pending.rejected.jsonl`` (nothing is
lost) and marked in the journal so it is never read again; the rest is replayed. A
change the store refuses for good (an unknown run or code) goes there too. Appends and
the quarantine take an exclusive ``flock`` on the journal, so a quarantine by a command
never races an app's append.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import threading
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memscope.errors import InputError, MemscopeError, StoreBusyError, StoreError
from memscope.file_kinds import NONBLOCK, NotRegularFileError, describe_mode, read_regular

try:
    import fcntl
except ImportError:  # Windows: no flock (one app per store is the rule there too)
    fcntl = None  # type: ignore[assignment]

SUFFIX = ".labels-pending.jsonl"
REJECTED_SUFFIX = ".labels-pending.rejected.jsonl"
ACTIONS = ("set", "accept", "add", "remove", "note", "clear", "undo", "verdict", "undo_verdict")
"""What an op may do; ``add``/``remove`` change codes and ``note`` the note of the stored label;
``verdict`` gives (``verdict`` None: removes) a verdict on the answer and ``undo_verdict``
reverts the latest verdict change (neither touches the label)."""
CODE_ACTIONS = ("set", "add", "remove")
"""Actions that need at least one code."""
MAX_REASON_TEXT = 60


@dataclass(frozen=True)
class LabelOp:
    """One change to one question's label."""

    action: str
    """One of :data:`ACTIONS`: ``set`` (these codes), ``add``/``remove`` (codes on the
    stored label), ``note`` (the stored label's note), ``accept`` (the suggestion),
    ``clear`` or ``undo``."""
    run_id: str
    qid: str
    annotator: str
    codes: tuple[str, ...] = ()
    primary: str | None = None
    note: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    verdict: str | None = None
    """With ``verdict``: correct, wrong or unsure (None removes the verdict)."""
    entry_id: str = ""
    """The op's id in the journal ("" when not journalled)."""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LabelOp:
        """An op from its journal form.

        Raises:
            InputError: a field is missing, of the wrong type, or the action is unknown.
        """
        problem = op_problem(data)
        if problem is not None:
            raise InputError(f"a bad label change: {problem}")
        known = {item.name for item in fields(cls)}
        values = {key: value for key, value in data.items() if key in known}
        values["codes"] = tuple(values.get("codes") or ())
        values["params"] = dict(values.get("params") or {})
        return cls(**values)


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= MAX_REASON_TEXT else text[:MAX_REASON_TEXT] + "…"


def _kind(value: Any) -> str:
    names = {str: "text", bool: "true/false", int: "a number", float: "a number"}
    names |= {list: "a list", dict: "an object", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def op_problem(data: Any) -> str | None:
    """What is wrong with an op's journal form (None: nothing)."""
    if not isinstance(data, dict):
        return f"the change must be an object, got {_kind(data)}"
    action = data.get("action")
    if action not in ACTIONS:
        return f"unknown action {_shown(action)} (known: {', '.join(ACTIONS)})"
    for name in ("run_id", "qid", "annotator"):
        value = data.get(name)
        if not isinstance(value, str) or not value.strip():
            return f"{name} must be non-empty text, got {_kind(value)} {_shown(value)}"
    codes = data.get("codes", [])
    if codes is None:
        codes = []
    if not isinstance(codes, list) or not all(isinstance(c, str) and c for c in codes):
        return f"codes must be a list of code names, got {_shown(codes)}"
    if action in CODE_ACTIONS and not codes:
        return f"the action {action!r} needs at least one code"
    for name in ("primary", "note"):
        value = data.get(name)
        if value is not None and not isinstance(value, str):
            return f"{name} must be text or null, got {_kind(value)} {_shown(value)}"
    params = data.get("params")
    if params is not None and not isinstance(params, dict):
        return f"params must be an object, got {_kind(params)} {_shown(params)}"
    verdict = data.get("verdict")
    if verdict is not None and verdict not in ("correct", "wrong", "unsure"):
        return f"verdict must be correct, wrong, unsure or null, got {_shown(verdict)}"
    return None


def entry_problem(entry: Any) -> str | None:
    """What is wrong with one parsed journal line (None: a valid change or marker)."""
    if not isinstance(entry, dict):
        return f"not a journal entry (got {_kind(entry)})"
    if "done" in entry:
        done = entry["done"]
        return (
            None
            if isinstance(done, str) and done
            else f"done must name a change id, got {_shown(done)}"
        )
    if "skip" in entry:
        skip = entry["skip"]
        return (
            None
            if isinstance(skip, str) and skip
            else f"skip must be a line digest, got {_shown(skip)}"
        )
    entry_id = entry.get("id")
    if not isinstance(entry_id, str) or not entry_id:
        return f"id must be non-empty text, got {_kind(entry_id)} {_shown(entry_id)}"
    if "op" not in entry:
        return "no op: neither a change nor a done marker"
    return op_problem(entry["op"])


def line_digest(raw: bytes) -> str:
    """How a ``skip`` marker names a quarantined line: its content's hash."""
    return hashlib.sha256(raw.strip()).hexdigest()[:32]


def apply_op(store: Any, op: LabelOp) -> Any:
    """Write ``op`` and return the question's current label as committed.

    ``add``, ``remove`` and ``note`` are decided from the label the store holds at the
    moment of writing (another process may have changed it since the app last read it).
    After a set (or an accepted suggestion) the current label *is* that event, and after
    a clear there is none; otherwise the label is read back.

    Raises:
        InputError: an action this version does not know.
    """
    from memscope.usecases.labels import events as labels

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
    if op.action in ("add", "remove"):
        changed = labels.edit_codes(
            store,
            op.run_id,
            op.qid,
            add=op.codes if op.action == "add" else (),
            remove=op.codes if op.action == "remove" else (),
            annotator=op.annotator,
            params=op.params,
        )
        return _read_back(store, op, changed)
    if op.action == "note":
        noted = labels.note_label(store, op.run_id, op.qid, note=op.note, annotator=op.annotator)
        return _read_back(store, op, noted)
    if op.action == "clear":
        labels.clear_label(store, op.run_id, op.qid, annotator=op.annotator)
        return None
    if op.action == "undo":
        labels.undo_label(store, op.run_id, op.qid, annotator=op.annotator)
        return labels.current_labels(store, op.run_id, annotator=op.annotator).get(op.qid)
    if op.action in ("verdict", "undo_verdict"):
        from memscope.usecases.labels import verdicts

        if op.action == "verdict":
            verdicts.record_verdict(
                store, op.run_id, op.qid, op.verdict, annotator=op.annotator, note=op.note
            )
        else:
            verdicts.undo_verdict(store, op.run_id, op.qid, annotator=op.annotator)
        # A verdict is no label: the question's label is as it was.
        return labels.current_labels(store, op.run_id, annotator=op.annotator).get(op.qid)
    raise InputError(f"unknown label action {op.action!r}", fix=f"Known: {', '.join(ACTIONS)}.")


def _read_back(store: Any, op: LabelOp, event: Any) -> Any:
    """The label after an event that may have been a clear, or no event at all."""
    from memscope.usecases.labels import events as labels

    if event is not None and event.action == "set":
        return _as_current(store, op, event)
    if event is not None and event.action == "clear":
        return None
    return labels.current_labels(store, op.run_id, annotator=op.annotator).get(op.qid)


def _as_current(store: Any, op: LabelOp, event: Any) -> Any:
    """The current label a just-committed set event makes (read back if it cannot be built)."""
    from memscope.usecases.labels import events as labels

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


def rejected_path(store_path: Path) -> Path:
    """Where the quarantined lines of the store's journal are kept."""
    store_path = Path(store_path)
    return store_path.with_name(store_path.name + REJECTED_SUFFIX)


@dataclass(frozen=True)
class Rejected:
    """A journal line set aside: where it was and what is wrong with it."""

    line: int
    reason: str


@dataclass(frozen=True)
class _Line:
    number: int
    raw: bytes
    entry: Any
    problem: str | None


class LabelJournal:
    """The pending-label file of one store (thread-safe within a process)."""

    def __init__(self, store_path: Path) -> None:
        self.path = journal_path(store_path)
        self.rejected_path = rejected_path(store_path)
        self._lock = threading.Lock()

    def add(self, op: LabelOp) -> LabelOp:
        """Record ``op`` durably; returns it with its journal id."""
        journalled = LabelOp(**{**asdict(op), "entry_id": op.entry_id or uuid.uuid4().hex})
        data = asdict(journalled)
        data["codes"] = list(journalled.codes)
        self._append([{"id": journalled.entry_id, "op": data}])
        return journalled

    def done(self, op: LabelOp) -> None:
        """Mark ``op`` committed (or refused for good); removes the file when nothing is left."""
        if not op.entry_id:
            return
        self._append([{"done": op.entry_id}])
        self._remove_if_empty()

    def pending(self) -> list[LabelOp]:
        """The changes recorded and not yet done, in the order they were made (bad lines are
        left out: :meth:`quarantine` sets them aside)."""
        return list(self._read_pending(self._lines()).values())

    def quarantine(self) -> list[Rejected]:
        """Set every bad line aside (see the module docstring); returns what was set aside."""
        with self._locked() as handle:
            if handle is None:
                return []
            lines = self._parse(handle.read())
            skipped = self._skipped(lines)
            bad = [
                line
                for line in lines
                if line.problem is not None and line_digest(line.raw) not in skipped
            ]
            if not bad:
                return []
            self._write_rejected(
                [
                    {"line": line.number, "reason": str(line.problem)}
                    | {"text": line.raw.decode("utf-8", "replace")}
                    for line in bad
                ]
            )
            self._write_locked(handle, [{"skip": line_digest(line.raw)} for line in bad])
        self._remove_if_empty()
        return [Rejected(line.number, str(line.problem)) for line in bad]

    def reject(self, op: LabelOp, reason: str) -> None:
        """Keep a change the store refused for good in the rejected file, then mark it done."""
        data = asdict(op)
        data["codes"] = list(op.codes)
        self._write_rejected(
            [
                {
                    "line": None,
                    "reason": reason,
                    "text": json.dumps({"id": op.entry_id, "op": data}, ensure_ascii=False),
                }
            ]
        )
        self.done(op)

    # -- the file -------------------------------------------------------------------------------

    def _lines(self) -> list[_Line]:
        with self._lock:
            try:
                raw = read_regular(self.path)
            except FileNotFoundError:
                return []
            except NotRegularFileError as exc:
                raise self._not_a_file(exc.kind) from None
        return self._parse(raw)

    def _not_a_file(self, kind: str) -> StoreError:
        return StoreError(
            f"the label journal is {kind}, not a regular file",
            where=str(self.path),
            fix="Remove what is there; memscope keeps label changes not yet saved in this file.",
        )

    @staticmethod
    def _parse(raw: bytes) -> list[_Line]:
        parts = raw.split(b"\n")
        torn_tail = not raw.endswith(b"\n")
        lines = []
        for number, text in enumerate(parts, start=1):
            if not text.strip():
                continue
            try:
                entry = json.loads(text)
            except ValueError:
                if torn_tail and number == len(parts):
                    continue  # a torn last line from a crash mid-append (or one being written)
                lines.append(_Line(number, text, None, "not a JSON line (truncated?)"))
                continue
            lines.append(_Line(number, text, entry, entry_problem(entry)))
        return lines

    @staticmethod
    def _skipped(lines: list[_Line]) -> set[str]:
        return {
            line.entry["skip"]
            for line in lines
            if line.problem is None and isinstance(line.entry, dict) and "skip" in line.entry
        }

    def _read_pending(self, lines: list[_Line]) -> dict[str, LabelOp]:
        ops: dict[str, LabelOp] = {}
        for line in lines:
            if line.problem is not None:
                continue
            entry = line.entry
            if "done" in entry:
                ops.pop(entry["done"], None)
            elif "op" in entry:
                ops[entry["id"]] = LabelOp.from_json({**entry["op"], "entry_id": entry["id"]})
        return ops

    def _remove_if_empty(self) -> None:
        if self.pending():
            return
        with self._locked() as handle:
            if handle is not None and not self._read_pending(self._parse(handle.read())):
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()

    @contextlib.contextmanager
    def _locked(self, *, create: bool = False) -> Iterator[Any]:
        """The journal opened for reading and appending under its exclusive flock (None
        when it does not exist and ``create`` is false).

        The file is removed once nothing is pending (under this lock): a writer that opened
        it just before, and got the lock after, holds a file no longer in place, so it opens
        the path again rather than write where nobody would read.
        """
        with self._lock:
            if create:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            while True:
                try:
                    # Non-blocking: a FIFO in the journal's place must not hang the open.
                    flags = os.O_RDWR | os.O_APPEND | NONBLOCK | (os.O_CREAT if create else 0)
                    fd = os.open(self.path, flags, 0o644)
                except FileNotFoundError:
                    yield None
                    return
                try:
                    status = os.fstat(fd)
                    if not stat.S_ISREG(status.st_mode):
                        raise self._not_a_file(describe_mode(status.st_mode))
                    if fcntl is not None:
                        fcntl.flock(fd, fcntl.LOCK_EX)
                    if not self._still_in_place(fd):
                        continue
                    with os.fdopen(fd, "r+b", buffering=0, closefd=False) as handle:
                        yield handle
                    return
                finally:
                    os.close(fd)  # closing drops the flock

    def _still_in_place(self, fd: int) -> bool:
        try:
            here = os.stat(self.path)
        except FileNotFoundError:
            return False
        opened = os.fstat(fd)
        return (here.st_dev, here.st_ino) == (opened.st_dev, opened.st_ino)

    def _append(self, entries: list[dict[str, Any]]) -> None:
        with self._locked(create=True) as handle:
            self._write_locked(handle, entries)

    @staticmethod
    def _write_locked(handle: Any, entries: list[dict[str, Any]]) -> None:
        data = b"".join((json.dumps(e, ensure_ascii=False) + "\n").encode() for e in entries)
        fd = handle.fileno()
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data  # after a torn line (a crash mid-append): start afresh
        os.write(fd, data)
        os.fsync(fd)

    def _write_rejected(self, entries: list[dict[str, Any]]) -> None:
        now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        data = b"".join(
            (
                json.dumps({"journal": str(self.path), "rejected_at": now, **e}, ensure_ascii=False)
                + "\n"
            ).encode()
            for e in entries
        )
        fd = os.open(self.rejected_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | NONBLOCK, 0o644)
        try:
            status = os.fstat(fd)
            if not stat.S_ISREG(status.st_mode):
                raise StoreError(
                    f"the file of rejected label changes is {describe_mode(status.st_mode)}, "
                    "not a regular file",
                    where=str(self.rejected_path),
                    fix="Remove what is there; memscope keeps refused label changes in this file.",
                )
            os.write(fd, data)
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
    rejected: list[Rejected] = field(default_factory=list)
    """Bad journal lines set aside (in :attr:`LabelJournal.rejected_path`)."""
    journal: Path | None = None
    rejected_file: Path | None = None


def replay_pending(store: Any) -> ReplayResult:
    """Quarantine the journal's bad lines, then commit every pending label change, in order.

    A change the store refuses for good (an unknown run or code) is set aside in the
    rejected file and reported; when the store is busy, the rest stays pending for the
    next try.
    """
    journal = LabelJournal(store.path)
    result = ReplayResult(journal=journal.path, rejected_file=journal.rejected_path)
    try:
        result.rejected = journal.quarantine()
        ops = journal.pending()
    except OSError:
        return result  # an unreadable journal holds nothing this command could replay
    for position, op in enumerate(ops):
        try:
            apply_op(store, op)
        except StoreBusyError:
            result.left = len(ops) - position
            return result
        except MemscopeError as error:
            result.refused.append((op, error))
            journal.reject(op, error.message)
            continue
        result.saved += 1
        journal.done(op)
    return result
