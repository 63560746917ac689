"""The question screen's view records: everything it draws for one question, built once.

:func:`question_view` gathers the question, its answers and the compared run's answer;
:func:`ranking_view` the candidate pool in the current order (re-ranked with alpha,
lambda and K where the run logged a ranked list), its metrics before → after, why it is
empty when it is, and the timeline of the rounds that matter. The screen builds them on
``j`` / ``k`` (and the ranking again on every re-ranking key) and every pane draws from
them in one pass; nothing here touches a widget.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from memscope.errors import MemscopeError
from memscope.triage.candidate_rows import Candidate, candidates_from_rerun, logged_candidates
from memscope.triage.evidence_chain import (
    QuestionDetail,
    TimelineEntry,
    build_timeline,
    question_detail,
)
from memscope.triage.loaded_run import LoadedRun
from memscope.usecases.benchmarks import Panel
from memscope.usecases.report.build import RETRIEVAL_NOTES
from memscope.usecases.rerun.probe import QuestionRerun


@dataclass(frozen=True)
class OtherAnswer:
    """The compared run's answer to the same question (matched by question key)."""

    run_id: str
    pred: str
    choice: str
    em: float | None
    judge: float | None
    f1: float | None
    correct: float


@dataclass(frozen=True)
class QuestionView:
    """One question as the screen shows it, before any re-ranking."""

    detail: QuestionDetail
    benchmark: str
    """The run's benchmark name (``runs.benchmark``)."""
    panel: Panel
    """What the right-hand panel shows (``Benchmark.panel``; a probe shows its recall
    steps in place of a dialogue round)."""
    other: OtherAnswer | None
    other_run_id: str | None
    """The compared run (set even when this question is not in it)."""

    @property
    def is_probe(self) -> bool:
        """A probe (DMV-Bench): no dialogue round, its recall steps instead."""
        return self.panel == "probe"


@dataclass(frozen=True)
class RankingView:
    """The question's candidate pool in the current order, and the timeline it implies."""

    candidates: list[Candidate]
    rerun: QuestionRerun | None
    """The re-ranking result, None without one."""
    before: Mapping[str, float | None] | None
    after: Mapping[str, float | None] | None
    message: str
    """Why the pool is empty or not re-ranked ("" when it is)."""
    loading: bool
    """The run's retrieval evidence is still loading in the background."""
    entries: list[TimelineEntry]

    @property
    def note(self) -> str:
        """The line under the re-ranking parameters: the re-run's note, else the message."""
        if self.rerun is not None:
            return getattr(self.rerun, "note", None) or ""
        return self.message


def question_view(session: LoadedRun, row: int) -> QuestionView:
    """The question at ``row`` of the session's run, with the compared run's answer."""
    detail = question_detail(session.data, row)
    other = None
    other_row = session.other_row(row)
    if other_row is not None and session.other is not None:
        theirs = question_detail(session.other, other_row)
        other = OtherAnswer(
            str(session.other_run_id),
            theirs.pred,
            theirs.choice,
            theirs.em,
            theirs.judge,
            theirs.f1,
            theirs.correct,
        )
    data = session.data
    return QuestionView(detail, data.benchmark, data.spec.panel, other, session.other_run_id)


def ranking_view(
    session: LoadedRun, detail: QuestionDetail, *, alpha: float, lam: float, k: int
) -> RankingView:
    """The candidates of ``detail`` re-ranked with ``alpha`` / ``lam`` / ``k`` where the run
    logged a ranked list, else as logged; and the timeline around them."""
    channels = session.channels.scores(detail.qid)
    kind = session.data.run.retrieval_kind
    rerun: QuestionRerun | None = None
    message = ""
    before: Mapping[str, float | None] | None = None
    after: Mapping[str, float | None] | None = None
    if not session.evidence_ready:
        entries = build_timeline(detail, session.rounds, [])
        return RankingView([], None, None, None, "loading the retrieval evidence …", True, entries)
    if kind == "ranked":
        try:
            from memscope.usecases.rerun.probe import rerun_question

            rerun = rerun_question(
                session.data,
                detail.qid,
                alpha=alpha,
                lam=lam,
                k=k,
                gap_fill_hint=session.channels.recompute_hint,
            )
        except MemscopeError as error:
            message = error.message
    if rerun is not None:
        candidates = candidates_from_rerun(
            rerun.after.rows, rerun.before.rows, channels, detail.is_y3
        )
        before, after = rerun.before.metrics, rerun.after.metrics
    else:
        candidates = logged_candidates(session.data, detail.row, session.rounds, k, channels)
        message = message or RETRIEVAL_NOTES.get(kind or "none", "")
    entries = build_timeline(detail, session.rounds, candidates)
    return RankingView(candidates, rerun, before, after, message, False, entries)
