"""Loading one run from the store into arrays the analysis functions take."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from memscope.analysis.arrays import float_column, pad_lists
from memscope.analysis.evidence import EvidenceSet
from memscope.analysis.history import Histories
from memscope.errors import NotFoundError
from memscope.store import Store, queries
from memscope.usecases.benchmarks import Benchmark, spec_of
from memscope.usecases.runs.declared import declared_flags, latest_match
from memscope.usecases.runs.history import read_histories
from memscope.usecases.runs.question_extras import extra_columns
from memscope.usecases.runs.run_info import RunInfo

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pyarrow as pa

    from memscope.adapters.spec import QuestionMatch


@dataclass
class RunData:
    """Everything the analysis of one run needs, one row per question (ordered by idx)."""

    run: RunInfo
    questions: pa.Table
    evidence_table: pa.Table
    evidence: EvidenceSet
    scores: np.ndarray
    n_rounds: int
    _columns: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    recomputed: np.ndarray | None = field(default=None, repr=False)
    """``(n, P)`` whether each candidate's score was recomputed by the memory engine, where
    the evidence was read compactly (``session_io.read_rerank_data``: ``evidence_table``
    then has no ``origins``); None: from ``evidence_table``'s ``origins``."""
    histories: Histories | None = field(default=None, repr=False)
    """Each question's own history, where its benchmark declares one (``Benchmark.history``);
    None: every question's history is the whole dataset (``n_rounds`` rounds)."""

    def history_sizes(self) -> np.ndarray:
        """``(n,)`` how many rounds each question's history holds (``n_rounds`` each where
        the history is the whole dataset)."""
        if self.histories is not None:
            return self.histories.sizes
        return np.full(self.questions.num_rows, self.n_rounds, dtype=np.int64)

    @property
    def qids(self) -> np.ndarray:
        """The qids, in row order."""
        return self.column("qid")

    def column(self, name: str) -> np.ndarray:
        """A question-table column as numpy (floats keep NaN for null); converted once, then cached.

        The arrays are shared: callers must not modify them.
        """
        cached = self._columns.get(name)
        if cached is None:
            column = self.questions.column(name)
            values = (
                float_column(column)
                if name in ("em", "judge", "f1", "bleu_1", "latency_ms", "total_tokens")
                else column.to_numpy(zero_copy_only=False)
            )
            values.flags.writeable = False
            cached = self._columns[name] = values
        return cached

    @property
    def benchmark(self) -> str:
        """The name of the benchmark the run is from (``runs.benchmark``)."""
        return self.run.benchmark

    @property
    def spec(self) -> Benchmark:
        """The spec of the run's benchmark (``adapters.spec``).

        Raises:
            PluginError: the benchmark is not installed.
        """
        return spec_of(self.benchmark)

    def attribute(self, name: str) -> np.ndarray:
        """A question attribute from its ``extra`` JSON (object array, None where missing)."""
        return extra_columns(self.questions, (name,))[name]

    @property
    def has_retrievals(self) -> bool:
        """Whether the run logged ranked or unranked retrievals."""
        return self.run.has_retrievals

    @property
    def run_id(self) -> str:
        """The run's id."""
        return self.run.run_id

    def hook_view(self, read_sources: Mapping[str, str] | None = None) -> HookColumns:
        """The run as a benchmark's hooks see it (``adapters.spec.RunColumns``);
        ``read_sources``: the read options the store remembers for it, as the row's
        ``read_sources``."""
        return HookColumns(self, read_sources)


class HookColumns:
    """A loaded run seen through ``adapters.spec.RunColumns``: its row as a mapping."""

    def __init__(self, data: RunData, read_sources: Mapping[str, str] | None = None) -> None:
        self._data = data
        self.run: dict[str, object] = dict(data.run.as_row())
        if read_sources:
            self.run = {**self.run, "read_sources": dict(read_sources)}
        self.run_dir = Path(str(self.run.get("path") or "").partition("#")[0])

    def column(self, name: str) -> np.ndarray:
        """A question-table column (floats with NaN for ``em``, ``judge``, ``f1``)."""
        return self._data.column(name)

    def attribute(self, name: str) -> np.ndarray:
        """A question attribute from its ``extra`` (object array, None where missing)."""
        return self._data.attribute(name)


