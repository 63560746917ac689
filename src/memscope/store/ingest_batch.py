"""Ingests many new runs at once: one staged read, set-based checks, one insert per table.

A paper's sweep is hundreds of small runs, and the per-run path (``store.ingest.ingest_run``)
pays a dozen statements of milliseconds each per run whatever its size. Here the
predictions files of a batch of runs are staged by one DuckDB ``read_json`` (the file name
a column), checked by one query grouped by run, and inserted with one ``INSERT … SELECT``
per table, in one transaction.

Only the plain case is batched: a new run (no stored run has its path or its id) whose
per-question file has a declared format (a :class:`~memscope.record_formats.LinesFormat`,
the same one as the batch's other runs), without a ``retrieval.jsonl`` sidecar, detail
tables or notices, read from
a regular file whose path has no glob character, whose dataset the store holds with the
paths every run of the batch names, or lacks and gets from the first of its runs (stored in
the batch with that run's notices, as ``ingest_run`` stores it). Any run whose checks find
anything (a bad line, a duplicate or unknown ``idx``, a question that differs from the
dataset's, candidates out of ranking order, a ranked row without a ranking, a non-finite
number, no rows) is left out of the batch, and so is every run of a batch that fails for
another reason: the caller ingests those alone with ``ingest_run``, which reports them
exactly as before. A batched run ends up in the store as ``ingest_run`` puts it, whatever
the order of the runs left out (``tests/unit/test_ingest_batch.py`` compares both row for
row).
"""

from __future__ import annotations

import os
import stat
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memscope.adapters.registry import benchmark
from memscope.adapters.upstream_summary import CHECK_KEY
from memscope.errors import MemscopeError
from memscope.record_formats import LinesFormat
from memscope.records import BulkSource, DatasetSource, Notice, RunRecord
from memscope.store.connection import rollback_quietly
from memscope.store.ingest import IngestOutcome, run_row, store_new_dataset
from memscope.store.literal_files import GLOB_CHARACTERS
from memscope.store.loaders.finite import METRIC_COLUMNS
from memscope.store.loaders.lines_sql import (
    candidate_members,
    check_format,
    column_value,
    columns_literal,
    prediction_values,
    qid_sql,
    quoted,
    ranked_retrievals_sql,
    row_problem_sql,
    unaligned,
    unranked_retrievals_sql,
)
from memscope.store.sql import rows

if TYPE_CHECKING:
    import duckdb

STORED_MEANS = ("em", "f1", "bleu_1", "judge", "latency_ms", "total_tokens")
"""The columns a benchmark's ``check_stored`` may ask the mean of (as ``ingest_run`` knows)."""
_NORMALIZED = "regexp_replace(trim({}), '\\s+', ' ', 'g')"
_STAGED = ("batch_runs", "batch_rows")


@dataclass
class BatchResult:
    """What a batch did: the outcome of each run it stored, by its position among the
    records given, and the positions of the runs left to the per-run path (in order)."""

    outcomes: dict[int, IngestOutcome] = field(default_factory=dict)
    left_out: list[int] = field(default_factory=list)
    openers_alone: bool = False
    """True when a run that was to store a new dataset in the batch was left out: nothing
    was stored, and the caller ingests the first run of each new dataset alone first
    (:func:`first_of_new_datasets`), then the rest in a batch again."""


class _OpenerLeftOut(Exception):
    """A run that brings a new dataset was left out of the batch (rolled back)."""


def batchable(record: RunRecord) -> bool:
    """Whether the record is of the plain kind a batch takes (before looking at the store)."""
    source = record.predictions
    if not isinstance(source, BulkSource) or not isinstance(source.loader, LinesFormat):
        return False
    try:
        check_format(source.loader)
    except MemscopeError:
        return False  # the per-run path refuses it, saying why
    if source.options.get("sidecar"):
        return False
    if record.notices or record.detail_tables or record.retrievals is not None:
        return False
    path = str(source.path)
    # DuckDB expands glob characters in a path; such a file goes the per-run way, which
    # hands DuckDB the file itself (store.literal_files).
    if not os.path.isabs(path) or any(char in path for char in GLOB_CHARACTERS):
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)  # never hand DuckDB a FIFO to block on
    except OSError:
        return False


