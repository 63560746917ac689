"""The run's failure suggestions: computed and stored once per run (a worker), then read
with each question, never kept run-wide."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from memscope.errors import MemscopeError
from memscope.triage.loaded_run import LoadedRun
from memscope.triage.session.questions import QuestionReads
from memscope.usecases.runs.question_read import read_suggestion, read_suggestions
from memscope.usecases.suggest.changes import ensure_suggestions

if TYPE_CHECKING:
    from memscope.triage.question_view import LoadedQuestion
    from memscope.usecases.suggest.rules import Suggestion


class RunSuggestions(QuestionReads):
    """Storing the run's suggestions and reading each question's."""

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
        """The failure suggestion of ``qid`` of the run on screen (None: none, not ready yet,
        or the store busy now): as read with the question, or read now (one short read)
        when the question was read before the run's suggestions were ready."""
        run = self._loaded()
        if not run.suggestions_ready:
            return None
        key = (run.opened, qid)
        question = self.questions.get(key)
        if question is not None and question.read.suggestion_read:
            return question.read.suggestion
        try:
            with self.store_lock:
                found = read_suggestion(self.store, run.run_id, qid)
        except MemscopeError:
            # Another process writing the store (this runs on the app's thread, for the
            # label bar): no suggestion shown now; the next repaint reads it again.
            return None
        if question is not None:
            read = replace(question.read, suggestion=found, suggestion_read=True)
            self.questions.put(key, replace(question, read=read))
        return found

    def adopt_suggestions(self, run_id: str, codes: list[str]) -> bool:
        """The run's suggestions are stored (``codes``: their distinct primary codes);
        False when another run is on screen now."""
        if self.run is None or self.run.run_id != run_id:
            return False
        self.run.set_suggestions_ready(codes)
        return True
