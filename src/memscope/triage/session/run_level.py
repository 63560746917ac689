"""Run-level reads of the run on screen: its description, and the columns one run-level
computation needs (the re-rank, the matrix's grid, a figure), read for that computation
and dropped after, so the app never holds the whole run's evidence."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memscope.errors import MemscopeError
from memscope.triage.loaded_run import LoadedRun
from memscope.triage.session.questions import QuestionReads
from memscope.usecases.runs import session_io
from memscope.usecases.suggest.changes import stored_codes

if TYPE_CHECKING:
    from memscope.usecases.runs.loading import RunData
    from memscope.usecases.runs.run_info import RunInfo


class RunLevelReads(QuestionReads):
    """The run's description and its columns, read for one computation (worker thread)."""

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
