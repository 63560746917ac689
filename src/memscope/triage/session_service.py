"""The triage app's one service: everything the screens show and change, in plain Python.

A :class:`TriageSession` owns the store access (one lock for every worker), the writer
lease, the loaded run, the queue and the cursor in it, the view parameters (alpha, lambda,
K, caption or native media), the run-level re-ranking cache, the label book and the
remembered position. Screens read its typed view records (:class:`StatusView`,
:class:`LabelBarView`) and call its methods; methods that cannot do what was asked return
a :class:`Notice` saying why. Nothing here imports Textual: the app's screens, workers and
messages sit on top (``memscope.tui``), and every behaviour here is unit-tested without a
terminal (tests/unit/test_session_service.py).

Threads: ``load*``/``read*``/``write*`` methods are called from the app's thread workers
and take :attr:`TriageSession.store_lock` themselves; ``adopt*`` and everything else runs
on the app's thread only.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from memscope.errors import MemscopeError, NotFoundError
from memscope.taxonomy import FailureCode, Taxonomy
from memscope.triage.label_book import LabelBook
from memscope.triage.loaded_run import (
    DirRuns,
    LoadedRun,
    mark_opened,
    open_session,
    save_position,
)
from memscope.triage.notice import Notice
from memscope.triage.question_cache import QuestionCache
from memscope.usecases.benchmarks import spec_of
from memscope.usecases.labels.events import CurrentLabel
from memscope.usecases.labels.queue import QueueSpec
from memscope.usecases.rerun.defaults import DEFAULT_LAMBDA
from memscope.usecases.runs import session_io
from memscope.usecases.runs.question_read import read_suggestion, read_suggestions
from memscope.usecases.runs.selection import SelectOptions, select_runs
from memscope.usecases.runs.session_io import EngineStep, QuestionContext
from memscope.usecases.runs.store_access import ReadOptions, Store, WriterLease
from memscope.usecases.suggest.changes import ensure_suggestions, stored_codes

if TYPE_CHECKING:
    # Only the question, probe and matrix screens' methods use these: imported there, so
    # the app's start does not pay for them.
    from memscope.triage.benchmark_views import ProbeView
    from memscope.triage.question_view import LoadedQuestion
    from memscope.triage.round_index import RoundIndex
    from memscope.usecases.runs.loading import RunData
    from memscope.usecases.runs.run_info import RunInfo
    from memscope.usecases.suggest.rules import Suggestion

ALPHA_STEP = 0.1
LAMBDA_STEP = 0.01
MAX_K = 100
PREFETCH_AHEAD = 24
"""Questions of the queue read ahead of the cursor in the background (``j`` shows them at
once). A read of 24 costs about what a read of 8 does (opening the store and scanning
dominate), so one background read serves many keys."""
PREFETCH_SOON = 4
"""The prefetch reads again once one of this many next questions is not cached."""
RUN_RESAMPLES = 200
"""Bootstrap resamples for the live run-level numbers (the CLI's rerun uses 10,000)."""

Progress = Callable[[str], None]


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


@dataclass
class SearchProgress:
    """The memory-engine search running now, if any, and the step it reported last."""

    serial: int = 0
    """The id of the latest search started (older searches' reports are stale)."""
    step: EngineStep | None = None
    """What the running search does now (None: no search runs)."""

    def begin(self) -> int:
        """A new search starts; its id."""
        self.serial += 1
        self.step = EngineStep("starting the memory engine", time.monotonic())
        return self.serial

    def progressed(self, search_id: int, step: EngineStep) -> bool:
        """A search reached ``step``; False when it is stale (a newer one runs)."""
        if search_id != self.serial:
            return False
        self.step = step
        return True

    def end(self, search_id: int) -> bool:
        """A search ended; False when it is stale."""
        if search_id != self.serial:
            return False
        self.step = None
        return True

    def line(self) -> str | None:
        """``loading all-MiniLM-L6-v2 … 4 s`` while a search runs, else None."""
        return self.step.line() if self.step is not None else None


FIRST_SCREEN = 60
"""Rows the loading worker reads for the queue's first screen (a tall terminal's worth)."""
HEAD_ROWS = 120
"""Rows of a queue read before the whole of it is known (two tall screens: scrolling
within them needs no read while the rest is counted)."""

SEARCH_HITS = 10
"""How many rounds a memory-bank search lists."""


@dataclass(frozen=True)
class FoundRound:
    """One memory-bank search hit: the round, its score and the text it shows."""

    round_id: str
    score: float
    text: str


@dataclass(frozen=True)
class MemorySearchResult:
    """What a memory-bank search found (``error``: why it found nothing)."""

    title: str
    """What was searched for: ``search: brass compass`` or ``rounds like D3:4``."""
    hits: list[FoundRound]
    error: str | None = None


@dataclass(frozen=True)
class StartRequest:
    """What ``memscope open`` asked for: a question to show, a queue kind, a matrix cell."""

    question: str | None = None
    queue: str | None = None
    cell: str | None = None
    sample_for: str = "failures"
    """Which sample ``--queue sample`` serves: ``failures`` or ``verdicts``."""


@dataclass
class ViewParams:
    """The re-ranking parameters of the question view."""

    alpha: float = 1.0
    lam: float = DEFAULT_LAMBDA
    k: int = 10
    scope: str = "carry"
    """``carry``: the parameters carry across questions; ``question``: each question opens
    with the run's own order (alpha 1, the run's lambda and K). Remembered with the session."""

    def reset(self, defaults: ViewParams) -> bool:
        """Back to ``defaults``' alpha, lambda and K; False when already there."""
        changed = (self.alpha, self.lam, self.k) != (defaults.alpha, defaults.lam, defaults.k)
        self.alpha, self.lam, self.k = defaults.alpha, defaults.lam, defaults.k
        return changed

    def as_json(self) -> RerankParams:
        """``{"alpha", "lambda", "k"}`` (labels record it, the store remembers it)."""
        return {"alpha": round(self.alpha, 3), "lambda": round(self.lam, 4), "k": self.k}


@dataclass(frozen=True)
class StatusView:
    """The status bar of the queue, question and matrix screens."""

    run_id: str
    other_run_id: str | None
    queue: str
    position: int
    total: int
    labelled: int
    annotator: str
    read_only: bool
    qid: str | None
    in_queue: bool
    pending: int
    sample_progress: str | None
    """``sample: 37 of 60 planned · stratum X4Y3 5/8`` on a sampled queue, else None."""
    counted: bool = True
    """False while the queue's length is still being counted (``total`` is its head's)."""
    placed: bool = True
    """False while the cursor's place in the whole queue is not known yet (a queue opened
    around a remembered question, still being counted)."""
    engine_line: str | None = None
    """A running memory-engine search's step (``loading all-MiniLM-L6-v2 … 4 s``), else None."""


@dataclass(frozen=True)
class LabelBarView:
    """The label bar of the question screen: the suggestion, the codes, the saved label."""

    qid: str
    suggestion: Suggestion | None
    """The rule suggestion for the question (None: none), meaningful once ``suggestions_ready``."""
    suggestions_ready: bool
    codes: list[FailureCode]
    """The taxonomy's codes, in order."""
    current: set[str]
    """The codes of the label as saved."""
    primary: str | None
    pending: set[str] | None
    """Codes asked for but not saved yet (None: nothing pending, or not known yet)."""
    state: str
    """``saving``, ``waiting``, ``failed`` or ``saved``."""
    label: CurrentLabel | None
    read_only_reason: str | None
    verdict: str | None = None
    """The person's verdict on the answer as saved (correct, wrong, unsure; None: none)."""
    pending_verdict: str | None = None
    """The verdict asked for but not saved yet (``none``: its removal; None: nothing pending)."""
    failing: bool | None = None
    """Whether the question's answer is graded wrong (None: not known yet)."""


@dataclass(frozen=True)
class Adopted:
    """What opening a loaded run means for the screens."""

    notices: list[Notice]
    open_question: bool
    """Show the question screen (a question was asked for, or the user left off there)."""


@dataclass(frozen=True)
class RunRerank:
    """The run-level Y3 numbers for one parameter set (``result`` None: ``error`` says why)."""

    params: RerankParams
    result: dict[str, Any] | None
    error: str | None = None


RerankKey = tuple[str, str]

RerankParams = dict[str, float]
"""``{"alpha", "lambda", "k"}``: what the run-level numbers are computed for."""

Position = tuple[LoadedRun, str | None, QueueSpec, dict[str, float | str]]
"""What :meth:`TriageSession.take_position` hands the writer: the run, the question, the
queue spec and the view parameters with the screen."""


@dataclass(frozen=True)
class RerankPlan:
    """What the run-level numbers need now: ``none`` (not shown for this run),
    ``cached`` (``rerank`` holds them) or ``compute`` (start a worker for ``key``; it reads
    the columns it needs itself). ``waiting`` is kept for callers that still show it."""

    action: Literal["none", "waiting", "cached", "compute"]
    key: RerankKey | None = None
    rerank: RunRerank | None = None


@dataclass
class TriageSession:
    """The app's state and the operations on it (see the module docstring)."""

    store: Store
    options: ReadOptions
    annotator: str
    taxonomy: Taxonomy | None = None
    start: StartRequest = field(default_factory=StartRequest)
    run: LoadedRun | None = None
    """The loaded run (None until the first load finished)."""
    spec: QueueSpec = field(default_factory=QueueSpec)
    rows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """The queue: the run's questions (their ``idx``) in queue order; the rows themselves
    stay in the store (``run.queue`` reads those drawn)."""
    counted: bool = True
    """Whether ``rows`` is the whole queue (False while only its head is read: the worker
    that completes the run's opening counts the rest, :meth:`count_queue`)."""
    position: int = 0
    qid: str | None = None
    """The question on screen (it may have left the queue after a filter change)."""
    view: ViewParams = field(default_factory=ViewParams)
    caption_mode: bool = False
    runs_scope: tuple[str, list[str]] | None = None
    """(directory, run ids) when the path opened holds several runs: the runs screen lists
    exactly those."""
    matrix_return: QueueSpec | None = None
    """The queue spec a matrix cell's queue replaced (esc goes back to it and the matrix)."""
    last_export: str | None = None
    """Where the labels were last exported this session (None: not yet)."""
    exported: dict[str, str] = field(default_factory=dict)
    """run id -> where this session exported that run's labels last (the quit summary)."""
    read_only_reason: str | None = None
    store_lock: StoreLock = field(default_factory=lambda: StoreLock())
    """Held by every worker while it uses the store: DuckDB refuses a read-only and a
    read-write connection to one file open at once in the same process. Re-entrant: the
    queue's page reads and the run's reads on first access take it inside a worker's hold."""
    labels: LabelBook = field(init=False)
    search: SearchProgress = field(default_factory=SearchProgress)
    lease: WriterLease = field(init=False)
    questions: QuestionCache = field(default_factory=QuestionCache, repr=False)
    """The questions shown or prefetched lately (bounded; ``read_question``)."""
    _question_context: tuple[LoadedRun, QuestionContext] | None = field(default=None, repr=False)
    _reranks: dict[RerankKey, RunRerank] = field(default_factory=dict, repr=False)
    _reranks_running: set[RerankKey] = field(default_factory=set, repr=False)
    _position_dirty: bool = field(default=False, repr=False)

    def __post_init__(self) -> None:
        self.lease = WriterLease(self.store.path, self.annotator)
        self.labels = LabelBook(self)

    # -- store access and the lease ------------------------------------------------------

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

    # -- loading (worker threads) --------------------------------------------------------

    def load(self, refs: list[str], progress: Progress) -> LoadedRun | DirRuns:
        """Ingest what is new and load ``refs`` (one connection for the whole load).

        Returns the runs found when ``refs`` is one directory holding several runs.

        Raises:
            MemscopeError: the run cannot be opened.
        """
        with self.store_lock, self.store.reading():
            # One folder opens as every run below it (a choice when there are several);
            # several references are one run each.
            selection = select_runs(
                self.store,
                refs,
                SelectOptions(read=self.options, folders=len(refs) == 1, progress=progress),
            )
            if selection.folder is not None:
                if not selection.run_ids and selection.left_out:
                    raise selection.left_out[0].error
                if len(selection.run_ids) != 1:
                    notes = [f"{f.path}: {f.error.message}" for f in selection.left_out]
                    return DirRuns(selection.folder, selection.run_ids, notes)
            run = open_session(
                self.store,
                selection.run_ids,
                self.annotator,
                progress,
                with_suggestions=False,
                with_evidence=False,
                sample_for=self.start.sample_for,
                lock=self.store_lock,
            )
            run.queue.make_room = self.labels.queue.give_back_store
            self._prepare_queue(run)
            return run

    def _prepare_queue(self, run: LoadedRun) -> None:
        """Read what :meth:`adopt` will show first (in the loading worker: the app thread
        then finds it ready): the queue's head, or its rows around the question the cursor
        starts on (:meth:`count_queue` completes it once it is drawn); else (a queue
        without a cheap head) the whole queue and the screen around that question."""
        spec = self._start_spec(run, first_open=self.run is None)
        saved = self._resumed_qid(run, spec)
        question = self.start.question if self.run is None else None
        try:
            if run.queue.head(spec, HEAD_ROWS, around=question or saved) is not None:
                return
            rows = run.queue.select(spec)
        except MemscopeError:
            return  # adopt falls back to the default queue and says nothing more
        row = run.queue.find_rows([saved]).get(saved) if saved else None
        found = np.flatnonzero(rows == row) if row is not None else np.zeros(0)
        position = int(found[0]) if found.size else 0
        run.queue.window(rows, max(0, position - FIRST_SCREEN // 2), FIRST_SCREEN)

    def prepare_count(self, run: LoadedRun) -> QueueSpec | None:
        """While the queue of ``run`` on screen is only its head: compute the whole of it
        and the run's shape for :meth:`count_queue` (worker thread); the spec counted
        (None: nothing to count)."""
        spec = self.spec
        if run is not self.run or self.counted:
            return None
        try:
            run.queue.prepare(spec)
            run.queue.read_shape()
        except MemscopeError:
            pass  # count_queue computes it on the app thread then
        return spec

    def count_queue(self, run: LoadedRun, spec: QueueSpec) -> bool:
        """Put the whole queue ``spec`` of ``run`` in place of its head, the cursor kept on
        its question (app thread); False when another run or queue is on screen by now."""
        if self.run is not run or self.counted or spec != self.spec:
            return False
        try:
            self.run.queue.select(spec)  # the prepared one, or computed now
            self.apply(spec, keep_qid=self.qid)
        except MemscopeError:
            return False
        return True

    def find_recompute_hint(self, run: LoadedRun) -> None:
        """Find out whether ``memscope recompute`` can fill ``run``'s missing scores here, for
        the questions read and to be read (worker thread, last: it imports the memory
        engine's model look-up)."""
        try:
            with self.store_lock:
                hint = self._context_of(run).recompute_hint
                if not hint.known:
                    session_io.find_recompute_hint(self.store, run.run_id, hint)
        except MemscopeError:
            pass  # the candidates panel says nothing of recompute

    def mark_opened(self, run: LoadedRun) -> None:
        """Make ``run`` the store's default run (a convenience: errors are ignored)."""
        if self.read_only_reason is not None:
            return
        try:
            with self.store_lock:
                mark_opened(self.store, run.run_id)
        except MemscopeError:
            pass  # only a convenience for the CLI's default run

    def ensure_suggestions(self, run: LoadedRun, notes: list[str]) -> list[str]:
        """Make sure the run's failure suggestions are computed and stored (worker thread;
        none are kept: a question's comes with its read); their distinct primary codes come
        back, problems go to ``notes``."""
        with self.store_lock:
            codes = ensure_suggestions(self.store, run.info, notes)
        run.suggestions_stored = True  # question reads from now on read theirs
        self._complete_suggestions(run)
        return codes

    def _complete_suggestions(self, run: LoadedRun) -> None:
        """Read the suggestions of the cached questions read before the run's were stored
        (the cursor's and the next ones, from ``warm_up``) in one short read, here in the
        worker, so that the label bar never reads one on the app's thread."""
        try:
            qids = [q for q in [self.current_qid, *self.upcoming_qids()] if q is not None]
        except MemscopeError:
            return
        stale: dict[str, LoadedQuestion] = {}
        for qid in qids:
            question = self.questions.get((run.opened, qid))
            if question is not None and not question.read.suggestion_read:
                stale[qid] = question
        if not stale:
            return
        try:
            with self.store_lock:
                found = read_suggestions(self.store, run.run_id, list(stale))
        except MemscopeError:
            return  # the label bar reads each one when it shows it
        for qid, question in stale.items():
            read = replace(question.read, suggestion=found.get(qid), suggestion_read=True)
            self.questions.put((run.opened, qid), replace(question, read=read))

    def suggestion(self, qid: str) -> Suggestion | None:
        """The failure suggestion of ``qid`` of the run on screen (None: none, or not ready
        yet): as read with the question, or read now (one short read) when the question
        was read before the run's suggestions were ready."""
        run = self._loaded()
        if not run.suggestions_ready:
            return None
        key = (run.opened, qid)
        question = self.questions.get(key)
        if question is not None and question.read.suggestion_read:
            return question.read.suggestion
        with self.store_lock:
            found = read_suggestion(self.store, run.run_id, qid)
        if question is not None:
            read = replace(question.read, suggestion=found, suggestion_read=True)
            self.questions.put(key, replace(question, read=read))
        return found

    # -- one question at a time (any thread) ---------------------------------------------

    def _context_of(self, run: LoadedRun) -> QuestionContext:
        """What every question read of ``run`` shares, read at its first question (the
        store lock held by the caller); a newly loaded run starts a new cache."""
        held = self._question_context
        if held is not None and held[0] is run:
            return held[1]
        context = session_io.read_question_context(self.store, run.run_id, run.other_run_id)
        self._question_context = (run, context)
        self.questions.clear()
        return context

    def read_question(self, qid: str) -> LoadedQuestion:
        """Question ``qid`` of the run on screen, from the cache or read now (one short
        read of its rows: the whole run is never needed).

        Raises:
            MemscopeError: it cannot be read (NotFoundError: the run has no such question).
        """
        run = self._loaded()
        found = self.questions.get((run.opened, qid))
        if found is not None:
            return found
        ready = run.suggestions_stored  # before the read: they are stored by then
        with self.store_lock:
            context = self._context_of(run)
            read = session_io.read_questions(
                self.store, context.run, [qid], with_suggestions=ready
            ).get(qid)
        if read is None:
            raise NotFoundError(
                f"run {run.run_id!r} has no question {qid!r}", where=str(self.store.path)
            )
        from memscope.triage.question_view import load_question

        question = load_question(read, run.other_run_id, context.recompute_hint)
        self.questions.put((run.opened, qid), question)
        return question

    def prefetch_questions(self, qids: list[str], soon: int = PREFETCH_SOON) -> int:
        """Read those of ``qids`` not cached yet, in one connection (worker thread), once
        one of the first ``soon`` is missing (so a store connection serves several
        questions, not one per key); how many were read. Errors are left to the key that
        shows the question."""
        run = self.run
        if run is None or not self.prefetch_wanted(qids, soon):
            return 0
        keys = [(run.opened, q) for q in qids]
        self.questions.touch(keys)  # what lies ahead outlives what was visited
        wanted = [qid for _run, qid in self.questions.missing(keys)]
        ready = run.suggestions_stored  # before the read: they are stored by then
        try:
            with self.store_lock:
                context = self._context_of(run)
                reads = session_io.read_questions(
                    self.store, context.run, wanted, with_suggestions=ready
                )
        except MemscopeError:
            return 0
        from memscope.triage.question_view import load_question

        for qid, read in reads.items():
            question = load_question(read, run.other_run_id, context.recompute_hint)
            self.questions.put((run.opened, qid), question)
        return len(reads)

    def warm_up(self) -> int:
        """Read the question at the cursor and the next few (worker thread, once the queue
        is drawn), so that the first ``enter`` finds them cached rather than reading on the
        app's thread (and paying pyarrow's first conversions there); how many were read."""
        try:
            current = self.current_qid
            upcoming = self.upcoming_qids() if current is not None else []
        except MemscopeError:
            return 0  # the key that shows the question reports it
        if current is None:
            return 0
        return self.prefetch_questions([current, *upcoming], soon=1)

    def prefetch_wanted(self, qids: list[str], soon: int = PREFETCH_SOON) -> bool:
        """Whether one of the first ``soon`` of ``qids`` is not cached (then a prefetch
        reads every missing one; a key that finds them cached starts no worker)."""
        run = self.run
        if run is None:
            return False
        return bool(self.questions.missing([(run.opened, qid) for qid in qids[:soon]]))

    def upcoming_qids(self, ahead: int = PREFETCH_AHEAD, behind: int = 1) -> list[str]:
        """The qids of the queue just after the cursor (then just before it): what ``j``
        and ``k`` show next."""
        run = self.run
        if run is None or not len(self.rows):
            return []
        # From a question that left the queue, ``j`` goes to the one at the cursor (step).
        first = self.position + (1 if self.qid == self.current_qid else 0)
        positions = [first + step for step in range(ahead)]
        positions += [self.position - step for step in range(1, behind + 1)]
        rows = [int(self.rows[p]) for p in positions if 0 <= p < len(self.rows)]
        found = run.queue.read_rows(np.array(rows, dtype=np.int64))
        return [found[row].qid for row in rows if row in found]

    def read_rounds(self, round_ids: list[str]) -> RoundIndex:
        """Some rounds of the run's dataset (a search's hits), read now (worker thread)."""
        run = self._loaded()
        with self.store_lock:
            context = self._context_of(run)
            table = session_io.read_rounds_by_id(self.store, context.run.run.dataset_id, round_ids)
        from memscope.triage.round_index import RoundIndex

        return RoundIndex(table, n=context.run.n_rounds)

    def read_probe(self, run_id: str, qid: str) -> ProbeView:
        """A DMV-Bench probe's target and recall steps.

        Raises:
            MemscopeError: the probe cannot be read.
        """
        from memscope.triage.benchmark_views import load_probe

        with self.store_lock:
            return load_probe(self.store, run_id, qid)

    def search_memory(
        self, query: str | None, round_id: str | None, on_step: Callable[[EngineStep], None]
    ) -> MemorySearchResult:
        """Text search over the memory bank (``query``), or the rounds whose images look
        like ``round_id``'s; never raises: a failure is the result's ``error``.

        The store lock is taken only while the search reads or writes the store, never
        across the model load or the search, so labels are saved meanwhile."""
        from memscope.usecases.runs.session_io import search_memory  # no engine library

        title = f"rounds like {round_id}" if round_id else f"search: {query}"
        run = self.run
        dataset_id = run.info.dataset_id if run is not None else ""
        try:
            hits = search_memory(
                self.store,
                self.store_lock,
                dataset_id,
                query=None if round_id else (query or ""),
                round_id=round_id,
                k=SEARCH_HITS,
                on_step=on_step,
            )
        except MemscopeError as error:
            return MemorySearchResult(title, [], error.message)
        except ImportError as error:
            return MemorySearchResult(
                title, [], f"the memory engine needs a library that is missing: {error}"
            )
        except Exception as error:  # a model library failing its own way: say so, end the line
            return MemorySearchResult(
                title, [], f"the search failed: {type(error).__name__}: {error}"
            )
        try:
            rounds = self.read_rounds([hit.round_id for hit in hits]) if hits else None
        except MemscopeError:
            rounds = None  # the hits show by id
        found = []
        for hit in hits:
            detail = rounds.get(hit.round_id) if rounds is not None else None
            text = detail.user_text if detail is not None else hit.item_id
            found.append(FoundRound(hit.round_id, hit.score, text))
        return MemorySearchResult(title, found)

    # -- adopting what the workers loaded (app thread) -----------------------------------

    @property
    def is_open(self) -> bool:
        """Whether a run is loaded."""
        return self.run is not None

    def adopt(self, run: LoadedRun, question: str | None = None) -> Adopted:
        """Make ``run`` the one on screen: its queue, the remembered position and view."""
        saved = run.saved
        first_open = self.run is None
        spec = self._start_spec(run, first_open=first_open)
        # Re-ranking starts from the run's own order each time (alpha 1): a remembered alpha
        # would silently reorder the candidates the next day.
        scope = (saved.view or {}).get("rerank_scope") if saved is not None else None
        self.run, self.qid, self.position = run, None, 0
        self.view = ViewParams(k=run.k, scope=scope if scope in ("carry", "question") else "carry")
        resumed = self._resumed_qid(run, spec)
        try:
            self.apply(spec, keep_qid=resumed)
        except MemscopeError:
            self.apply(QueueSpec())
        notices = [Notice(note, severity="warning") for note in run.notes]
        if first_open and self.spec.kind == "sample" and run.sample is not None:
            notices.append(Notice(run.sample.describe()))
        question = question or (self.start.question if first_open else None)
        if question and not self.jump_to_qid(question):
            notices.append(
                Notice(
                    f"No question {question!r} in run {run.run_id}; showing the queue.",
                    severity="warning",
                )
            )
            question = None
        resume = (
            resumed is not None
            and saved is not None
            and (saved.view or {}).get("screen") == "question"
        )
        open_question = bool(question) or (first_open and resume and self.qid is not None)
        return Adopted(notices, open_question)

    def _resumed_qid(self, run: LoadedRun, spec: QueueSpec) -> str | None:
        """The question the cursor resumes on: the one left last, when the queue opening is
        the one it was left in. A queue of another kind (``--queue sample`` after the
        failing queue) starts at its own first item: a sample's first planned question."""
        saved = run.saved
        if saved is None or saved.qid is None:
            return None
        left_in = QueueSpec.from_json(saved.queue).kind
        return saved.qid if left_in == spec.kind else None

    def _start_spec(self, run: LoadedRun, *, first_open: bool) -> QueueSpec:
        """The queue ``run`` opens with: the one remembered, or what ``memscope open``
        asked for on the first run opened."""
        saved = run.saved
        spec = QueueSpec.from_json(saved.queue if saved else None)
        if first_open and (self.start.queue or self.start.cell):
            spec = spec.with_changes(
                kind=self.start.queue or spec.kind, cell=self.start.cell, text=""
            )
        return spec

    def adopt_suggestions(self, run_id: str, codes: list[str]) -> bool:
        """The run's suggestions are stored (``codes``: their distinct primary codes);
        False when another run is on screen now."""
        if self.run is None or self.run.run_id != run_id:
            return False
        self.run.set_suggestions_ready(codes)
        return True

    def shows(self, run_ids: list[str]) -> bool:
        """Whether exactly ``run_ids`` (a run, or a run and the one compared) are on screen."""
        if self.run is None:
            return False
        return [self.run.run_id, self.run.other_run_id][: len(run_ids)] == run_ids

    # -- the queue and the cursor --------------------------------------------------------

    def _loaded(self) -> LoadedRun:
        if self.run is None:
            raise RuntimeError("no run is loaded")  # a bug: callers check is_open
        return self.run

    def apply(self, spec: QueueSpec, keep_qid: str | None = None) -> None:
        """Switch to the queue ``spec`` (raises InputError when its filter is invalid) and
        put the cursor on ``keep_qid`` when it is in the new queue, else at the top. The
        queue's head stands for it where the loading worker read only that."""
        queue = self._loaded().queue
        head = queue.head_read(spec)
        rows = head if head is not None else queue.select(spec)
        self.spec, self.rows, self.counted = spec, rows, head is None
        self.position = 0
        target = keep_qid or self.qid
        if target is not None:
            row = queue.row_of(target)
            found = np.flatnonzero(rows == row) if row is not None else np.zeros(0)
            if found.size:
                self.position = int(found[0])
        self.qid = self.current_qid

    def change_queue(self, **changes: Any) -> Notice | None:
        """Change the queue spec (filter, kind, sort, cell); a Notice when the filter is
        invalid (the queue is left as it was)."""
        if self.run is None:
            return Notice("No run is open yet.")
        try:
            self.apply(self.spec.with_changes(**changes))
        except MemscopeError as error:
            return Notice(error.message, title="Filter", severity="error")
        return None

    def open_cell_queue(self, from_matrix: bool, **changes: Any) -> Notice | None:
        """The queue of one matrix cell (from the matrix: all its questions, failing first,
        and :meth:`back_to_matrix` comes back to the queue it replaced)."""
        self.matrix_return = self.spec if from_matrix and self.run is not None else None
        extra = {"kind": "all", "sort": "correct", "descending": False} if from_matrix else {}
        return self.change_queue(**changes, **extra)

    def back_to_matrix(self) -> bool:
        """Restore the queue a matrix cell's queue replaced; False when there is none."""
        spec = self.matrix_return
        if spec is None or self.run is None:
            return False
        self.matrix_return = None
        self.apply(spec)
        return True

    @property
    def current_row(self) -> int | None:
        """The run's row at the cursor (None for an empty queue)."""
        return int(self.rows[self.position]) if len(self.rows) else None

    @property
    def current_qid(self) -> str | None:
        """The qid at the cursor."""
        row = self.current_row
        return self._loaded().queue.qid_of(row) if row is not None else None

    def go_to(self, position: int) -> bool:
        """Put the cursor at ``position`` of the queue; False when out of range."""
        if not 0 <= position < len(self.rows):
            return False
        self.position = position
        self.qid = self.current_qid
        return True

    def move(self, step: int) -> bool:
        """Next (+1) / previous (-1) question; False at either end."""
        return self.go_to(self.position + step)

    def step(self, step: int) -> Notice | None:
        """Next / previous question of the queue (from a question that left the queue: the
        nearest one in it); a Notice at either end."""
        if self.run is None:
            return Notice("No run is open yet.")
        if self.qid != self.current_qid:
            moved = self.go_to(self.position if step > 0 else self.position - 1) or self.go_to(
                self.position
            )
        else:
            moved = self.move(step)
        if moved:
            return None
        return Notice("End of the queue." if step > 0 else "Start of the queue.")

    def jump_to_qid(self, qid: str) -> bool:
        """Put the cursor on ``qid`` if it is in the queue; else show it outside the queue."""
        row = self._loaded().queue.row_of(qid)
        if row is None:
            return False
        found = np.flatnonzero(self.rows == row)
        if found.size:
            self.position = int(found[0])
        self.qid = qid
        return True

    @property
    def progress(self) -> tuple[int, int]:
        """(labelled, total) in the queue."""
        return self._loaded().queue.progress(self.rows)

    # -- view parameters -----------------------------------------------------------------

    def default_view(self) -> ViewParams:
        """The re-ranking parameters the run starts with (alpha 1, the default lambda, its K)."""
        return ViewParams(k=self.run.k if self.run is not None else 10)

    def nudge_alpha(self, direction: int) -> bool:
        """alpha ± 0.1 within [0, 1]; False when already at the bound."""
        alpha = round(min(1.0, max(0.0, self.view.alpha + direction * ALPHA_STEP)), 2)
        changed = alpha != self.view.alpha
        self.view.alpha = alpha
        return changed

    def nudge_lambda(self, direction: int) -> bool:
        """lambda ± 0.01, not below 0."""
        lam = round(max(0.0, self.view.lam + direction * LAMBDA_STEP), 4)
        changed = lam != self.view.lam
        self.view.lam = lam
        return changed

    def nudge_k(self, direction: int) -> bool:
        """K ± 1 within [1, MAX_K]."""
        k = min(MAX_K, max(1, self.view.k + direction))
        changed = k != self.view.k
        self.view.k = k
        return changed

    # -- view records --------------------------------------------------------------------

    def status_view(self, *, with_question: bool) -> StatusView | None:
        """The status bar's record (None before a run is loaded)."""
        run = self.run
        if run is None:
            return None
        labelled, total = self.progress
        sample_line = None
        queue = self.spec.describe()
        if self.spec.kind == "sample" and run.sample is not None:
            from memscope.usecases.labels.sample import sample_progress

            if run.sample.purpose == "verdicts":
                # Say which sample this is where the status bar starts, not only at its end
                # (cut on a narrow terminal): the queue of answers to judge.
                queue = "verdict " + queue
                done_qids = set(run.verdicts)
            else:
                done_qids = set(run.queue.labels)
            sample_line = sample_progress(run.sample, done_qids, self.qid)
        return StatusView(
            run_id=run.run_id,
            other_run_id=run.other_run_id,
            queue=queue,
            position=self.position,
            total=total,
            labelled=labelled,
            annotator=self.annotator,
            read_only=bool(self.read_only_reason),
            qid=self.qid if with_question else None,
            in_queue=self.current_qid == self.qid,
            pending=self.labels.pending_total(),
            sample_progress=sample_line,
            engine_line=self.search.line(),
            counted=self.counted,
            placed=self.counted or run.queue.head_offset == 0,
        )

    def label_bar_view(self, qid: str) -> LabelBarView:
        """The label bar's record for ``qid``."""
        run = self._loaded()
        label = self.labels.committed(qid)
        return LabelBarView(
            qid=qid,
            suggestion=self.suggestion(qid),
            suggestions_ready=run.suggestions_ready,
            codes=list(self.taxonomy.codes) if self.taxonomy is not None else [],
            current=set(label.codes) if label is not None else set(),
            primary=label.primary if label is not None else None,
            pending=self.labels.pending_codes(qid),
            state=self.labels.state(qid),
            label=label,
            read_only_reason=self.read_only_reason,
            verdict=self.labels.verdict(qid),
            pending_verdict=self.labels.pending_verdict(qid),
            failing=self._failing(run, qid),
        )

    def _failing(self, run: LoadedRun, qid: str) -> bool | None:
        """Whether ``qid``'s answer is graded wrong, from the question as read (None: not read)."""
        question = self.questions.get((run.opened, qid))
        if question is None:
            return None
        return not question.view.detail.correct >= 1.0

    # -- the remembered position ---------------------------------------------------------

    def position_moved(self) -> bool:
        """Note that the position changed; True when it should be written (after a pause)."""
        if self.read_only_reason or self.run is None:
            return False
        self._position_dirty = True
        return True

    def take_position(self, on_question: bool) -> Position | None:
        """What to write for the position when it changed since the last write, else None."""
        if not self._position_dirty or self.run is None or self.read_only_reason:
            return None
        self._position_dirty = False
        view: dict[str, float | str] = {
            **self.view.as_json(),
            "rerank_scope": self.view.scope,
            "screen": "question" if on_question else "queue",
        }
        return self.run, self.qid, self.spec, view

    def write_position(self, payload: Position) -> None:
        """Write a position taken with :meth:`take_position` (worker thread).

        Raises:
            MemscopeError: the store cannot be written.
        """
        with self.store_lock:
            save_position(self.store, *payload)

    # -- run-level re-ranking ------------------------------------------------------------

    def rerank_key(self) -> RerankKey | None:
        """The cache key of the current parameters (None before a run is loaded)."""
        if self.run is None:
            return None
        return self.run.run_id, repr(sorted(self.view.as_json().items()))

    def rerank_plan(self) -> RerankPlan:
        """What showing the run-level Y3 numbers for the current parameters needs (they do
        not depend on the question, so moving between questions never recomputes them)."""
        key = self.rerank_key()
        if self.run is None or key is None:
            return RerankPlan("none")
        run = self.run_info()
        if run is None:
            return RerankPlan("none")
        # The run-level numbers are the Y3 temporal metrics under the re-rank panel; the
        # evidence and probe panels do not show them, so nothing is computed for those runs.
        if run.retrieval_kind != "ranked" or spec_of(run.benchmark).panel != "rerank":
            return RerankPlan("none")
        if key in self._reranks:
            return RerankPlan("cached", key, self._reranks[key])
        return RerankPlan("compute", key)

    def start_rerank(self, key: RerankKey) -> RerankParams | None:
        """Claim the computation for ``key``: the parameters to compute with
        (:meth:`compute_rerank`), or None when it is cached, running or stale."""
        if key != self.rerank_key() or key in self._reranks or key in self._reranks_running:
            return None
        self._reranks_running.add(key)
        return self.view.as_json()

    def run_info(self) -> RunInfo | None:
        """The description of the run on screen (read with its first question; None
        before a run is loaded or when it cannot be read)."""
        run = self.run
        if run is None:
            return None
        held = self._question_context
        if held is not None and held[0] is run:
            return held[1].run.run
        try:
            with self.store_lock:
                return self._context_of(run).run.run
        except MemscopeError:
            return None

    def rerank_data(self, run_id: str) -> RunData:
        """What the run-level re-ranking numbers and the recency sweep of ``run_id`` need
        (its retrieval evidence, no text), read for one computation (worker thread): the
        caller drops it, so the app never holds the whole run's evidence.

        Raises:
            MemscopeError: it cannot be read.
        """
        with self.store_lock:
            return session_io.read_rerank_data(self.store, run_id)

    def run_columns(self, run_id: str, *, evidence: bool) -> RunData:
        """The columns a run-level number of ``run_id`` needs (the matrix's grid, a figure;
        ``evidence``: with the retrieval evidence), read for one computation in a worker:
        the caller drops them after.

        Raises:
            MemscopeError: they cannot be read.
        """
        with self.store_lock:
            return session_io.read_run_columns(self.store, run_id, evidence=evidence)

    def run_suggested(self, run: LoadedRun) -> dict[str, str]:
        """qid -> the primary suggested code of ``run``'s questions ({} until its
        suggestions are ready), read for one computation in a worker (a "suggested CODE"
        count): the caller drops it after.

        Raises:
            MemscopeError: they cannot be read.
        """
        if not run.suggestions_ready:
            return {}
        with self.store_lock:
            return stored_codes(self.store, run.run_id)

    def compute_rerank(self, run_id: str, params: RerankParams) -> RunRerank:
        """The run-level Y3 numbers of ``run_id`` for ``params`` (worker thread): the
        columns they need read from the store, computed, dropped."""
        try:
            data = self.rerank_data(run_id)
        except MemscopeError as error:
            return RunRerank(params, None, error.what)
        return compute_rerank(data, params)

    def adopt_rerank(self, key: RerankKey, rerank: RunRerank) -> bool:
        """Cache a finished computation; True when it is for the parameters on screen."""
        self._reranks_running.discard(key)
        self._reranks[key] = rerank
        return key == self.rerank_key()


def compute_rerank(data: RunData, params: RerankParams) -> RunRerank:
    """The run-level Y3 numbers of ``data`` for ``params`` (worker thread; pure computation)."""
    from memscope.usecases.rerun.probe import rerun_run

    try:
        result = rerun_run(
            data,
            [params["alpha"]],
            lam=params["lambda"],
            k=int(params["k"]),
            resamples=RUN_RESAMPLES,
        )
    except MemscopeError as error:
        return RunRerank(params, None, error.what)
    return RunRerank(params, result)
