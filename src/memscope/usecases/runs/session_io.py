"""The store reads and writes behind the app's triage session (``triage/`` reaches the store
only through here, the import-linter contract ``triage-calls-usecases``).

- :func:`read_session_start`: in one connection, what the queue needs to open a run (and
  a second one to compare): the runs' descriptions, the remembered position and the run's
  sample plan; the questions stay in the store (the queue pages them, ``usecases.labels.
  queue_window``). :func:`read_run_data` reads a run's questions whole, for what still
  needs them.
- :func:`read_evidence`: a loaded run completed with its retrieval evidence, the
  per-channel scores of its retrieved rounds and whether ``memscope recompute`` can fill the
  scores it did not log.
- :func:`read_question_context`, :func:`read_questions`: one question at a time
  (``usecases.runs.question_read``): what every read of a run shares, then a few
  questions with their evidence, rounds and the compared run's answer;
  :func:`find_recompute_hint` completes the shared part once the app is idle.
- :func:`read_rerank_data`, :func:`read_run_columns`: the columns the run-level
  re-ranking numbers, the matrix and its figures need, only.
- :func:`read_rounds`, :func:`read_rounds_by_id`, :func:`save_position`, :func:`mark_opened`: the dataset's rounds,
  the remembered queue position, the store's default run.
- :func:`search_memory`: the memory engine's search over a dataset (engine_jobs), the
  store lock taken per connection only.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memscope.engine_jobs.memory_search import EngineStep
from memscope.store import Store, queries
from memscope.store.app_state import AppState, load_app_state, save_app_state
from memscope.store.samples import load_plan
from memscope.usecases.labels.sample import SamplePlan, plan_from_rows
from memscope.usecases.runs.declared import latest_match
from memscope.usecases.runs.loading import RunData, evidence_from_table
from memscope.usecases.runs.loading import read_questions as read_run_questions
from memscope.usecases.runs.question_read import (
    QuestionRead,
    RunContext,
    read_questions,
    read_run_context,
    stored_run_info,
)
from memscope.usecases.runs.run_info import RunInfo

if TYPE_CHECKING:
    import pyarrow as pa

    from memscope.engine_jobs.search import SearchHit

__all__ = [
    "AppState",
    "EngineStep",
    "EvidenceRead",
    "QuestionContext",
    "QuestionRead",
    "RecomputeHint",
    "RunContext",
    "SessionStart",
    "find_recompute_hint",
    "mark_opened",
    "read_evidence",
    "read_question_context",
    "read_questions",
    "read_rerank_data",
    "read_rounds",
    "read_rounds_by_id",
    "read_run_columns",
    "read_run_data",
    "read_session_start",
    "save_position",
    "search_memory",
]


@dataclass(frozen=True)
class SessionStart:
    """What opening a run for triage reads from the store."""

    run: RunInfo
    other: RunInfo | None
    """The compared run, when two runs are opened."""
    saved: AppState | None
    """Where this annotator was in the run's queue last time."""
    sample: SamplePlan | None
    """The run's sample plan, when one was drawn for this version of its files."""


def read_session_start(store: Store, run_ids: list[str], annotator: str) -> SessionStart:
    """Read the description of ``run_ids[0]`` (and ``run_ids[1]``), the annotator's
    remembered position and the run's sample plan in one connection.

    Raises:
        NotFoundError: no such run in the store.
    """
    with store.read() as con:
        run = stored_run_info(con, store, run_ids[0])
        other = stored_run_info(con, store, run_ids[1]) if len(run_ids) > 1 else None
        saved = load_app_state(con, run.run_id, annotator)
        found = load_plan(con, run.run_id)
    sample = (
        plan_from_rows(*found)
        if found is not None and found[0]["run_hash"] == run.content_hash
        else None
    )
    return SessionStart(run, other, saved, sample)


def read_run_data(store: Store, run_id: str, *, detail: bool = True) -> RunData:
    """A run's questions, whole (``detail=False``: without the answer texts, options and
    rotations, which :func:`read_evidence` adds).

    Raises:
        NotFoundError: no such run in the store.
    """
    with store.read() as con:
        return read_run_questions(con, store, run_id, detail=detail)


@dataclass(frozen=True)
class EvidenceRead:
    """What :func:`read_evidence` read beside the evidence it put into the run."""

    channels: pa.Table
    """Per retrieved round, its per-channel scores (``store.queries.retrieval_channels``)."""
    recompute_hint: str | None
    """The sentence pointing to ``memscope recompute RUN``, None where it cannot work here."""


def read_evidence(store: Store, data: RunData) -> EvidenceRead:
    """Complete ``data`` (read without its evidence) with its retrieval evidence and its
    questions' answers, options and rotations, in place."""
    from memscope.engine_jobs.gap_fill import recompute_hint

    run_id = data.run_id
    with store.read() as con:
        table = queries.evidence_table(con, run_id)
        channels = queries.retrieval_channels(con, run_id)
        if "pred" not in data.questions.column_names:
            data.questions = queries.question_table(con, run_id)
            data._columns.clear()
    data.evidence, data.scores = evidence_from_table(table, latest_match(data.benchmark))
    data.evidence_table = table
    return EvidenceRead(channels, recompute_hint(store, run_id))


