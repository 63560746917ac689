"""The question screen's view records: everything it draws for one question, built once.

:func:`load_question` takes one question read from the store
(``usecases.runs.question_read``: the screen never needs the whole run) and
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
from memscope.triage.candidate_rows import (
    Candidate,
    ChannelIndex,
    candidates_from_rerun,
    logged_candidates,
)
from memscope.triage.evidence_chain import (
    QuestionDetail,
    TimelineEntry,
    build_timeline,
    question_detail,
)
from memscope.triage.round_index import RoundIndex
from memscope.usecases.benchmarks import Panel
from memscope.usecases.question_panels import QuestionPanel
from memscope.usecases.report.build import RETRIEVAL_NOTES
from memscope.usecases.rerun.question_rerank import QuestionRerun
from memscope.usecases.runs.question_read import QuestionRead
from memscope.usecases.runs.session_io import RecomputeHint


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
    """Which view of the candidates the right-hand panel shows (``Benchmark.panel``)."""
    question_panel: QuestionPanel | None
    """The benchmark's own view of the question (``Benchmark.question_panel``), shown in
    place of the dialogue round; None: the round view."""
    other: OtherAnswer | None
    other_run_id: str | None
    """The compared run (set even when this question is not in it)."""

    @property
    def replaces_rounds(self) -> bool:
        """Whether the benchmark's own panel stands in for the dialogue round (no round to
        show, caption or play; a DMV-Bench probe's recall steps)."""
        return self.question_panel is not None


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
    """The question's evidence is still loading (always False: it is read with the question)."""
    entries: list[TimelineEntry]

    @property
    def note(self) -> str:
        """The line under the re-ranking parameters: the re-run's note, else the message."""
        if self.rerun is not None:
            return getattr(self.rerun, "note", None) or ""
        return self.message


@dataclass(frozen=True)
class LoadedQuestion:
    """One question read from the store (``usecases.runs.question_read``) with its rounds
    and channel scores indexed, and its view built: what the screen draws for it, ready
    before the key that shows it (the app prefetches the next few)."""

    read: QuestionRead
    rounds: RoundIndex
    """The dataset rounds its timeline can show (as ``n``, the round count of the
    question's own history where its benchmark lists one, else the dataset's)."""
    channels: ChannelIndex
    view: QuestionView

    @property
    def qid(self) -> str:
        """The question's id."""
        return self.read.qid


def load_question(
    read: QuestionRead,
    other_run_id: str | None,
    recompute_hint: str | RecomputeHint | None = None,
) -> LoadedQuestion:
    """Index a question read from the store and build its view (any thread)."""
    history = read.history
    # Ages count the question's own history where it has one (its haystack's rounds).
    n = sum(session.rounds for session in history) if history is not None else read.data.n_rounds
    rounds = RoundIndex(read.rounds, n=n)
    channels = ChannelIndex(read.channels, recompute_hint)
    return LoadedQuestion(read, rounds, channels, question_view(read, other_run_id))


def question_view(read: QuestionRead, other_run_id: str | None) -> QuestionView:
    """The question of ``read``, with the compared run's answer (``other_run_id``: the
    compared run, None when none is)."""
    data = read.data
    detail = question_detail(data, 0)
    other = None
    if read.other is not None and other_run_id is not None:
        theirs = question_detail(read.other, 0)
        other = OtherAnswer(
            other_run_id,
            theirs.pred,
            theirs.choice,
            theirs.em,
            theirs.judge,
            theirs.f1,
            theirs.correct,
        )
    spec = data.spec
    return QuestionView(
        detail, data.benchmark, spec.panel, spec.question_panel, other, other_run_id
    )


def ranking_view(question: LoadedQuestion, *, alpha: float, lam: float, k: int) -> RankingView:
    """The candidates of ``question`` re-ranked with ``alpha`` / ``lam`` / ``k`` where the
    run logged a ranked list, else as logged; and the timeline around them."""
    detail = question.view.detail
    data = question.read.data
    channels = question.channels.scores(detail.qid)
    kind = data.run.retrieval_kind
    rerun: QuestionRerun | None = None
    message = ""
    before: Mapping[str, float | None] | None = None
    after: Mapping[str, float | None] | None = None
    if kind == "ranked":
        try:
            from memscope.usecases.rerun.question_rerank import rerun_question

            rerun = rerun_question(
                data,
                detail.qid,
                alpha=alpha,
                lam=lam,
                k=k,
                gap_fill_hint=question.channels.recompute_hint,
            )
        except MemscopeError as error:
            message = error.message
    if rerun is not None:
        candidates = candidates_from_rerun(
            rerun.after.rows, rerun.before.rows, channels, detail.asks_latest
        )
        before, after = rerun.before.metrics, rerun.after.metrics
    else:
        candidates = logged_candidates(data, detail.row, question.rounds, k, channels)
        message = message or RETRIEVAL_NOTES.get(kind or "none", "")
    entries = build_timeline(detail, question.rounds, candidates, history=question.read.history)
    return RankingView(candidates, rerun, before, after, message, False, entries)
