"""The triage queue as a window onto the store: the queue is computed by DuckDB, and only
the rows on screen (and a margin) are read.

:class:`StoreQueue` has :class:`~memscope.usecases.labels.queue.TriageTable`'s queue
operations (``select``, ``set_label``, ``set_sample_order``, ``progress``) without holding
the run: a question is named by its ``idx`` (its row in the queue's arrays), the queue is
an array of them and only a bounded cache of the rows drawn is kept. A
:class:`~memscope.usecases.labels.queue.QueueSpec` is validated here and run as SQL
(``store.queue_rows``); a benchmark-axis filter (``reach:2``, ``evidence:implicit``) is
computed over the axis values, read for that purpose once (:class:`AxisFrame`).

Opening a run reads nothing of the whole run: :meth:`StoreQueue.head` reads the queue's
first screenful, and the whole queue (:meth:`StoreQueue.prepare`) and the run's shape
(:meth:`StoreQueue.read_shape`) follow in a worker once that is drawn.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from memscope.analysis.answers import F1_CORRECT_AT, JUDGE_CORRECT_AT
from memscope.errors import InputError
from memscope.store import Store
from memscope.store import queue_rows as sql
from memscope.usecases.benchmarks import Benchmark, all_axis_keys, spec_of
from memscope.usecases.labels.queue import QueueSpec, parse_filter
from memscope.usecases.runs.run_info import RunInfo

PAGE_MARGIN = 3
"""Screens read ahead and behind the one drawn (one query serves a few scroll steps)."""
STEP_MARGIN = 100
"""Rows read around a question reached outside the rows drawn (stepping with ``j``/``k``)."""
HEAD_BEFORE = 30
"""Rows read before a remembered question when the queue opens around it (half a screen
and more: scrolling up from it needs no read while the queue is counted)."""
CACHE_ROWS = 4000
"""Rows kept drawn-ready before the cache is emptied (a screen is a few dozen)."""


@dataclass(frozen=True)
class QueueRow:
    """One question as the queue draws it."""

    row: int
    qid: str
    task: str
    x: str
    y: str
    mode: str
    question: str
    correct: float
    """1.0, 0.0 or NaN (no answer score)."""
    score: float
    suggested: str
    label: str
    other_correct: float
    rotations: str
    """MCQ rotations answered right of those asked (``3/4``), ``""`` for one or none."""
    axes: dict[str, str] = field(default_factory=dict)
    """Per benchmark axis shown as a column (not x or y), the question's value."""


@dataclass
class AxisFrame:
    """The benchmark-axis values of every question of a run (read once, when an axis
    filter or an axis column first needs them): labels and, for numeric axes, numbers,
    in the order of ``idx`` (ascending)."""

    idx: np.ndarray
    labels: dict[str, np.ndarray]
    numbers: dict[str, np.ndarray]

    def at(self, idx: int) -> int | None:
        """The frame position of question ``idx`` (None: not a question of the run)."""
        place = int(np.searchsorted(self.idx, idx))
        return place if place < len(self.idx) and int(self.idx[place]) == idx else None


def _float(value: Any) -> float:
    return float("nan") if value is None else float(value)