def read_run_columns(store: Store, run_id: str, *, evidence: bool) -> RunData:
    """A run's question and answer scores, axes and attributes (no question or answer
    text), with its retrieval evidence when ``evidence``: what a run-level number (the
    matrix, a figure) needs, read for that computation; the same reads as ``memscope plot``.

    Raises:
        NotFoundError: no such run in the store.
    """
    from memscope.usecases.runs.loading import load_run

    if evidence:
        return load_run(store, run_id, detail=False)
    with store.read() as con:
        return read_run_questions(con, store, run_id, detail=False)


RERANK_READ_QUESTIONS = 6_144
"""Questions of a run (of every level) whose evidence :func:`read_rerank_data` reads at a
time: one chunk's Arrow lists alive at once."""


def read_rerank_data(store: Store, run_id: str, *, chunk: int = RERANK_READ_QUESTIONS) -> RunData:
    """What the run-level re-ranking numbers (``rerun.run_rerank.rerun_run``) and the recency
    sweep need of a run, and nothing more: its description, the retrieval evidence of its
    declared latest-state questions (the only ones re-ranked; with each one's qid and Y
    level; all of them where the benchmark does not declare them by one Y level), padded to the
    whole run's pool width (the result reports it), and its dataset's round count; no
    question or answer text. The caller computes with it and drops it.

    The evidence is read ``chunk`` questions at a time into narrow numpy arrays
    (``runs.compact_evidence``), with the candidates' recomputed-score flags in
    ``RunData.recomputed``; ``evidence_table`` holds only the qids and Y levels, so this
    data serves the run-level numbers, not ``rerun_question``.

    Raises:
        NotFoundError: no such run in the store.
    """
    from memscope.store.evidence_reads import evidence_chunks
    from memscope.usecases.runs.compact_evidence import compact_evidence
    from memscope.usecases.runs.declared import latest_level
    from memscope.usecases.runs.history import read_histories

    with store.read() as con:
        run = stored_run_info(con, store, run_id)
        n_rounds = queries.dataset_round_count(con, run.dataset_id)
        # Only the benchmark's declared latest-state questions count here; the store
        # filters them where they are one Y level (MemEye's), else every one is read.
        latest = latest_match(run.benchmark)
        chunks = evidence_chunks(con, run_id, y=latest_level(latest), questions=chunk)
        compact = compact_evidence(chunks, latest)
        histories = read_histories(con, run, compact.questions.column("qid").to_pylist())
    return RunData(
        run,
        compact.questions,
        compact.questions,
        compact.evidence,
        compact.scores,
        n_rounds,
        recomputed=compact.recomputed,
        histories=histories,
    )


def read_rounds(store: Store, dataset_id: str) -> pa.Table:
    """The dataset's rounds (``store.queries.rounds_table``)."""
    with store.read() as con:
        return queries.rounds_table(con, dataset_id)


def read_rounds_by_id(store: Store, dataset_id: str, round_ids: list[str]) -> pa.Table:
    """Some rounds of a dataset (``store.queries.rounds_table`` columns), in dialogue order."""
    from memscope.store.question_reads import rounds_at

    with store.read() as con:
        return rounds_at(con, dataset_id, round_ids=round_ids)


class RecomputeHint:
    """The sentence pointing to ``memscope recompute RUN`` for a run's questions, found out
    after they are read (:func:`find_recompute_hint`: it looks the run's models up with the
    memory engine, a second and 20 MiB of imports): None until then, and where recompute
    cannot work on this machine."""

    def __init__(self, text: str | None = None, *, known: bool = False) -> None:
        self.text = text
        self.known = known


@dataclass(frozen=True)
class QuestionContext:
    """What the question reads of one run share (read once per session)."""

    run: RunContext
    recompute_hint: RecomputeHint
    """Whether ``memscope recompute`` can fill the run's missing scores here (found out
    later: :func:`find_recompute_hint`)."""


def read_question_context(
    store: Store, run_id: str, other_run_id: str | None = None
) -> QuestionContext:
    """The run's description and round count (and the compared run's).

    Raises:
        NotFoundError: no such run in the store.
    """
    with store.reading():
        return QuestionContext(read_run_context(store, run_id, other_run_id), RecomputeHint())


def find_recompute_hint(store: Store, run_id: str, hint: RecomputeHint) -> None:
    """Fill ``hint`` for ``run_id``: whether ``memscope recompute`` can fill its missing
    scores here (worker thread)."""
    from memscope.engine_jobs.gap_fill import recompute_hint

    hint.text, hint.known = recompute_hint(store, run_id), True


def save_position(store: Store, state: AppState) -> None:
    """Remember where the annotator is in a run's queue."""
    with store.write() as con:
        save_app_state(con, state)


def mark_opened(store: Store, run_id: str) -> None:
    """Make ``run_id`` the store's default run (``memscope report`` without a run)."""
    with store.write() as con:
        queries.mark_opened(con, run_id)


def search_memory(
    store: Store,
    lock: AbstractContextManager[object],
    dataset_id: str,
    *,
    query: str | None,
    round_id: str | None,
    k: int,
    on_step: Callable[[EngineStep], None],
) -> list[SearchHit]:
    """``engine_jobs.memory_search.run_memory_search``: rounds matching ``query``, or looking
    like ``round_id``'s images; ``lock`` is taken per store connection only."""
    from memscope.engine_jobs import memory_search  # looked up at call time: tests replace it

    return memory_search.run_memory_search(
        store, lock, dataset_id, query=query, round_id=round_id, k=k, on_step=on_step
    )
