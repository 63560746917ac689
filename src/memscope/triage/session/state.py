"""The triage session's state: every field the app's session holds, in one dataclass
that each job's mixin (``cursor``, ``questions``, ``opening`` …) builds on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import numpy as np

from memscope.taxonomy import Taxonomy
from memscope.triage.label_book import LabelBook
from memscope.triage.loaded_run import LoadedRun
from memscope.triage.question_cache import QuestionCache
from memscope.triage.session.records import StartRequest
from memscope.triage.session.search_progress import SearchProgress
from memscope.triage.session.store_lock import StoreLock
from memscope.triage.session.view_params import ViewParams
from memscope.usecases.labels.queue import QueueSpec
from memscope.usecases.runs.session_io import QuestionContext
from memscope.usecases.runs.store_access import ReadOptions, Store, WriterLease

if TYPE_CHECKING:
    from memscope.triage.session.rerank import RerankKey, RunRerank
    from memscope.triage.session.service import TriageSession


@dataclass
class SessionState:
    """The app's state (the operations on it: the mixins of ``TriageSession``)."""

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
        self.labels = LabelBook(cast("TriageSession", self))