def ingest_batch(
    con: duckdb.DuckDBPyConnection, records: Sequence[RunRecord], *, strict: bool = False
) -> BatchResult:
    """Store every plain new run of ``records`` in one transaction; leave out the others.

    A dataset the store lacks is stored in the batch by the run that would store it when
    every run is ingested alone (the first of its runs here), with that run's notices,
    when that run is plain too (and not ``strict``: a refusal of the dataset's skipped
    records is the per-run path's to make).

    Args:
        con: The store's write connection, with no transaction open.
        records: Runs read by their adapters (one per run directory, ids settled), in the
            order they would be ingested one by one.
        strict: ``--strict``.

    Returns:
        The outcomes of the runs stored and the positions of those left out, which the
        caller ingests one by one with ``ingest_run`` (the reasons are its to report).
    """
    result = BatchResult()
    chosen, openers = _chosen(con, records, new_datasets=not strict)
    result.left_out = [index for index in range(len(records)) if index not in chosen]
    if not chosen:
        return result
    try:
        stored = _store(con, {index: records[index] for index in chosen}, openers)
    except _OpenerLeftOut:
        rollback_quietly(con)
        stored = {}
        result.openers_alone = True
    except Exception:
        # Whatever went wrong, the per-run path meets it again and reports it as today.
        rollback_quietly(con)
        stored = {}
    except BaseException:  # an interrupt: nothing of the batch stays, nothing masks it
        rollback_quietly(con)
        raise
    # After a rollback the staging tables are gone with the transaction that made them.
    con.execute("; ".join(f"DROP TABLE IF EXISTS {table}" for table in _STAGED))
    result.outcomes = stored
    result.left_out = [index for index in range(len(records)) if index not in stored]
    return result


def first_of_new_datasets(
    con: duckdb.DuckDBPyConnection, records: Sequence[RunRecord]
) -> list[int]:
    """The positions of the first record (batchable or not) of each dataset the store lacks.

    A batch takes only runs whose dataset is stored: the caller ingests these alone first,
    in order, so that each dataset is stored by the run that stores it when every run is
    ingested alone (in that run's transaction, with its notices), and the runs after them
    can go in a batch.
    """
    first: dict[str, int] = {}
    for index, record in enumerate(records):
        first.setdefault(record.dataset.dataset_id, index)
    if not first:
        return []
    stored = {
        row[0]
        for row in rows(
            con,
            "SELECT dataset_id FROM datasets WHERE dataset_id IN (SELECT unnest(?::VARCHAR[]))",
            [sorted(first)],
        )
    }
    return sorted(index for dataset_id, index in first.items() if dataset_id not in stored)


