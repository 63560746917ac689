"""One question of a run read from the store with everything the app's question screen
draws for it: its row (text, answers, gold, scores, coordinates), its candidates and
per-channel scores, the dataset rounds of its timeline, and the compared run's answer.

:func:`read_questions` reads a few questions in one connection (the one on screen and the
next few the app prefetches); each comes back as a :class:`QuestionRead` whose ``data`` is
a one-row :class:`~memscope.usecases.runs.loading.RunData`, so the per-question code
(``rerun_question``, the evidence chain) works on it exactly as on a whole run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memscope.errors import NotFoundError
from memscope.store import Store, queries
from memscope.store import question_reads as reads
from memscope.usecases.runs.declared import declared_flags, latest_match
from memscope.usecases.runs.history import (
    HistorySession,
    SessionIndex,
    histories_of,
    read_histories,
    read_session_index,
)
from memscope.usecases.runs.loading import RunData, evidence_from_table
from memscope.usecases.runs.run_info import RunInfo

if TYPE_CHECKING:
    import pyarrow as pa

    from memscope.usecases.suggest.rules import Suggestion

CONTEXT_ROUNDS = 1
"""Rounds read on each side of a gold clue (the timeline's conversational context)."""


@dataclass(frozen=True)
class QuestionRead:
    """One question of a run as read from the store."""

    qid: str
    data: RunData
    """The run with this question alone: one row of questions and of evidence."""
    rounds: pa.Table
    """The dataset rounds its timeline can show (``queries.rounds_table`` columns): its
    retrieved rounds and its gold clues with ``context`` rounds either side."""
    channels: pa.Table
    """Per retrieved round, its per-channel scores (``queries.retrieval_channels``)."""
    other: RunData | None
    """The compared run's row for the same question (matched by question key), None when
    no run is compared or it lacks the question."""
    suggestion: Suggestion | None = None
    """Its stored failure suggestion (rank 1, with the other codes as alternatives), None
    when it has none or they were not read."""
    suggestion_read: bool = False
    """Whether ``suggestion`` was read (the caller asked for it: the run's suggestions were
    computed and stored by then)."""
    history: tuple[HistorySession, ...] | None = None
    """The sessions of the question's own haystack in dialogue order, where its benchmark
    lists each question's (``Benchmark.history`` ``extra:<key>``); None: its timeline is
    the dataset's."""


@dataclass(frozen=True)
class RunContext:
    """What every question read of a run shares: its description and round count, and the
    compared run (read once per session)."""

    run: RunInfo
    n_rounds: int
    other: RunInfo | None = None
    sessions: SessionIndex | None = None
    """The dataset's sessions by id, where each question lists its own haystack (its
    timeline and its history's ages are looked up there); None elsewhere."""


def stored_run_info(con: Any, store: Store, run_id: str) -> RunInfo:
    """The stored description of run ``run_id`` (``con``: a read of ``store``).

    Raises:
        NotFoundError: no such run in the store.
    """
    row = queries.get_run(con, run_id)
    if row is None:
        raise NotFoundError(f"no run {run_id!r} in the store", where=str(store.path))
    return RunInfo.from_row(row)


def read_run_context(store: Store, run_id: str, other_run_id: str | None = None) -> RunContext:
    """The run's description and its dataset's round count (and the compared run's).

    Raises:
        NotFoundError: no such run in the store.
    """
    with store.read() as con:
        run = stored_run_info(con, store, run_id)
        other_row = queries.get_run(con, other_run_id) if other_run_id else None
        n_rounds = queries.dataset_round_count(con, run.dataset_id)
        sessions = read_session_index(con, run)
    other = RunInfo.from_row(other_row) if other_row is not None else None
    return RunContext(run, n_rounds, other, sessions)


def read_questions(
    store: Store,
    context: RunContext,
    qids: list[str],
    *,
    around: int = CONTEXT_ROUNDS,
    with_suggestions: bool = False,
) -> dict[str, QuestionRead]:
    """``qids`` of the run read in one connection (qids the run lacks are left out);
    ``with_suggestions``: with their stored failure suggestions (ask only once the run's
    are computed: before, the store may hold none or ones made for older files)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from memscope.store.suggestions import question_suggestion_rows
    from memscope.usecases.suggest.rules import suggestions_from_rows

    run = context.run
    found: dict[str, QuestionRead] = {}
    if not qids:
        return found
    with store.read() as con, reads.one_thread(con):
        idx = reads.question_idx(con, run.dataset_id, qids)
        questions = reads.question_rows(con, run.run_id, run.dataset_id, idx)
        evidence = reads.question_evidence(con, run.run_id, run.dataset_id, idx)
        channels = reads.question_channels(con, run.run_id, qids)
        positions: set[int] = set()
        round_ids: set[str] = set()
        for ranked, gold in zip(
            evidence.column("ranked_ids").to_pylist(),
            evidence.column("gold_pos").to_pylist(),
            strict=True,
        ):
            round_ids.update(str(r) for r in ranked or () if r is not None)
            for position in gold or ():
                positions.update(range(position - around, position + around + 1))
        rounds = reads.rounds_at(
            con, run.dataset_id, positions=sorted(positions), round_ids=sorted(round_ids)
        )
        others = _other_rows(con, context, questions)
        # Each question's own history, where its benchmark declares one (ages per history).
        # Each question's own haystack, where its benchmark lists one, gives its history
        # (ages per history) without a second read; else the history is read as declared.
        read_qids = questions.column("qid").to_pylist()
        index = context.sessions
        haystacks = (
            None
            if index is None
            else {
                str(qid): index.haystack(extra)
                for qid, extra in zip(read_qids, questions.column("extra").to_pylist(), strict=True)
            }
        )
        histories = None if haystacks is None else histories_of(read_qids, haystacks)
        if histories is None:
            histories = read_histories(con, run, read_qids, only=True)
        suggestions = (
            suggestions_from_rows(question_suggestion_rows(con, run.run_id, qids, idx))
            if with_suggestions
            else {}
        )
    channel_qids = channels.column("qid")
    for row, qid in enumerate(questions.column("qid").to_pylist()):
        one_question = questions.slice(row, 1)
        one_evidence = evidence.slice(row, 1)
        ev, scores = evidence_from_table(one_evidence, latest_match(run.benchmark))
        data = RunData(
            run,
            one_question,
            one_evidence,
            ev,
            scores,
            context.n_rounds,
            histories=None if histories is None else histories.rows(slice(row, row + 1)),
        )
        mine = channels.filter(pc.equal(channel_qids, pa.scalar(qid, channel_qids.type)))
        found[str(qid)] = QuestionRead(
            str(qid),
            data,
            rounds,
            mine,
            others.get(str(qid)),
            suggestions.get(str(qid)),
            with_suggestions,
            None if haystacks is None else haystacks.get(str(qid), ()),
        )
    return found


def read_question(
    store: Store,
    context: RunContext,
    qid: str,
    *,
    around: int = CONTEXT_ROUNDS,
    with_suggestions: bool = False,
) -> QuestionRead:
    """One question of the run (see :func:`read_questions`).

    Raises:
        NotFoundError: the run has no question ``qid``.
    """
    found = read_questions(
        store, context, [qid], around=around, with_suggestions=with_suggestions
    ).get(qid)
    if found is None:
        raise NotFoundError(
            f"run {context.run.run_id!r} has no question {qid!r}", where=str(store.path)
        )
    return found


def read_suggestion(store: Store, run_id: str, qid: str) -> Suggestion | None:
    """The stored failure suggestion of one question (rank 1, with the other codes as
    alternatives), None when it has none: for a question read before its run's
    suggestions were stored."""
    return read_suggestions(store, run_id, [qid]).get(qid)


def read_suggestions(store: Store, run_id: str, qids: list[str]) -> dict[str, Suggestion]:
    """The stored failure suggestions of a few questions by qid (those without one are
    left out), in one short read."""
    from memscope.store.suggestions import question_suggestion_rows
    from memscope.usecases.suggest.rules import suggestions_from_rows

    with store.read() as con:
        rows = question_suggestion_rows(con, run_id, qids)
    return suggestions_from_rows(rows)


def _other_rows(con: Any, context: RunContext, questions: pa.Table) -> dict[str, RunData]:
    """Per qid of ``questions`` (``con``: a DuckDB connection, which this layer may not
    name), the compared run's row holding the same question (the n-th
    question with a key paired with the other run's n-th, as ``compare`` pairs them)."""
    other = context.other
    if other is None:
        return {}
    import numpy as np

    from memscope.analysis.evidence import EvidenceSet

    found = {}
    for qid, key, idx in zip(
        questions.column("qid").to_pylist(),
        questions.column("question_key").to_pylist(),
        questions.column("idx").to_pylist(),
        strict=True,
    ):
        if key is None:
            continue
        occurrence = reads.key_occurrence(con, context.run.run_id, key, int(idx))
        row = reads.matching_row(con, other.run_id, key, occurrence)
        if not row.num_rows:
            continue
        empty = np.zeros((1, 0), dtype=np.int64)
        evidence = EvidenceSet(
            ranked_pos=empty,
            ranked_session=empty,
            gold_pos=empty,
            source_sessions=empty,
            has_ranking=np.ones(1, dtype=bool),
            asks_latest=declared_flags(row, latest_match(other.benchmark)),
        )
        found[str(qid)] = RunData(other, row, row.select(["qid"]), evidence, np.zeros((1, 0)), 0)
    return found
