"""Loading a run for triage: ingest what is new, open the run's queue over the store, and
read the labels, verdicts, sample plan and remembered queue position that go with it.

The app's session service (``memscope.triage.session``) calls :func:`open_session`
in a worker: it reads the runs' descriptions, the labels and the queue's row ids, not the
run itself; the queue reads the rows on screen from the store as they are drawn
(``usecases.labels.queue_window``), the question screen reads one question at a time
(``usecases.runs.question_read``, each with its failure suggestion), and
:func:`ensure_suggestions` computes and stores the run's suggestions in the background
(none are kept for the whole run).
What still needs the whole run (``LoadedRun.data``, ``table``, ``other``, ``rounds``: a
benchmark's question panel summary, such as DMV-Bench's retention context, and tests) reads it on first
access. The store is used in short connections only, so other memscope processes can use
it meanwhile.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memscope.triage.candidate_rows import ChannelIndex
from memscope.triage.round_index import RoundIndex
from memscope.usecases.labels.events import CurrentLabel
from memscope.usecases.labels.queue import QueueSpec, TriageTable
from memscope.usecases.labels.queue_window import StoreQueue
from memscope.usecases.runs import session_io
from memscope.usecases.runs.loading import RunData
from memscope.usecases.runs.run_info import RunInfo
from memscope.usecases.runs.session_io import AppState
from memscope.usecases.runs.store_access import Store
from memscope.usecases.suggest.changes import ensure_suggestions

if TYPE_CHECKING:
    from memscope.usecases.labels.sample import SamplePlan

Progress = Callable[[str], None]


_OPENED = itertools.count()
"""Numbers each :class:`LoadedRun` (its ``opened``)."""


class LoadedRun:
    """One run (or two, compared) opened for triage.

    Holds the runs' descriptions, the queue over the store, and the small things people
    made (labels, verdicts, the sample plan, the remembered position). ``data``, ``other``,
    ``table`` and ``rounds`` are the whole run in memory, read on first access (under the
    store lock given) for the consumers that still need them.
    """

    def __init__(
        self,
        store: Store,
        info: RunInfo,
        queue: StoreQueue,
        annotator: str,
        *,
        other_info: RunInfo | None = None,
        labels: dict[str, CurrentLabel] | None = None,
        saved: AppState | None = None,
        lock: AbstractContextManager[Any] | None = None,
        data: RunData | None = None,
        detail: bool = False,
    ) -> None:
        self.store = store
        self.info = info
        self.opened = next(_OPENED)
        """Which loading of the run this is: the question cache keys on it, so that a run
        opened again (compared with another, or re-ingested) never shows a question read
        for an earlier opening."""
        self.other_info = other_info
        self.queue = queue
        self.annotator = annotator
        self.labels: dict[str, CurrentLabel] = dict(labels or {})
        self.saved = saved
        self.suggested_codes: list[str] = []
        """The distinct primary codes of the run's failure suggestions (the matrix's
        "suggested CODE" metrics); a question's own suggestion is read with the question
        (``TriageSession.suggestion``), never held here for the whole run."""
        self.notes: list[str] = []
        """Things the user should know (e.g. label support missing), shown once."""
        self.suggestions_ready = True
        """False while the suggestions are still being loaded in the background (the label
        bar says so, the queue has no suggested column)."""
        self.suggestions_stored = True
        """Whether the run's suggestions are in the store (set by the background worker as
        soon as they are, before ``suggestions_ready``): question reads read theirs."""
        self.sample: SamplePlan | None = None
        """The run's stored sample plan, None without one."""
        self.verdicts: dict[str, str] = {}
        """qid -> the annotator's verdict on the answer as stored (correct, wrong, unsure)."""
        self.channels = ChannelIndex(None)
        self._lock: AbstractContextManager[Any] = lock if lock is not None else nullcontext()
        self._built = threading.RLock()
        self._detail = detail
        self._data = data
        self._other: RunData | None = None
        self._rounds: RoundIndex | None = None
        self._table: TriageTable | None = None
        self._other_rows: dict[int, int] | None = None

    # -- what is always here --------------------------------------------------------

    @property
    def run_id(self) -> str:
        """The run being triaged."""
        return self.info.run_id

    @property
    def other_run_id(self) -> str | None:
        """The compared run, if any."""
        return self.other_info.run_id if self.other_info is not None else None

    @property
    def k(self) -> int:
        """The run's cut-off K (its top_k, else 10)."""
        from memscope.usecases.runs.ingest import effective_k

        return effective_k(self.info, None)

    def set_label(self, qid: str, codes: list[str] | tuple[str, ...]) -> None:
        """Record ``qid``'s current label codes in the queue (and the table, if read)."""
        self.queue.set_label(qid, codes)
        if self._table is not None:
            self._table.set_label(qid, codes)

    def set_suggestions_ready(self, codes: list[str]) -> None:
        """The suggestions are computed and stored (the queue joins them, a question's read
        reads its own); ``codes``: their distinct primary codes."""
        self.suggested_codes = list(codes)
        self.suggestions_stored = self.suggestions_ready = True
        self.queue.set_suggestions_ready(True)
        # The store lock first, then this run's (as ``_once``): the table, when built, is
        # then never built meanwhile without them.
        with self._lock, self._built:
            if self._table is not None:
                self._table.set_suggestions(self._stored_codes())

    def _stored_codes(self) -> dict[str, str]:
        """qid -> the primary suggested code, read from the store ({} until they are ready):
        for the lazy table only, which keeps them in its own column."""
        if not self.suggestions_ready:
            return {}
        from memscope.usecases.suggest.changes import stored_codes

        with self._lock:
            return stored_codes(self.store, self.run_id)

    # -- the whole run, read on first access --------------------------------------------

    def _once(self, name: str, read: Callable[[], Any]) -> Any:
        # The store lock first, then this run's: a worker holding the store lock may read
        # here too (the lock is re-entrant), and two threads never wait on each other.
        with self._lock, self._built:
            value = getattr(self, name)
            if value is None:
                value = read()
                setattr(self, name, value)
            return value

    @property
    def data(self) -> RunData:
        """The run's questions, whole (read on first access)."""
        data = self._data
        if data is None:
            data = self._once(
                "_data",
                lambda: session_io.read_run_data(self.store, self.run_id, detail=self._detail),
            )
        return data

    @property
    def other(self) -> RunData | None:
        """The compared run's answers, whole (read on first access), None without one."""
        if self.other_info is None:
            return None
        other = self._other
        if other is None:
            other_id = self.other_info.run_id
            other = self._once("_other", lambda: session_io.read_run_data(self.store, other_id))
        return other

    @property
    def rounds(self) -> RoundIndex:
        """The dataset's rounds (read on first access)."""
        rounds = self._rounds
        if rounds is None:
            rounds = self._once("_rounds", lambda: load_rounds(self.store, self.info.dataset_id))
        return rounds

    @property
    def table(self) -> TriageTable:
        """The run as an in-memory TriageTable (read on first access; the queue does not
        need it)."""
        table = self._table
        if table is None:
            table = self._once("_table", self._build_table)
        return table

    def _build_table(self) -> TriageTable:
        table = TriageTable(
            self.data,
            self._stored_codes(),
            {qid: label_codes(label) for qid, label in self.labels.items()},
            self.other,
        )
        if self.queue.sample_qids is not None:
            table.set_sample_order(self.queue.sample_qids, with_passes=self.queue.sample_has_passes)
        return table

    def other_row(self, row: int) -> int | None:
        """The compared run's row holding the question at ``row`` (None: not in the other run)."""
        other = self.other
        if other is None:
            return None
        if self._other_rows is None:
            from memscope.usecases.compare.pairs import match_questions

            rows, other_rows = match_questions(
                self.data.questions.column("question_key").to_pylist(),
                other.questions.column("question_key").to_pylist(),
            )
            self._other_rows = dict(zip(rows.tolist(), other_rows.tolist(), strict=True))
        return self._other_rows.get(row)