def _chosen(
    con: duckdb.DuckDBPyConnection, records: Sequence[RunRecord], *, new_datasets: bool
) -> tuple[list[int], list[int]]:
    """The positions of the records a batch may take, given what the store holds, and of
    those among them that store a new dataset (with ``new_datasets``).

    What a batched run leaves out must not depend on the order the runs are stored in, as
    the runs left out are stored after the batch: so a run is batched only when its dataset
    is stored with the paths every run of it here names (the per-run path rewrites the
    stored paths, last run winning) or is new and brought by a batched run (the first of
    its runs here, whose paths every other one names), and its id is proposed by no other
    run here.
    """
    candidates = [index for index, record in enumerate(records) if batchable(record)]
    if not candidates:
        return [], []
    # One staged table holds the rows of one format: runs of another go the per-run way.
    fmt = _format(records[candidates[0]])
    candidates = [index for index in candidates if _format(records[index]) is fmt]
    taken_ids: set[str] = set()
    taken_paths: set[str] = set()
    for run_id, path in rows(con, "SELECT run_id, path FROM runs"):
        taken_ids.add(run_id)
        taken_paths.add(path)
    wanted = sorted({record.dataset.dataset_id for record in records})
    datasets = {
        dataset_id: (source_path, media_root)
        for dataset_id, source_path, media_root in rows(
            con,
            "SELECT dataset_id, source_path, media_root FROM datasets "
            "WHERE dataset_id IN (SELECT unnest(?::VARCHAR[]))",
            [wanted],
        )
    }
    stored_datasets = set(datasets)
    openers: dict[str, int] = {}  # a new dataset: the first of its runs here
    for index, record in enumerate(records):
        if record.dataset.dataset_id not in datasets:
            openers.setdefault(record.dataset.dataset_id, index)
    if new_datasets:
        for dataset_id, index in openers.items():
            dataset = records[index].dataset
            if batchable(records[index]) and isinstance(dataset, DatasetSource):
                datasets[dataset_id] = (dataset.source_path, dataset.media_root)
    moved = {  # datasets that some run here names with other paths than the stored ones
        record.dataset.dataset_id
        for record in records
        if (known := datasets.get(record.dataset.dataset_id)) is not None
        and (
            known[0] != record.dataset.source_path
            or (record.dataset.media_root is not None and known[1] != record.dataset.media_root)
        )
    }
    ids = Counter(record.run_id for record in records)
    files = Counter(str(_source(records[index]).path) for index in candidates)
    chosen = []
    for index in candidates:
        record = records[index]
        dataset_id = record.dataset.dataset_id
        if (
            dataset_id not in datasets
            or dataset_id in moved
            or record.path in taken_paths
            or record.run_id in taken_ids
            or ids[record.run_id] > 1
            or files[str(_source(record).path)] > 1
        ):
            continue
        chosen.append(index)
    # A new dataset is stored by the batch only with its first run.
    bringing = {dataset_id for dataset_id, index in openers.items() if index in chosen}
    chosen = [
        index
        for index in chosen
        if records[index].dataset.dataset_id in stored_datasets
        or records[index].dataset.dataset_id in bringing
    ]
    return chosen, sorted(openers[dataset_id] for dataset_id in bringing)


def _source(record: RunRecord) -> BulkSource:
    source = record.predictions
    assert isinstance(source, BulkSource)  # batchable() took only these
    return source


def _format(record: RunRecord) -> LinesFormat:
    fmt = _source(record).loader
    assert isinstance(fmt, LinesFormat)  # batchable() took only these
    return fmt


