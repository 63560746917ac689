"""The status bar's and the label bar's records, built from the session's state."""

from __future__ import annotations

from memscope.triage.loaded_run import LoadedRun
from memscope.triage.session.records import LabelBarView, StatusView
from memscope.triage.session.suggestions import RunSuggestions


class SessionViews(RunSuggestions):
    """What the bars show (app thread)."""

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
