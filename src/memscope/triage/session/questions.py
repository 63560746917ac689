"""One question at a time from the store (never the whole run), and the prefetch of the
next few of the queue into the session's bounded cache."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from memscope.errors import MemscopeError, NotFoundError
from memscope.triage.loaded_run import LoadedRun
from memscope.triage.session.cursor import QueueCursor
from memscope.usecases.runs import session_io
from memscope.usecases.runs.session_io import QuestionContext

if TYPE_CHECKING:
    # Only the question screen and its panels use these: imported there, so the app's start
    # does not pay for them.
    from collections.abc import Sequence

    from memscope.triage.question_view import LoadedQuestion
    from memscope.triage.round_index import RoundIndex
    from memscope.usecases.question_panels import PanelBlock, QuestionPanel

PREFETCH_AHEAD = 24
"""Questions of the queue read ahead of the cursor in the background (``j`` shows them at
once). A read of 24 costs about what a read of 8 does (opening the store and scanning
dominate), so one background read serves many keys."""
PREFETCH_SOON = 4
"""The prefetch reads again once one of this many next questions is not cached."""


class QuestionReads(QueueCursor):
    """Questions read from the store, cached and prefetched (any thread)."""

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

    def read_panel(
        self, panel: QuestionPanel, benchmark: str, run_id: str, qid: str
    ) -> Sequence[PanelBlock]:
        """The benchmark's own question panel for question ``qid`` of ``run_id`` (worker
        thread: its ``build`` hook reads the store).

        Raises:
            MemscopeError: the question cannot be read.
        """
        from memscope.usecases.runs.panel_reads import StoredQuestion

        with self.store_lock:
            return panel.built(StoredQuestion(self.store, benchmark, run_id, qid))