def _store(
    con: duckdb.DuckDBPyConnection, batch: dict[int, RunRecord], openers: list[int]
) -> dict[int, IngestOutcome]:
    """Stage, check and insert the runs of ``batch``, the datasets the ``openers`` bring
    first; the outcomes of the runs stored.

    Raises:
        _OpenerLeftOut: when the checks leave out a run that brings a dataset.
    """
    by_run = {record.run_id: index for index, record in batch.items()}
    files = [str(_source(record).path) for record in batch.values()]
    fmt = _format(next(iter(batch.values())))  # _chosen took runs of one format
    con.begin()
    dataset_notices: dict[int, list[Notice]] = {}
    for index in openers:
        dataset = batch[index].dataset
        assert isinstance(dataset, DatasetSource)  # _chosen took only these
        dataset_notices[index] = []
        store_new_dataset(con, dataset, dataset_notices[index])
    con.execute(
        "CREATE OR REPLACE TEMP TABLE batch_runs AS SELECT unnest(?::VARCHAR[]) AS file, "
        "unnest(?::VARCHAR[]) AS run_id, unnest(?::VARCHAR[]) AS dataset_id, "
        "unnest(?::VARCHAR[]) AS kind",
        [
            files,
            [record.run_id for record in batch.values()],
            [record.dataset.dataset_id for record in batch.values()],
            [_source(record).options.get("retrieval_kind") for record in batch.values()],
        ],
    )
    staged_qid = qid_sql(fmt, f"TRY_CAST({quoted(fmt.key, 's.')} AS BIGINT)")
    # One read of every file; a row's ordinal within its file is the per-run path's `ord`
    # (DuckDB reads the files in order, each one's rows in order: the check below refuses
    # a run whose ordinals are not one unbroken range).
    con.execute(
        "CREATE OR REPLACE TEMP TABLE batch_rows AS "
        "SELECT b.run_id, b.dataset_id, b.kind, "
        "(s.ordinality - min(s.ordinality) OVER (PARTITION BY s.filename) + 1)::BIGINT AS ord, "
        f"{staged_qid} AS qid, "
        "s.* EXCLUDE (filename, ordinality) "
        "FROM (SELECT * FROM read_json(?, format = 'newline_delimited', "
        f"columns = {columns_literal(fmt)}, ignore_errors = true, maximum_object_size = 268435456, "
        "filename = true) WITH ORDINALITY) s JOIN batch_runs b ON b.file = s.filename",
        [files],
    )
    counts = _clean_runs(con, fmt)
    troubled = [run_id for run_id in by_run if run_id not in counts]
    if any(batch[index].run_id in troubled for index in openers):
        raise _OpenerLeftOut
    if troubled:
        con.execute(
            "DELETE FROM batch_rows WHERE run_id IN (SELECT unnest(?::VARCHAR[]))", [troubled]
        )
    if not counts:
        rollback_quietly(con)
        return {}
    kept = {run_id: by_run[run_id] for run_id in by_run if run_id in counts}
    con.execute(
        f"INSERT INTO predictions SELECT {prediction_values(fmt, 'r.run_id', 'r.qid', 'k.known_idx')} "
        "FROM batch_rows r LEFT JOIN (SELECT dataset_id AS known_dataset, qid AS known_qid, "
        "idx AS known_idx FROM questions) k ON k.known_dataset = r.dataset_id "
        "AND k.known_qid = r.qid ORDER BY r.run_id, r.ord"
    )
    kinds = {_source(batch[index]).options.get("retrieval_kind") for index in kept.values()}
    if "ranked" in kinds and fmt.ranked is not None:
        con.execute(
            "INSERT INTO retrievals "
            + ranked_retrievals_sql(
                fmt, "r.run_id", "r.qid", "batch_rows r WHERE r.kind = 'ranked'"
            )
        )
    if "unranked" in kinds and fmt.unranked_ids is not None:
        con.execute(
            "INSERT INTO retrievals "
            + unranked_retrievals_sql(
                fmt,
                "r.run_id",
                "r.qid",
                "batch_rows r WHERE r.kind = 'unranked'",
                partition="PARTITION BY r.run_id",
            )
        )
    outcomes: dict[int, IngestOutcome] = {}
    run_rows: list[list[Any]] = []
    for run_id, index in kept.items():
        record = batch[index]
        n_questions, means = counts[run_id]
        metrics, checked = _checked_metrics(record, n_questions, means)
        notices = dataset_notices.get(index, []) + checked  # as ingest_run orders them
        run_rows.append(run_row(record.run_id, record, n_questions, metrics, notices))
        check = metrics.get(CHECK_KEY)
        outcomes[index] = IngestOutcome(
            run_id,
            record.path,
            "new",
            n_questions,
            notices,
            check if isinstance(check, dict) else None,
        )
    _insert_runs(con, run_rows)
    con.commit()
    return outcomes