class StoreQueue:
    """A run's triage queue over the store (see the module docstring).

    ``lock`` is held around every store read (the session's store lock: DuckDB refuses a
    read-only and a read-write connection to one file in the same process).
    """

    def __init__(
        self,
        store: Store,
        run: RunInfo,
        other_run_id: str | None = None,
        *,
        lock: AbstractContextManager[Any] | None = None,
    ) -> None:
        self.store = store
        self.run = run
        self.other_run_id = other_run_id
        self._lock: AbstractContextManager[Any] = lock if lock is not None else nullcontext()
        self.make_room: Callable[[], None] | None = None
        """Asks whoever holds the store lock for a while (the label writer lingering after
        a label) to give it back: called when a read cannot take the lock at once."""
        self.spec: Benchmark = spec_of(run.benchmark)
        """The run's benchmark: how its queue, matrix and panels are shown."""
        self.axes = self.spec.axes
        """The run's benchmark axes: the queue's columns and filter words."""
        self.qid_width = 0
        """The longest qid of the run (of the rows read so far until :meth:`read_shape`)."""
        self.mixes_tasks = False
        """Whether the run mixes tasks (as far as the rows read so far say, until
        :meth:`read_shape`)."""
        self.shape_read = False
        self.labels: dict[str, str] = {}
        """qid -> its current label's codes joined by spaces (labelled questions only)."""
        self.suggestions_ready = True
        self.sample_qids: list[str] | None = None
        self.sample_has_passes = False
        self._axis_frame: AxisFrame | None = None
        self._frame_lock = threading.Lock()
        self._query: sql.QueueQuery | None = None
        self._version = 0
        """Bumped by every change the queue depends on (labels, sample, suggestions)."""
        self._selected: tuple[tuple[QueueSpec, int], np.ndarray] | None = None
        self._prepared: tuple[tuple[QueueSpec, int], np.ndarray] | None = None
        """A whole queue a worker computed (:meth:`prepare`), taken by :meth:`select`."""
        self._drawn: tuple[QueueSpec, int] | None = None
        """The queue whose rows the cache holds (its head's or the whole one's)."""
        self._rows = np.zeros(0, dtype=np.int64)
        """The queue last returned (its head, or the whole of it)."""
        self.head_offset: int | None = 0
        """Where the head read last starts in the whole queue (0: at its top; None: not
        known until the queue is counted, a head read around a question)."""
        self._cache: dict[int, QueueRow] = {}
        self._stale: set[int] = set()
        """Cached rows drawn before the suggestions were ready: drawn again from a new
        read, but their qid still answers ``qid_of`` without one (the store may be busy)."""
        self._labelled_rows: dict[str, int] = {}
        self._in_queue = np.zeros(0, dtype=np.int64)
        """The queue's rows, sorted (what ``progress`` counts in)."""

    def read_shape(self) -> None:
        """Read the run's longest qid and whether it mixes tasks (a scan of the run: in a
        worker, once the first screen is drawn)."""
        with self._reading() as reader:
            self.qid_width, self.mixes_tasks = sql.queue_shape(reader, self.run.run_id)
        self.shape_read = True

    def _widen_shape(self, rows: Iterable[QueueRow]) -> None:
        """Until the run's shape is read: what the rows read so far show of it."""
        if self.shape_read:
            return
        tasks = set()
        for item in rows:
            self.qid_width = max(self.qid_width, len(item.qid))
            tasks.add(item.task)
        self.mixes_tasks = self.mixes_tasks or len(tasks) > 1

    @property
    def compare(self) -> bool:
        """Whether a second run is compared (the ``other`` column and filter)."""
        return self.other_run_id is not None

    # -- what changes while the app runs ------------------------------------------------

    def set_label(self, qid: str, codes: Iterable[str] | None) -> None:
        """Record the current label codes of ``qid`` (None or empty: not labelled)."""
        code_list = [str(code) for code in (codes or [])]
        self._version += 1
        if code_list:
            self.labels[qid] = " ".join(code_list)
        else:
            self.labels.pop(qid, None)
        # The rows drawn keep their place and show the new label without a read (the label
        # writer may hold the store a moment longer).
        label = self.labels.get(qid, "")
        for row, item in self._cache.items():
            if item.qid == qid:
                self._cache[row] = replace(item, label=label)
                self._labelled_rows[qid] = row  # progress needs no read for it

    def set_labels(self, labels: Mapping[str, Iterable[str]]) -> None:
        """Replace every label (qid -> codes)."""
        self.labels = {}
        for qid, codes in labels.items():
            self.set_label(qid, codes)
        self._cache.clear()
        self._stale.clear()

    def set_sample_order(self, qids: Iterable[str], *, with_passes: bool = False) -> None:
        """The sampled queue's order (see ``TriageTable.set_sample_order``)."""
        self.sample_qids = [str(qid) for qid in qids]
        self.sample_has_passes = with_passes
        self._version += 1

    def set_suggestions_ready(self, ready: bool) -> None:
        """The stored suggestions are (not yet) the run's current ones: shown once ready."""
        self.suggestions_ready = ready
        self._version += 1
        self._stale = set(self._cache)

    # -- the queue --------------------------------------------------------------------

    def query(self, spec: QueueSpec) -> sql.QueueQuery:
        """``spec`` as SQL terms for this run.

        Raises:
            InputError: the spec's filter is invalid (or names a field this run lacks).
        """
        terms = parse_filter(spec.text)
        fields: dict[str, str] = {}
        keep: np.ndarray | None = None
        for name, value in terms.fields.items():
            axis = self.axes.axis(name)
            if axis is not None and name not in ("x", "y"):
                mask = self._axis_mask(name, value)
                kept = self.axis_frame().idx[mask]
                keep = kept if keep is None else np.intersect1d(keep, kept)
                continue
            if axis is None and name in all_axis_keys() and name != "task":
                words = ", ".join(a.key for a in self.axes.axes)
                raise InputError(
                    f"{name}: is not an axis of {self.axes.name} runs",
                    fix=f"This run's axes: {words}.",
                )
            if name == "other" and self.other_run_id is None:
                raise InputError(
                    "other: needs a second run", fix="Open two runs: memscope open RUN_A RUN_B."
                )
            fields[name] = value
        return sql.QueueQuery(
            run_id=self.run.run_id,
            dataset_id=self.run.dataset_id,
            kind=spec.kind,
            cell=spec.cell,
            fields=fields,
            words=terms.words,
            sort=spec.sort,
            descending=spec.descending,
            labels=dict(self.labels),
            with_suggestions=self.suggestions_ready,
            other_run_id=self.other_run_id,
            sample=self.sample_qids if spec.kind == "sample" else None,
            sample_has_passes=self.sample_has_passes,
            keep=keep,
            judge_at=JUDGE_CORRECT_AT,
            f1_at=F1_CORRECT_AT,
        )

    def select(self, spec: QueueSpec) -> np.ndarray:
        """The questions (``idx``) of the queue ``spec`` describes, in its order (like
        ``TriageTable.select``, with idx for row numbers); the rows drawn next are read for
        this queue.

        Raises:
            InputError: when the spec's filter expression is invalid.
        """
        key = (spec, self._version)
        if self._selected is not None and self._selected[0] == key:
            return self._selected[1]
        query = self.query(spec)
        prepared = self._prepared
        if prepared is not None and prepared[0] == key:
            rows = prepared[1]  # a worker computed it already
        else:
            with self._reading() as con:
                rows = sql.queue_order(con, query)
        self._query, self._prepared = query, None
        if self._drawn != key:  # the rows of a queue's head stay drawn when the whole arrives
            self._cache, self._stale = {}, set()
        self._drawn, self._rows = key, rows
        self._in_queue = np.sort(rows)
        self._selected = (key, rows)
        return rows

    def head(self, spec: QueueSpec, count: int, around: str | None = None) -> np.ndarray | None:
        """The first ``count`` questions of the queue ``spec`` describes, read with their
        rows without computing the whole queue (None where that is not possible cheaply:
        see ``store.queue_rows.queue_head``); :meth:`select` completes it.

        ``around`` (a qid): the rows around that question instead (a screen before it, the
        rest from it on), where it is in the queue; None where it is not (then where the
        cursor lands needs the whole queue). :attr:`head_offset` says where it is.

        Raises:
            InputError: when the spec's filter expression is invalid.
        """
        query = self.query(spec)
        with self._reading() as con:
            if around is None:
                found = sql.queue_head(con, query, count)
                before: list[dict[str, Any]] = []
            else:
                at = sql.qid_idx(con, self.run.run_id, [around]).get(around)
                found = sql.queue_head(con, query, count, start=at) if at is not None else None
                if not found or int(found[0]["idx"]) != at:
                    return None  # not in this queue
                back = replace(query, descending=not query.descending)
                step = 1 if query.descending else -1
                earlier = sql.queue_head(con, back, HEAD_BEFORE, start=at + step)
                if earlier is None:
                    return None
                before = earlier[::-1]
        if found is None:
            return None
        self._query, self._cache, self._stale = query, {}, set()
        self._selected = None
        self._drawn = (spec, self._version)
        every = [*before, *found]
        rows = np.array([int(item["idx"]) for item in every], dtype=np.int64)
        self._keep(every)
        self._rows, self._in_queue = rows, np.sort(rows)
        # Fewer rows than asked for before the question: every one before it was read.
        from_top = around is None or len(before) < HEAD_BEFORE
        self.head_offset = 0 if from_top else None
        if from_top and len(found) < count:  # fewer than asked after it too: the whole queue
            self._selected = ((spec, self._version), rows)
        return rows

    def head_read(self, spec: QueueSpec) -> np.ndarray | None:
        """The rows :meth:`head` read for ``spec`` last, while nothing it depends on
        changed since (None otherwise)."""
        if self._drawn != (spec, self._version) or (
            self._selected is not None and self._selected[0] == self._drawn
        ):
            return None
        return self._rows

    def prepare(self, spec: QueueSpec) -> None:
        """Compute the whole queue ``spec`` describes, for :meth:`select` to take (a worker:
        nothing drawn changes meanwhile).

        Raises:
            InputError: when the spec's filter expression is invalid.
        """
        key = (spec, self._version)
        query = self.query(spec)
        with self._reading() as con:
            rows = sql.queue_order(con, query)
        self._prepared = (key, rows)

    def progress(self, rows: np.ndarray) -> tuple[int, int]:
        """(labelled, total) over ``rows`` (the queue last selected)."""
        missing = [qid for qid in self.labels if qid not in self._labelled_rows]
        if missing:
            found = self.find_rows(missing)
            self._labelled_rows.update(found)
            # Not questions of this run: remembered as such so they are not looked up again.
            self._labelled_rows.update(dict.fromkeys(set(missing) - set(found), -1))
        labelled = [row for qid in self.labels if (row := self._labelled_rows.get(qid, -1)) >= 0]
        in_queue = self._in_queue
        if not labelled or not len(rows) or len(in_queue) != len(rows):
            return 0, len(rows)
        wanted = np.array(labelled, dtype=np.int64)
        places = np.minimum(np.searchsorted(in_queue, wanted), len(in_queue) - 1)
        return int((in_queue[places] == wanted).sum()), len(rows)

    def find_rows(self, qids: list[str]) -> dict[str, int]:
        """qid -> row (its idx) of those of ``qids`` that are questions of the run."""
        with self._reading() as con:
            return sql.qid_idx(con, self.run.run_id, qids)

    def row_of(self, qid: str) -> int | None:
        """The row (idx) of ``qid`` (None: not a question of the run)."""
        for row, item in self._cache.items():
            if item.qid == qid:
                return row
        return self.find_rows([qid]).get(qid)

    # -- the rows drawn ---------------------------------------------------------------

    def cached(self, row: int) -> QueueRow | None:
        """Row ``row`` if it was read already (and is up to date)."""
        return self._cache.get(row) if row not in self._stale else None

    def read_rows(self, rows: np.ndarray) -> dict[int, QueueRow]:
        """The rows ``rows`` as the queue draws them (one query for those not cached)."""
        wanted = [
            int(row)
            for row in rows.tolist()
            if int(row) not in self._cache or int(row) in self._stale
        ]
        if wanted:
            if len(self._cache) + len(wanted) > CACHE_ROWS:
                self._cache, self._stale = {}, set()
            # The labels and suggestions as they are now (the queue's order stays as selected).
            query = replace(
                self._query or self.query(QueueSpec()),
                labels=dict(self.labels),
                with_suggestions=self.suggestions_ready,
            )
            with self._reading() as con:
                self._keep(sql.queue_page(con, query, np.array(wanted, dtype=np.int64)))
        return {int(row): self._cache[int(row)] for row in rows.tolist() if int(row) in self._cache}

    def _keep(self, items: list[dict[str, Any]]) -> None:
        """Cache the rows ``items`` just read (none stale) and what they show of the run's
        shape."""
        frame = self._axis_frame_if_shown()
        kept = []
        for item in items:
            row = int(item["idx"])
            kept.append(self._row(row, item, frame))
            self._cache[row] = kept[-1]
            self._stale.discard(row)
        self._widen_shape(kept)

    def window(self, rows: np.ndarray, first: int, height: int) -> dict[int, QueueRow]:
        """The queue's rows at positions ``first`` … ``first + height`` (``rows``: the
        queue), reading them with a margin of :data:`PAGE_MARGIN` screens when any is
        missing."""
        shown = rows[max(0, first) : max(0, first) + max(1, height)]
        if all(int(row) in self._cache and int(row) not in self._stale for row in shown.tolist()):
            return {int(row): self._cache[int(row)] for row in shown.tolist()}
        margin = PAGE_MARGIN * max(1, height)
        self.read_rows(rows[max(0, first - margin) : first + height + margin])
        return {
            int(row): self._cache[int(row)] for row in shown.tolist() if int(row) in self._cache
        }

    def qid_of(self, row: int) -> str:
        """The qid of row ``row``."""
        item = self._cache.get(row)
        if item is None:
            # Stepping through the queue (``j`` on the question screen): read the rows
            # around it too, so that the next steps need no read.
            rows = self._rows
            found = np.flatnonzero(rows == row)
            if found.size:
                at = int(found[0])
                self.read_rows(rows[max(0, at - STEP_MARGIN) : at + STEP_MARGIN])
            item = self._cache.get(row) or self.read_rows(np.array([row], np.int64)).get(row)
        return item.qid if item is not None else ""

    def _row(self, row: int, item: dict[str, Any], frame: AxisFrame | None) -> QueueRow:
        rotations = int(item.get("n_rotations") or 0)
        em = _float(item["em"])
        right = int(np.rint(0.0 if np.isnan(em) else em * rotations))
        place = frame.at(row) if frame is not None else None
        axes = (
            {key: str(labels[place]) for key, labels in frame.labels.items()}
            if frame is not None and place is not None
            else {}
        )
        return QueueRow(
            row=row,
            qid=str(item["qid"]),
            task=str(item["task"]),
            x=str(item["x"]),
            y=str(item["y"]),
            mode=str(item["mode"]),
            question=str(item["question"]),
            correct=_float(item["correct"]),
            score=_float(item["score"]),
            suggested=str(item["suggested"]),
            label=str(item["label"]),
            other_correct=_float(item["other_correct"]),
            rotations=f"{right}/{rotations}" if rotations > 1 else "",
            axes=axes,
        )

    # -- benchmark axes ---------------------------------------------------------------

    def axis_columns(self) -> list[str]:
        """The keys of the queue's axis columns not read from the x or y coordinate."""
        keys = []
        for axis in self.axes.queue_axes:
            if not any(kind == "column" and name in ("x", "y") for kind, name in axis.sources()):
                keys.append(axis.key)
        return keys

    def _axis_frame_if_shown(self) -> AxisFrame | None:
        return self.axis_frame() if self.axis_columns() else None

    def axis_frame(self) -> AxisFrame:
        """The axis values of every question (read on first use, then kept)."""
        with self._frame_lock:
            if self._axis_frame is None:
                from memscope.usecases.runs.axes import axis_columns

                with self._reading() as con:
                    table = read_axis_sources(con, self.run.run_id)
                labels, numbers, _levels = axis_columns(table, self.axes)
                idx = np.asarray(table.column("idx").to_numpy(), dtype=np.int64)
                self._axis_frame = AxisFrame(idx, labels, numbers)
            return self._axis_frame

    def _axis_mask(self, key: str, value: str) -> np.ndarray:
        from memscope.usecases.runs.axes import level_mask

        frame = self.axis_frame()
        axis = self.axes.require(key)
        # ``key`` is the filter word (an alias such as ``abs``); the frame is by axis key.
        return level_mask(axis, frame.labels[axis.key], frame.numbers.get(axis.key), value)

    def _reading(self, con: Any = None) -> AbstractContextManager[Any]:
        if con is not None:
            return nullcontext(con)
        return _LockedRead(self._lock, self.store, self.make_room)


