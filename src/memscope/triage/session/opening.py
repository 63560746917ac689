"""Opening a run: loading it in a worker (ingest what is new, the queue's head or its
rows around the remembered question), counting the rest of the queue, and adopting it on
the app's thread (its queue, the remembered position and view)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from memscope.errors import MemscopeError
from memscope.triage.loaded_run import DirRuns, LoadedRun, mark_opened, open_session
from memscope.triage.notice import Notice
from memscope.triage.session.records import Adopted
from memscope.triage.session.suggestions import RunSuggestions
from memscope.triage.session.view_params import ViewParams
from memscope.usecases.labels.queue import QueueSpec
from memscope.usecases.runs import session_io
from memscope.usecases.runs.selection import SelectOptions, select_runs

Progress = Callable[[str], None]

FIRST_SCREEN = 60
"""Rows the loading worker reads for the queue's first screen (a tall terminal's worth)."""
HEAD_ROWS = 120
"""Rows of a queue read before the whole of it is known (two tall screens: scrolling
within them needs no read while the rest is counted)."""


class RunOpening(RunSuggestions):
    """Loading a run (worker threads) and adopting it (app thread)."""

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

    def shows(self, run_ids: list[str]) -> bool:
        """Whether exactly ``run_ids`` (a run, or a run and the one compared) are on screen."""
        if self.run is None:
            return False
        return [self.run.run_id, self.run.other_run_id][: len(run_ids)] == run_ids