def evidence_from_table(
    table: pa.Table, latest: QuestionMatch | None
) -> tuple[EvidenceSet, np.ndarray]:
    """Build the padded evidence arrays (and the score matrix) from ``evidence_table``;
    ``latest``: the benchmark's declared latest-state questions (``declared.latest_match``)."""
    ranked_pos = pad_lists(table.column("ranked_pos"))
    ranked_session = pad_lists(table.column("ranked_session"))
    scores = pad_lists(table.column("scores"), fill=np.nan, dtype=np.float64)
    gold_pos = pad_lists(table.column("gold_pos"))
    sources = pad_lists(table.column("source_sessions"))
    evidence = EvidenceSet(
        ranked_pos=ranked_pos,
        ranked_session=ranked_session,
        gold_pos=gold_pos,
        source_sessions=sources,
        has_ranking=table.column("has_ranking").to_numpy(zero_copy_only=False).astype(bool),
        asks_latest=declared_flags(table, latest),
    )
    return evidence, scores


def load_run(
    store: Store, run_id: str, *, retrievals: pa.Table | None = None, detail: bool = True
) -> RunData:
    """Read one run's questions and evidence from the store.

    ``retrievals`` (shaped like the ``retrievals`` table without ``run_id``) replaces the
    stored candidate pools, e.g. with the memory engine's re-retrieval. ``detail=False``
    leaves out the question and answer texts, options and rotations (run-level reports).
    """
    with store.read() as con:
        row = queries.get_run(con, run_id)
        if row is None:
            raise NotFoundError(f"no run {run_id!r} in the store", where=str(store.path))
        run = RunInfo.from_row(row)
        question_rows = queries.question_table(con, run_id, detail=detail)
        evidence_rows = queries.evidence_table(con, run_id, retrievals)
        n_rounds = queries.dataset_round_count(con, run.dataset_id)
        histories = read_histories(con, run, question_rows.column("qid").to_pylist())
    evidence, scores = evidence_from_table(evidence_rows, latest_match(run.benchmark))
    return RunData(
        run, question_rows, evidence_rows, evidence, scores, n_rounds, histories=histories
    )


def load_questions(store: Store, run_id: str) -> RunData:
    """A run's questions and answers without its retrieval evidence (fast: the queue
    needs nothing more); :func:`load_evidence` completes it.

    Raises:
        NotFoundError: no such run in the store.
    """
    with store.read() as con:
        return read_questions(con, store, run_id)


def read_questions(con: Any, store: Store, run_id: str, *, detail: bool = True) -> RunData:
    """:func:`load_questions` on a store connection the caller holds (``con``: a DuckDB
    connection, which this layer may not name)."""
    row = queries.get_run(con, run_id)
    if row is None:
        raise NotFoundError(f"no run {run_id!r} in the store", where=str(store.path))
    run = RunInfo.from_row(row)
    questions = queries.question_table(con, run_id, detail=detail)
    n_rounds = queries.dataset_round_count(con, run.dataset_id)
    n = questions.num_rows
    empty = np.zeros((n, 0), dtype=np.int64)
    evidence = EvidenceSet(
        ranked_pos=empty,
        ranked_session=empty,
        gold_pos=empty,
        source_sessions=empty,
        has_ranking=np.ones(n, dtype=bool),
        asks_latest=declared_flags(questions, latest_match(run.benchmark)),
    )
    histories = read_histories(con, run, questions.column("qid").to_pylist())
    return RunData(
        run,
        questions,
        questions.select(["qid"]),
        evidence,
        np.zeros((n, 0)),
        n_rounds,
        histories=histories,
    )