def _clean_runs(
    con: duckdb.DuckDBPyConnection, fmt: LinesFormat
) -> dict[str, tuple[int, dict[str, float | None]]]:
    """Every staged run whose checks find nothing: its row count and stored means.

    One query over the batch; anything that the per-run path would report (a notice, a
    skipped row, a refusal) or fix up makes a run troubled, and it is left out.
    """
    metrics = [column_value(fmt, name, "r.") for name in METRIC_COLUMNS]
    not_finite_metric = " OR ".join(
        f"NOT isfinite({value})" for value in metrics if value != "NULL"
    )
    troubles = [
        "count(*) FILTER (WHERE r.problem IS NOT NULL)",
        "count(*) - count(DISTINCT r.qid)",  # duplicates (a NULL qid is a problem above)
        "count(*) FILTER (WHERE q.qid IS NULL)",  # a key without a question
        f"count(*) FILTER (WHERE {not_finite_metric or 'FALSE'})",
        "max(r.ord) - count(*)",  # ordinals not one unbroken range
    ]
    if fmt.question_field is not None:
        asked = quoted(fmt.question_field, "r.")
        row_text = _NORMALIZED.format(f"{asked} ->> '$'")
        dataset_text = _NORMALIZED.format("q.question")
        troubles.append(
            f"count(*) FILTER (WHERE {asked} IS NOT NULL AND NOT starts_with({row_text}, {dataset_text}))"
        )
    ranked = fmt.ranked
    if ranked is not None:
        troubles.append(
            f"count(*) FILTER (WHERE r.kind = 'ranked' AND ({unaligned(fmt)} "
            f"OR {quoted(ranked.ids, 'r.')} IS NULL))"
        )
    if ranked is not None and ranked.candidates is not None and candidate_members(fmt):
        not_finite_candidate = " OR ".join(
            f"NOT isfinite({quoted(name, 'c.')})" for name in candidate_members(fmt)
        )
        troubles.append(
            f"count(*) FILTER (WHERE list_count(list_filter({quoted(ranked.candidates, 'r.')}, "
            f"lambda c: {not_finite_candidate})) > 0)"
        )
    means = ", ".join(f"avg({_stored(fmt, name)})" for name in STORED_MEANS)
    found = rows(
        con,
        f"SELECT r.run_id, count(*), {' + '.join(f'coalesce({t}, 1)' for t in troubles)}, {means} "
        f"FROM (SELECT *, {row_problem_sql(fmt)} AS problem FROM batch_rows) r "
        "LEFT JOIN questions q ON q.dataset_id = r.dataset_id AND q.qid = r.qid "
        "GROUP BY r.run_id",
    )
    return {
        run_id: (n, dict(zip(STORED_MEANS, values, strict=True)))
        for run_id, n, trouble, *values in found
        if trouble == 0
    }


def _stored(fmt: LinesFormat, column: str) -> str:
    """The staged expression of stored column ``column`` whose mean ``check_stored`` reads."""
    value = column_value(fmt, column, "r.")
    return "NULL::DOUBLE" if value == "NULL" else value


def _checked_metrics(
    record: RunRecord, n_questions: int, means: dict[str, float | None]
) -> tuple[dict[str, Any], list[Notice]]:
    """The run's metrics plus its benchmark's cross-check of upstream's summary (as
    ``store.ingest._with_stored_check`` makes it), from the batch's means."""
    metrics = dict(record.metrics)
    check_stored = benchmark(record.benchmark).check_stored
    if check_stored is None:
        return metrics, []

    def stored(columns: Sequence[str]) -> dict[str, float | None]:
        wanted = [column for column in columns if column in STORED_MEANS]
        return {"n": n_questions, **{column: means[column] for column in wanted}}

    check, notices = check_stored(record, stored)
    if check is not None:
        metrics[CHECK_KEY] = check
    return metrics, list(notices)


RUN_COLUMN_TYPES = (
    *["VARCHAR"] * 12,  # run_id … mode (file_stats as JSON text)
    "INTEGER",  # top_k
    "VARCHAR",  # retrieval_kind
    "INTEGER",  # n_questions
    *["VARCHAR"] * 3,  # config, metrics, notices (JSON text)
)
"""The types of the ``runs`` columns :func:`~memscope.store.ingest.run_row` fills, in order (JSON ones as text,
cast on insert as ``ingest_run``'s parameters are)."""


def _insert_runs(con: duckdb.DuckDBPyConnection, run_rows: list[list[Any]]) -> None:
    """Insert the batch's ``runs`` rows in one statement (a list per column, unnested)."""
    columns = [list(column) for column in zip(*run_rows, strict=True)]
    unnested = ", ".join(f"unnest(?::{kind}[])" for kind in RUN_COLUMN_TYPES)
    con.execute(f"INSERT INTO runs SELECT {unnested}, now()::TIMESTAMP, NULL", columns)