def read_axis_sources(con: Any, run_id: str) -> Any:
    """The question table's columns a benchmark's axes are read from (no answers)."""
    from memscope.store import queries

    return queries.question_table(con, run_id, detail=False)


ROOM_WAIT_S = 0.02
"""How long a read waits for the store lock before asking its holder to give it back."""


class _LockedRead:
    """``lock`` held, then a read connection to ``store`` (released in reverse); when the
    lock is not free at once, ``make_room`` asks its holder to give it back."""

    def __init__(
        self,
        lock: AbstractContextManager[Any],
        store: Store,
        make_room: Callable[[], None] | None = None,
    ) -> None:
        self._lock, self._store, self._make_room = lock, store, make_room
        self._read: AbstractContextManager[Any] | None = None

    def __enter__(self) -> Any:
        # A lock that serves readers side by side (the session's) is taken shared.
        acquire = getattr(self._lock, "acquire_shared", None)
        if acquire is not None:
            if not acquire(timeout=ROOM_WAIT_S):
                if self._make_room is not None:
                    self._make_room()
                acquire()
        else:
            self._lock.__enter__()
        try:
            self._read = self._store.read()
            return self._read.__enter__()
        except BaseException:
            self._release()
            raise

    def __exit__(self, *exc: Any) -> None:
        try:
            if self._read is not None:
                self._read.__exit__(*exc)
        finally:
            self._release()

    def _release(self) -> None:
        release = getattr(self._lock, "release_shared", None)
        if release is not None:
            release()
        else:
            self._lock.__exit__(None, None, None)