@dataclass(frozen=True)
class DirRuns:
    """The runs at or below a directory the user opened."""

    path: str
    run_ids: list[str]
    notes: list[str]
    """Runs below it that could not be read, one line each."""


def load_evidence(store: Store, data: RunData) -> ChannelIndex:
    """Complete ``data`` (from :func:`load_questions` or a session opened without
    evidence) with its retrieval evidence and its questions' answers, options and
    rotations, in place; return the per-channel scores of its retrieved rounds, with
    whether ``memscope recompute`` can fill the scores it did not log."""
    read = session_io.read_evidence(store, data)
    return ChannelIndex(read.channels, read.recompute_hint)


def load_rounds(store: Store, dataset_id: str) -> RoundIndex:
    """The dataset's rounds, indexed by round id."""
    return RoundIndex(session_io.read_rounds(store, dataset_id))


def open_session(
    store: Store,
    run_ids: list[str],
    annotator: str,
    progress: Progress | None = None,
    *,
    with_suggestions: bool = True,
    with_evidence: bool = True,
    sample_for: str = "failures",
    lock: AbstractContextManager[Any] | None = None,
) -> LoadedRun:
    """Open ``run_ids[0]`` (comparing it with ``run_ids[1]``) for triage.

    The app passes False for both flags and makes sure of the suggestions in the
    background (:func:`ensure_suggestions`): on a large run that takes longer than everything else
    together, and the queue does not need it; nor does it read the
    run's questions (the queue pages them from the store). ``with_evidence`` reads the run
    whole, with its evidence, at once. ``sample_for="verdicts"`` makes the sampled queue
    the run's verdict sample (``memscope sample RUN --for verdicts``) instead of its
    failure sample. ``lock`` is held around the store reads made later, on first access.

    Raises:
        MemscopeError: the run cannot be loaded.
    """
    say = progress or (lambda _text: None)
    run_id = run_ids[0]
    say(f"Loading run {run_id} …")
    start = session_io.read_session_start(store, run_ids, annotator)
    other_id = start.other.run_id if start.other is not None else None
    queue = StoreQueue(store, start.run, other_id, lock=lock)
    notes: list[str] = []
    labels = _labels(store, run_id, annotator, notes)
    data = session_io.read_run_data(store, run_id) if with_evidence else None
    session = LoadedRun(
        store,
        start.run,
        queue,
        annotator,
        other_info=start.other,
        labels=labels,
        saved=start.saved,
        lock=lock,
        data=data,
    )
    session.notes = notes
    queue.set_labels({qid: label_codes(label) for qid, label in labels.items()})
    if data is not None:
        session.channels = load_evidence(store, data)
    if with_suggestions:
        say("Loading failure suggestions …")
        session.set_suggestions_ready(ensure_suggestions(store, start.run, notes))
    else:
        session.suggestions_ready = session.suggestions_stored = False
        queue.set_suggestions_ready(False)
    session.verdicts = _verdicts(store, run_id, annotator)
    sample = start.sample
    if sample_for == "verdicts":
        from memscope.usecases.labels.verdict_sample import verdict_sample_plan

        sample = verdict_sample_plan(store, run_id)
    if sample is not None:
        queue.set_sample_order(sample.qids, with_passes=sample.purpose == "verdicts")
        session.sample = sample
    return session


def label_codes(label: CurrentLabel | None) -> list[str]:
    """The codes of a current label (empty when cleared)."""
    return list(label.codes) if label is not None else []


def _labels(store: Store, run_id: str, annotator: str, notes: list[str]) -> dict[str, CurrentLabel]:
    from memscope.usecases.labels import events as labels

    return dict(labels.current_labels(store, run_id, annotator=annotator))


def _verdicts(store: Store, run_id: str, annotator: str) -> dict[str, str]:
    from memscope.usecases.labels.verdicts import current_verdicts

    current = current_verdicts(store, run_id, annotator=annotator)
    return {qid: verdict.verdict for qid, verdict in current.items()}


def save_position(
    store: Store,
    session: LoadedRun,
    qid: str | None,
    spec: QueueSpec,
    view: dict[str, float | str],
) -> None:
    """Remember where the annotator is in this run's queue."""
    state = AppState(session.run_id, session.annotator, qid, spec.to_json(), view)
    session_io.save_position(store, state)


def mark_opened(store: Store, run_id: str) -> None:
    """Make ``run_id`` the store's default run (``memscope report`` without a run)."""
    session_io.mark_opened(store, run_id)
