"""The app's thread workers: each calls one session method off the UI thread and posts
what it found as a message (``memscope.tui.messages``); the app's handlers adopt it.

Workers never touch widgets or the session's screen state; store access goes through the
session, which holds its store lock for exactly as long as the store is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.worker import Worker

from memscope.engine_jobs.memory_search import EngineStep
from memscope.errors import MemscopeError
from memscope.triage.loaded_run import DirRuns, LoadedRun
from memscope.triage.session_service import RerankKey, TriageSession, compute_rerank
from memscope.tui.heap import let_gc_see_loaded_runs
from memscope.tui.messages import (
    EngineProgressed,
    EvidenceLoaded,
    LabelWritten,
    LoadProgressed,
    ProbeLoaded,
    RunRerunFinished,
    RunsScoped,
    SearchFinished,
    SessionLoaded,
    SuggestionsLoaded,
    WorkFailed,
)

if TYPE_CHECKING:
    from textual.app import App


class Workers:
    """Starts the session's background work on ``app`` (one method per kind of work)."""

    def __init__(self, app: App[Any], session: TriageSession) -> None:
        self.app = app
        self.session = session

    def _start(self, work: Any, *, group: str, exclusive: bool = True) -> Worker[None]:
        return self.app.run_worker(
            work, thread=True, group=group, exclusive=exclusive, exit_on_error=False
        )

    # -- loading ---------------------------------------------------------------------------

    def load(self, refs: list[str], question: str | None = None) -> None:
        """Ingest what is new and load the run(s) (posts SessionLoaded or RunsScoped)."""
        post = self.app.post_message

        def progress(text: str) -> None:
            post(LoadProgressed(text))

        def work() -> None:
            let_gc_see_loaded_runs()
            try:
                found = self.session.load(refs, progress)
            except MemscopeError as error:
                post(WorkFailed("opening the run", error, fatal=True))
                return
            if isinstance(found, DirRuns):
                post(RunsScoped(found.path, found.run_ids, found.notes))
            else:
                post(SessionLoaded(found, question))

        self._start(work, group="load")

    def complete(self, run: LoadedRun) -> None:
        """After the queue is up: the retrieval evidence, then the suggestions (computed
        first when the run has none); also makes the run the store's default one."""
        post, session = self.app.post_message, self.session

        def work() -> None:
            session.mark_opened(run)
            try:
                post(EvidenceLoaded(run.run_id, session.read_evidence(run)))
            except MemscopeError as error:
                post(WorkFailed("loading the retrieval evidence", error))
            notes: list[str] = []
            found = session.read_suggestions(run, notes)
            post(SuggestionsLoaded(run.run_id, found, notes))

        self._start(work, group="complete")

    def probe(self, run_id: str, qid: str) -> None:
        """A DMV-Bench probe's target and recall steps (posts ProbeLoaded)."""
        post, session = self.app.post_message, self.session

        def work() -> None:
            try:
                probe = session.read_probe(run_id, qid)
            except MemscopeError as error:
                post(ProbeLoaded(run_id, qid, error=f"the probe cannot be shown: {error.message}"))
                return
            post(ProbeLoaded(run_id, qid, probe))

        self._start(work, group="probe")

    # -- writing ---------------------------------------------------------------------------

    def write_labels(self) -> None:
        """Write the queued label ops in order. Not exclusive: a cancelled writer could
        drop ops, so every writer drains the one shared queue under its lock instead."""
        post = self.app.post_message
        labels = self.session.labels
        self._start(
            lambda: labels.write_pending(lambda event: post(LabelWritten(event))),
            group="labels",
            exclusive=False,
        )

    def write_position(self, payload: tuple[Any, ...]) -> None:
        """Remember the queue position taken from the session."""
        post, session = self.app.post_message, self.session

        def work() -> None:
            try:
                session.write_position(payload)
            except MemscopeError as error:
                post(WorkFailed("remembering the queue position", error))

        self._start(work, group="position")

    # -- computing -------------------------------------------------------------------------

    def rerank(self, key: RerankKey, data: Any, params: dict[str, Any]) -> None:
        """Run-level Y3 numbers for ``params`` (one worker per parameter set, never repeated)."""
        post = self.app.post_message
        self._start(
            lambda: post(RunRerunFinished(key, compute_rerank(data, params))),
            group="run-rerank",
            exclusive=False,
        )

    def search(self, search_id: int, query: str | None, round_id: str | None = None) -> None:
        """Text search over the memory bank, or rounds whose images look like ``round_id``'s
        (posts EngineProgressed at each step, then SearchFinished).

        The store lock is taken only while the search reads or writes the store, never
        across the model load or the search: labels are saved meanwhile."""
        post, session = self.app.post_message, self.session

        def work() -> None:
            from memscope.engine_jobs.memory_search import (
                run_memory_search,  # loads no engine library
            )

            title = f"rounds like {round_id}" if round_id else f"search: {query}"

            def progressed(step: EngineStep) -> None:
                post(EngineProgressed(search_id, step))

            def finished(hits: list[Any], error: str | None = None) -> None:
                post(SearchFinished(title, hits, error, search_id))

            run = session.run
            dataset_id = run.data.run.dataset_id if run is not None else ""
            try:
                hits = run_memory_search(
                    session.store,
                    session.store_lock,
                    dataset_id,
                    query=None if round_id else (query or ""),
                    round_id=round_id,
                    k=10,
                    on_step=progressed,
                )
            except MemscopeError as error:
                finished([], error.message)
                return
            except ImportError as error:
                finished([], f"the memory engine needs a library that is missing: {error}")
                return
            except Exception as error:  # a model library failing its own way: say so, end the line
                finished([], f"the search failed: {type(error).__name__}: {error}")
                return
            rounds = run.rounds if run is not None else None
            found = []
            for hit in hits:
                detail = rounds.get(hit.round_id) if rounds is not None else None
                found.append(
                    {
                        "round_id": hit.round_id,
                        "score": hit.score,
                        "text": detail.user_text if detail else hit.item_id,
                    }
                )
            finished(found)

        self._start(work, group="search")
