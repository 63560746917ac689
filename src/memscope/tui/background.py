"""The app's background work besides loading: completing a session (evidence,
suggestions), remembering the queue position, the run-level re-ranking numbers and
memory-engine searches (a mixin of :class:`~memscope.tui.app.MemscopeApp`).

Workers only post messages; the ``on_*`` handlers here update the app's state.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.timer import Timer

from memscope.errors import MemscopeError
from memscope.pipeline.engine_jobs import EngineStep
from memscope.pipeline.triage import QueueSpec
from memscope.pipeline.triage_session import (
    load_evidence,
    load_suggestions,
    mark_opened,
    save_position,
)
from memscope.tui.heap import keep_loaded_run_out_of_gc
from memscope.tui.messages import (
    EngineProgressed,
    EvidenceLoaded,
    ProbeLoaded,
    RunRerunFinished,
    SearchFinished,
    SuggestionsLoaded,
    WorkFailed,
)

if TYPE_CHECKING:
    from memscope.tui.app import MemscopeApp

SAVE_POSITION_AFTER_S = 0.8
"""Idle time after a move before the queue position is written (one write per pause, not per key)."""
RUN_RESAMPLES = 200
"""Bootstrap resamples for the live run-level numbers (the CLI's rerun uses 10,000)."""
RERANK_AFTER_S = 0.15
"""Pause after an alpha / lambda / K key before the run-level numbers are recomputed."""
ENGINE_TICK_S = 0.5
"""How often a running search's progress line is redrawn (its seconds count up)."""


class BackgroundWork:
    """Workers and their handlers (see the module docstring)."""

    @work(thread=True, exclusive=True, exit_on_error=False, group="complete")
    def complete_session(self: MemscopeApp, session: Any) -> None:
        """After the queue is up: load the retrieval evidence, then the suggestions
        (computed first when the run has none); posts EvidenceLoaded, SuggestionsLoaded.
        Also makes the run the store's default one (``memscope report`` without a run)."""
        if self.read_only_reason is None:
            try:
                with self.store_lock:
                    mark_opened(self.store, session.run_id)
            except MemscopeError:
                pass  # only a convenience for the CLI's default run
        try:
            with self.store_lock:
                channels = load_evidence(self.store, session.data)
            self.post_message(EvidenceLoaded(session.run_id, channels))
        except MemscopeError as error:
            self.post_message(WorkFailed("loading the retrieval evidence", error))
        notes: list[str] = []
        with self.store_lock:
            found = load_suggestions(self.store, session.data, notes)
        self.post_message(SuggestionsLoaded(session.run_id, found, notes))

    def on_evidence_loaded(self: MemscopeApp, message: EvidenceLoaded) -> None:
        state = self.state
        if state is None or state.session.run_id != message.run_id:
            return
        state.session.channels = message.channels
        state.session.evidence_ready = True
        keep_loaded_run_out_of_gc()
        screen = self.question_screen
        if screen is not None and screen.detail is not None:
            screen.show_question()
        self.refresh_views()

    def on_suggestions_loaded(self: MemscopeApp, message: SuggestionsLoaded) -> None:
        state = self.state
        if state is None or state.session.run_id != message.run_id:
            return
        session = state.session
        session.suggestions = message.suggestions
        session.table.set_suggestions(message.suggestions)
        session.suggestions_ready = True
        keep_loaded_run_out_of_gc()
        for note in message.notes:
            self.notify(note, severity="warning", markup=False)
        self.refresh_views()

    # -- DMV-Bench probes ------------------------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="probe")
    def load_probe_view(self: MemscopeApp, run_id: str, qid: str) -> None:
        """Read a DMV-Bench probe's target and recall steps (posts ProbeLoaded)."""
        from memscope.pipeline.benchmark_views import load_probe

        try:
            with self.store_lock:
                probe = load_probe(self.store, run_id, qid)
        except MemscopeError as error:
            self.post_message(
                ProbeLoaded(run_id, qid, error=f"the probe cannot be shown: {error.message}")
            )
            return
        self.post_message(ProbeLoaded(run_id, qid, probe))

    def on_probe_loaded(self: MemscopeApp, message: ProbeLoaded) -> None:
        screen = self.question_screen
        if (
            screen is not None
            and self.state is not None
            and self.state.session.run_id == message.run_id
        ):
            screen.show_probe(message.qid, message.probe, message.error)

    # -- queue position --------------------------------------------------------------------

    def remember_position(self: MemscopeApp) -> None:
        """Note that the position changed; it is written after a short pause."""
        if self.read_only_reason or self.state is None:
            return
        self._position_dirty = True
        if self._position_timer is not None:
            self._position_timer.stop()
        self._position_timer = self.set_timer(SAVE_POSITION_AFTER_S, self._save_position_later)

    def _position_payload(self: MemscopeApp) -> tuple[Any, str | None, QueueSpec, dict[str, Any]]:
        state = self.state
        assert state is not None
        view = {
            **state.view.as_json(),
            "rerank_scope": state.view.scope,
            "screen": "question" if self.on_question_screen else "queue",
        }
        return state.session, state.qid, state.spec, view

    def _save_position_later(self: MemscopeApp) -> None:
        if self._position_dirty and self.state is not None:
            self._position_dirty = False
            self._write_position(*self._position_payload())

    @work(thread=True, exclusive=True, exit_on_error=False, group="position")
    def _write_position(
        self: MemscopeApp, session: Any, qid: str | None, spec: QueueSpec, view: dict[str, Any]
    ) -> None:
        try:
            with self.store_lock:
                save_position(self.store, session, qid, spec, view)
        except MemscopeError as error:
            self.post_message(WorkFailed("remembering the queue position", error))

    def save_position_now(self: MemscopeApp) -> None:
        """Write a pending position change before the app exits."""
        if self._position_dirty and self.state is not None and not self.read_only_reason:
            self._position_dirty = False
            try:
                with self.store_lock:
                    save_position(self.store, *self._position_payload())
            except MemscopeError:
                pass  # quitting anyway; the labels themselves were committed when shown as saved

    # -- run-level re-ranking ----------------------------------------------------------------

    def _rerank_key(self: MemscopeApp) -> tuple[str, str] | None:
        if self.state is None:
            return None
        return self.state.session.run_id, repr(sorted(self.state.view.as_json().items()))

    def refresh_run_rerank(self: MemscopeApp) -> None:
        """Show the run-level Y3 numbers for the current parameters: from the cache, or
        computed in the background after a short pause (they do not depend on the question,
        so moving between questions never recomputes them)."""
        screen, key = self.question_screen, self._rerank_key()
        if screen is None or key is None:
            return
        run = self.state.session.data.run
        # The run-level numbers are MemEye's Y3 temporal metrics: CUE-Mem and DMV-Bench
        # panels do not show them, so nothing is computed for those runs.
        if run.get("retrieval_kind") != "ranked" or run.get("benchmark") in ("cuemem", "dmv"):
            screen.show_run_metrics("")
            return
        if not self.state.session.evidence_ready:
            screen.show_run_metrics(
                Text("run Y3: waiting for the retrieval evidence …", style="dim")
            )
            return
        if key in self._run_reranks:
            screen.show_run_rerank(self._run_reranks[key])
            return
        screen.show_run_metrics(Text("run Y3: computing …", style="dim"))
        if self._rerank_timer is not None:
            self._rerank_timer.stop()
        self._rerank_timer = self.set_timer(RERANK_AFTER_S, self._start_run_rerank)

    def _start_run_rerank(self: MemscopeApp) -> None:
        screen, key = self.question_screen, self._rerank_key()
        if (
            screen is None
            or key is None
            or key in self._run_reranks
            or key in self._reranks_running
        ):
            return
        self._reranks_running.add(key)
        self.compute_run_rerank(self.state.session.data, self.state.view.as_json(), key)

    @work(thread=True, exit_on_error=False, group="run-rerank")
    def compute_run_rerank(self: MemscopeApp, data: Any, params: dict[str, Any], key: Any) -> None:
        """Run-level Y3 numbers for ``params`` in the background (posts RunRerunFinished to
        the app, which caches them by ``key``; one worker per parameter set, never repeated)."""
        try:
            from memscope.pipeline.rerun import rerun_run

            result = rerun_run(
                data,
                [params["alpha"]],
                lam=params["lambda"],
                k=params["k"],
                resamples=RUN_RESAMPLES,
            )
        except MemscopeError as error:
            self.post_message(RunRerunFinished(params, None, error.what, key))
            return
        self.post_message(RunRerunFinished(params, result, key=key))

    def on_run_rerun_finished(self: MemscopeApp, message: RunRerunFinished) -> None:
        self._reranks_running.discard(message.key)
        self._run_reranks[message.key] = message
        if self.question_screen is not None and message.key == self._rerank_key():
            self.question_screen.show_run_rerank(message)

    # -- search (memory engine) -----------------------------------------------------------------

    engine_step: EngineStep | None = None
    """What the running search does now (None: no search runs)."""
    _search_serial = 0
    _engine_ticker: Timer | None = None

    def start_search(self: MemscopeApp, query: str | None, round_id: str | None = None) -> None:
        """Start a search (words, or rounds that look like ``round_id``'s) in a worker.

        A newer search makes an older one's progress and hits stale; the status bar (and
        the search dialog, while open) show the running one's step, its seconds counting up.
        """
        self._search_serial += 1
        self.engine_step = EngineStep("starting the memory engine", time.monotonic())
        if self._engine_ticker is None:
            self._engine_ticker = self.set_interval(ENGINE_TICK_S, self.show_engine_step)
        self.run_search(self._search_serial, query, round_id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="search")
    def run_search(
        self: MemscopeApp, search_id: int, query: str | None, round_id: str | None = None
    ) -> None:
        """Text search over the memory bank, or rounds whose images look like ``round_id``'s.

        The store lock is taken only while the search reads or writes the store, never
        across the model load or the search (labels are saved meanwhile)."""
        state = self.state
        title = f"rounds like {round_id}" if round_id else f"search: {query}"

        def progressed(step: EngineStep) -> None:
            self.post_message(EngineProgressed(search_id, step))

        def finished(hits: list[Any], error: str | None = None) -> None:
            self.post_message(SearchFinished(title, hits, error, search_id))

        from memscope.pipeline.engine_jobs import run_memory_search  # loads no engine library

        dataset_id = state.session.data.run["dataset_id"] if state else ""
        try:
            hits = run_memory_search(
                self.store,
                self.store_lock,
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
        rounds = state.session.rounds if state else None
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

    def on_engine_progressed(self: MemscopeApp, message: EngineProgressed) -> None:
        if message.search_id == self._search_serial:
            self.engine_step = message.step
            self.show_engine_step()

    def engine_line(self: MemscopeApp) -> str | None:
        """The running search's progress line (``loading all-MiniLM-L6-v2 … 4 s``), or None."""
        return self.engine_step.line() if self.engine_step is not None else None

    def show_engine_step(self: MemscopeApp) -> None:
        """Redraw the search's progress line in the status bar and the open search dialog."""
        from memscope.tui.screens.search import SearchDialog

        if isinstance(self.screen, SearchDialog):
            self.screen.show_step(self.engine_line())
        screen = self.question_screen
        if screen is not None and screen.detail is not None:
            screen.refresh_status()

    def end_search(self: MemscopeApp, message: SearchFinished) -> bool:
        """Forget the finished search's progress; False for a stale answer (a newer search runs)."""
        if message.search_id != self._search_serial:
            return False
        self.engine_step = None
        if self._engine_ticker is not None:
            self._engine_ticker.stop()
            self._engine_ticker = None
        self.show_engine_step()
        return True
