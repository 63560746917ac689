"""Loading many runs at once: the same ``RunData`` as ``loading.load_run``, in a few queries.

``table`` over a sweep, ``compare`` over folders and ``report`` over several runs need
every selected run's questions and evidence. Reading them run by run costs a handful of
queries each; here each table is read once for all runs (``store/queries_batch.py``) and
cut into runs with Arrow slices, so the numbers are those of ``load_run``, row for row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from memscope.analysis.arrays import pad_lists
from memscope.analysis.evidence import EvidenceSet
from memscope.errors import NotFoundError
from memscope.store import Store
from memscope.store.evidence_batch import assemble_runs_evidence
from memscope.store.queries_batch import (
    dataset_round_counts,
    evidence_sources,
    question_tables,
    runs_by_id,
)
from memscope.usecases.benchmarks import spec_of
from memscope.usecases.runs.declared import declared_flags, latest_match
from memscope.usecases.runs.history import read_histories
from memscope.usecases.runs.loading import RunData, evidence_from_table
from memscope.usecases.runs.run_info import RunInfo

if TYPE_CHECKING:
    from memscope.adapters.spec import QuestionMatch


def load_runs(store: Store, run_ids: Sequence[str], *, detail: bool = True) -> list[RunData]:
    """Every run of ``run_ids`` (in that order, each once per mention) as ``load_run``
    reads it, with one store connection and one query per table for them all.

    Raises:
        NotFoundError: a run is not in the store (the first one missing is named).
        PluginError: a run's benchmark is not installed.
    """
    wanted = list(dict.fromkeys(run_ids))
    if not wanted:
        return []
    with store.reading():  # one connection for every read below
        runs, questions = _question_tables(store, wanted, detail=detail)
        with store.read() as con:
            evidence_questions, rounds, sessions, retrievals = evidence_sources(con, wanted)
            dataset_ids = list(dict.fromkeys(runs[run_id]["dataset_id"] for run_id in wanted))
            n_rounds = dataset_round_counts(con, dataset_ids)
            histories = {
                run_id: read_histories(
                    con, RunInfo.from_row(runs[run_id]), questions[run_id].column("qid").to_pylist()
                )
                for run_id in wanted
            }
    dataset_of = {run_id: runs[run_id]["dataset_id"] for run_id in wanted}
    evidence_of = assemble_runs_evidence(
        evidence_questions, rounds, sessions, retrievals, dataset_of
    )
    arrays = _evidence_arrays(
        [evidence_of[run_id] for run_id in wanted],
        [latest_match(runs[run_id]["benchmark"]) for run_id in wanted],
    )
    loaded: dict[str, RunData] = {}
    for run_id, (evidence, scores) in zip(wanted, arrays, strict=True):
        loaded[run_id] = RunData(
            RunInfo.from_row(runs[run_id]),
            questions[run_id],
            evidence_of[run_id],
            evidence,
            scores,
            n_rounds[dataset_of[run_id]],
            histories=histories[run_id],
        )
    return [loaded[run_id] for run_id in run_ids]


# Padding every run's lists into one matrix wastes (rows × widest) cells on runs with
# shorter lists: beyond this many cells more than the runs' own, each is padded alone.
SHARED_PADDING_SLACK = 1 << 20


def _evidence_arrays(
    tables: list[pa.Table], latest: list[QuestionMatch | None]
) -> list[tuple[EvidenceSet, np.ndarray]]:
    """``evidence_from_table`` of each evidence table (``latest``: each run's declared
    latest-state questions), their lists padded in one pass.

    Each run's matrices are its rows of the shared ones, cut to its own longest list: the
    arrays ``evidence_from_table`` gives it alone (``tests/unit/test_batch_loading.py``).
    """
    import pyarrow.compute as pc

    sizes = np.array([table.num_rows for table in tables], dtype=np.int64)
    if not sizes.sum():
        return [
            evidence_from_table(table, match) for table, match in zip(tables, latest, strict=True)
        ]
    whole = pa.concat_tables(tables)
    stops = np.cumsum(sizes)
    starts = stops - sizes
    filled = np.flatnonzero(sizes)

    def padded(name: str, **fill: Any) -> list[np.ndarray]:
        column = whole.column(name).combine_chunks()
        lengths = pc.fill_null(pc.list_value_length(column), 0).to_numpy(zero_copy_only=False)
        widths = np.zeros(len(tables), dtype=np.int64)
        widths[filled] = np.maximum.reduceat(lengths, starts[filled])
        own_cells = int((sizes * widths).sum())
        if whole.num_rows * int(widths.max()) > own_cells + SHARED_PADDING_SLACK:
            return [pad_lists(table.column(name), **fill) for table in tables]
        matrix = pad_lists(column, **fill)
        return [
            matrix[start:stop, :width].copy()
            for start, stop, width in zip(starts, stops, widths, strict=True)
        ]

    ranked_pos = padded("ranked_pos")
    ranked_session = padded("ranked_session")
    scores = padded("scores", fill=np.nan, dtype=np.float64)
    gold_pos = padded("gold_pos")
    sources = padded("source_sessions")
    has_ranking = whole.column("has_ranking").to_numpy(zero_copy_only=False).astype(bool)
    return [
        (
            EvidenceSet(
                ranked_pos=ranked_pos[run],
                ranked_session=ranked_session[run],
                gold_pos=gold_pos[run],
                source_sessions=sources[run],
                has_ranking=has_ranking[start:stop].copy(),
                asks_latest=declared_flags(tables[run], latest[run]),
            ),
            scores[run],
        )
        for run, (start, stop) in enumerate(zip(starts, stops, strict=True))
    ]


def load_question_tables(
    store: Store, run_ids: Sequence[str], *, detail: bool = True
) -> list[tuple[RunInfo, pa.Table]]:
    """Each run of ``run_ids`` (in that order, each once per mention) as its description
    and ``queries.question_table``, with one store connection and one query for them all
    (``compare`` needs no evidence).

    Raises:
        NotFoundError: a run is not in the store (the first one missing is named).
        PluginError: a run's benchmark is not installed.
    """
    wanted = list(dict.fromkeys(run_ids))
    if not wanted:
        return []
    runs, questions = _question_tables(store, wanted, detail=detail)
    return [(RunInfo.from_row(runs[run_id]), questions[run_id]) for run_id in run_ids]


def _question_tables(
    store: Store, wanted: list[str], *, detail: bool
) -> tuple[dict[str, dict[str, Any]], dict[str, pa.Table]]:
    """The stored description and ``queries.question_table`` of every run of ``wanted``
    (one query per column set); the first run missing is refused."""
    with store.read() as con:
        runs = runs_by_id(con, wanted)
        missing = next((run_id for run_id in wanted if run_id not in runs), None)
        if missing is not None:
            raise NotFoundError(f"no run {missing!r} in the store", where=str(store.path))
        # A benchmark whose predictions carry attributes of their own adds a column: its
        # runs are read apart, so every run's table has exactly its own columns.
        with_extra = [
            run_id for run_id in wanted if spec_of(runs[run_id]["benchmark"]).own_attributes
        ]
        without_extra = [run_id for run_id in wanted if run_id not in set(with_extra)]
        questions: dict[str, pa.Table] = {}
        for group, extra in ((without_extra, False), (with_extra, True)):
            if group:
                table = question_tables(con, group, detail=detail, prediction_extra=extra)
                questions.update(_split(table, "run_id", group))
    return runs, questions


def _split(table: pa.Table, key: str, keys: Sequence[str]) -> dict[str, pa.Table]:
    """The rows of each of ``keys`` in ``table`` (sorted by ``key``), without the ``key``
    column: zero-copy slices, an empty table for a key without rows."""
    import pyarrow.compute as pc

    column = table.column(key).combine_chunks()
    rest = table.drop_columns([key])
    spans: dict[str, tuple[int, int]] = {}
    n = len(column)
    if n:
        # Where the key changes, in Arrow (no Python object per row).
        changes = pc.not_equal(column.slice(1), column.slice(0, n - 1))
        starts = np.concatenate(([0], np.flatnonzero(changes.to_numpy(zero_copy_only=False)) + 1))
        stops = np.append(starts[1:], n)
        names = column.take(pa.array(starts)).to_pylist()
        spans = {
            str(name): (int(start), int(stop - start))
            for name, start, stop in zip(names, starts, stops, strict=True)
        }
    return {name: rest.slice(*spans.get(name, (0, 0))) for name in keys}
