"""Writes runs and their datasets into the store, one transaction per run.

A run is identified by its directory: re-ingesting an unchanged run is a no-op, a changed
one replaces that run's rows. Datasets are shared by content hash, so twenty runs over one
dialog file store its rounds once. Labels live in their own tables and survive a run being
replaced.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from memscope.adapters.registry import benchmark
from memscope.adapters.upstream_summary import CHECK_KEY
from memscope.identity import RUN_LABEL_SEPARATOR, folder_label
from memscope.json_types import JSONObject
from memscope.records import (
    BulkSource,
    DatasetRecord,
    DatasetSource,
    Notice,
    QuestionRecord,
    RoundRecord,
    RunRecord,
    SessionRecord,
)
from memscope.store.connection import rollback_quietly
from memscope.store.loaders.finite import null_non_finite
from memscope.store.loaders.json_dataset import load_dataset, stage_dataset
from memscope.store.loaders.json_lines import load_lines
from memscope.store.loaders.lines import refuse_skips_when_strict
from memscope.store.run_details import replace_run_details
from memscope.store.sql import insert_json_rows, one, rows

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

IngestStatus = Literal["new", "replaced", "unchanged"]


@dataclass
class IngestOutcome:
    """What ingesting one run did."""

    run_id: str
    path: str
    status: IngestStatus
    n_questions: int
    notices: list[Notice] = field(default_factory=list)
    upstream_check: JSONObject | None = None
    """The cross-check against the benchmark's own summary file (``adapters.upstream_summary``)."""


@dataclass(frozen=True)
class StoredRunState:
    """What the store remembers of a run directory, to recognise it unchanged."""

    run_id: str
    content_hash: str
    file_stats: dict[str, list[int]]
    n_questions: int
    path: str = ""
    """Where it was read from (``<dir>`` or ``<dir>#<part>``)."""


def stored_run_state(con: duckdb.DuckDBPyConnection, path: str) -> StoredRunState | None:
    """The stored state of the run ingested from ``path``, if any."""
    row = one(
        con, "SELECT run_id, content_hash, file_stats, n_questions FROM runs WHERE path = ?", [path]
    )
    if row is None:
        return None
    return StoredRunState(row[0], row[1], json.loads(row[2]) if row[2] else {}, row[3] or 0, path)


def stored_run_states(con: duckdb.DuckDBPyConnection) -> dict[str, StoredRunState]:
    """The stored state of every run, by the path it was ingested from (one query, so a
    sweep of hundreds of runs is checked for changes without a query per run)."""
    found = rows(con, "SELECT path, run_id, content_hash, file_stats, n_questions FROM runs")
    return {
        path: StoredRunState(run_id, content_hash, json.loads(stats) if stats else {}, n or 0, path)
        for path, run_id, content_hash, stats, n in found
    }


def stored_parts(con: duckdb.DuckDBPyConnection, folder: str) -> dict[str, StoredRunState]:
    """The stored state of every run read from a part of the directory ``folder``
    (``<folder>#<part>``: one of several runs of its files), by path."""
    found = rows(
        con,
        "SELECT path, run_id, content_hash, file_stats, n_questions FROM runs "
        "WHERE starts_with(path, $f || '#')",
        {"f": folder},
    )
    return {
        path: StoredRunState(run_id, content_hash, json.loads(stats) if stats else {}, n or 0, path)
        for path, run_id, content_hash, stats, n in found
    }


def stored_runs_under(con: duckdb.DuckDBPyConnection, folder: str) -> list[tuple[str, JSONObject]]:
    """``(path, config)`` of every stored run read from the directory ``folder`` (the
    directory itself, a ``<folder>#<system>`` or a results file directly in it)."""
    found = rows(
        con,
        "SELECT path, config FROM runs WHERE path = $f OR starts_with(path, $f || '#') "
        "OR (starts_with(path, $f || '/') AND position('/' IN substr(path, length($f) + 2)) = 0)",
        {"f": folder},
    )
    return [(path, json.loads(config) if config else {}) for path, config in found]


def ingest_run(
    con: duckdb.DuckDBPyConnection, record: RunRecord, *, strict: bool = False
) -> IngestOutcome:
    """Store one run (and its dataset if new) atomically.

    Raises:
        MemscopeError: from the loader for bad input; nothing is written then.
    """
    previous = stored_run_state(con, record.path)
    if previous and previous.content_hash == record.content_hash and not record.reread:
        if previous.file_stats != record.file_stats:
            con.execute(
                "UPDATE runs SET file_stats = ? WHERE run_id = ?",
                [json.dumps(record.file_stats), previous.run_id],
            )
        return IngestOutcome(previous.run_id, record.path, "unchanged", previous.n_questions)
    run_id = previous.run_id if previous else _free_run_id(con, record.run_id, record.path)
    notices = list(record.notices)
    # This connection is the store's only writer, so what it reads here holds inside the
    # transaction below (one query fewer per run of a sweep).
    stored_dataset = one(
        con,
        "SELECT source_path, media_root FROM datasets WHERE dataset_id = ?",
        [record.dataset.dataset_id],
    )
    if stored_dataset is None and isinstance(record.dataset, DatasetSource):
        stage_dataset(con, record.dataset)
    con.begin()
    try:
        _ensure_dataset(con, record.dataset, notices, stored_dataset)
        refuse_skips_when_strict(notices, strict)
        if previous:  # a new run id owns no rows yet: no need to scan the big tables
            for table in ("retrievals", "predictions", "runs"):
                con.execute(f"DELETE FROM {table} WHERE run_id = ?", [run_id])
        n_questions = _load_predictions(con, run_id, record, strict=strict, notices=notices)
        metrics = _with_stored_check(con, run_id, record, notices)
        replace_run_details(
            con,
            run_id,
            record.detail_tables,
            replacing=previous is not None,
            benchmark=record.benchmark,
        )
        con.execute(
            "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, now()::TIMESTAMP, NULL)",
            run_row(run_id, record, n_questions, metrics, notices),
        )
        con.commit()
    except BaseException:
        rollback_quietly(con)
        raise
    check = metrics.get(CHECK_KEY)
    return IngestOutcome(
        run_id,
        record.path,
        "replaced" if previous else "new",
        n_questions,
        notices,
        check if isinstance(check, dict) else None,
    )


def run_row(
    run_id: str,
    record: RunRecord,
    n_questions: int,
    metrics: dict[str, Any],
    notices: list[Notice],
) -> list[Any]:
    """The ``runs`` columns of run ``run_id``, in order, up to its notices (the batched
    ingest and :func:`ingest_run` write the same row)."""
    return [
        run_id,
        record.benchmark,
        record.dataset.dataset_id,
        record.path,
        record.content_hash,
        json.dumps(record.file_stats),
        record.task,
        record.model,
        record.method,
        record.base_method,
        record.modality,
        record.mode,
        record.top_k,
        record.retrieval_kind,
        n_questions,
        json.dumps(record.config, default=str),
        json.dumps(metrics, default=str),
        json.dumps([str(notice) for notice in notices]),
    ]


def _with_stored_check(
    con: duckdb.DuckDBPyConnection, run_id: str, record: RunRecord, notices: list[Notice]
) -> dict[str, Any]:
    """The run's metrics plus the cross-check its benchmark makes of upstream's summary
    against the rows just stored (``Benchmark.check_stored``: a summary file the benchmark writes).

    Benchmarks whose summary can be checked from the files alone check it while reading.
    """
    metrics = dict(record.metrics)
    check_stored = benchmark(record.benchmark).check_stored
    if check_stored is None:
        return metrics

    def stored(columns: Sequence[str]) -> dict[str, float | None]:
        known = {"em", "f1", "bleu_1", "judge", "latency_ms", "total_tokens"}
        wanted = [column for column in columns if column in known]
        means = ", ".join(f"avg({column})" for column in wanted)
        found = one(
            con,
            f"SELECT count(*){', ' if means else ''}{means} FROM predictions WHERE run_id = ?",
            [run_id],
        )
        return dict(zip(("n", *wanted), found or (), strict=False))

    check, found_notices = check_stored(record, stored)
    if check is not None:
        metrics[CHECK_KEY] = check
    notices += found_notices
    return metrics


def store_new_dataset(
    con: duckdb.DuckDBPyConnection, dataset: DatasetSource, notices: list[Notice]
) -> None:
    """Stage and store a dataset the store lacks inside the caller's open transaction, as
    ``ingest_run`` does for the run that brings it (a batch of runs: ``store.ingest_batch``).

    Its reading notices are added to ``notices`` (the run's that brings it). Staging a
    file that needs the untyped retry fails inside a transaction; the caller then rolls
    back and stores the run alone.
    """
    stage_dataset(con, dataset)
    _ensure_dataset(con, dataset, notices, None)


def store_dataset(
    con: duckdb.DuckDBPyConnection, dataset: DatasetRecord | DatasetSource
) -> list[Notice]:
    """Store a dataset on its own (e.g. indexed before any run) unless the store has it.

    It is the dataset writer runs use, so a dataset stored first and the one its runs bring
    later are the same rows. Returns the notices of reading it (empty when it was known).
    """
    notices: list[Notice] = []
    if one(con, "SELECT 1 FROM datasets WHERE dataset_id = ?", [dataset.dataset_id]) is not None:
        return notices
    if isinstance(dataset, DatasetSource):
        stage_dataset(con, dataset)
    con.begin()
    try:
        _ensure_dataset(con, dataset, notices)
        con.commit()
    except BaseException:
        rollback_quietly(con)
        raise
    return notices


def run_folder(path: str) -> Path:
    """The folder whose name a run id starts with: the run directory (``<dir>#<system>``
    for a DMV-Bench system, the results file's folder for a CUE-Mem file)."""
    if "#" in path:
        return Path(path.rpartition("#")[0])
    candidate = Path(path)
    return candidate.parent if candidate.suffix == ".json" else candidate


def _free_run_id(con: duckdb.DuckDBPyConnection, proposed: str, path: str) -> str:
    """``proposed``, or, when another run already uses it, the same id with as many parent
    folders of the run's own folder as make it free (``gpt-5.4-mini/MMMemory:p0``).

    Never ``X-X``: the parts added are the path's own; only a path exhausted without a
    free id (another run chose the same full path as its id) gets a number.
    """
    taken = {row[0] for row in rows(con, "SELECT run_id FROM runs")}
    if proposed not in taken:
        return proposed
    folder = run_folder(path)
    label, _, rest = proposed.partition(":")
    rest = f":{rest}" if rest else ""
    depth = max(1, label.count(RUN_LABEL_SEPARATOR) + 1)
    while True:
        depth += 1
        candidate = folder_label(folder, depth) + rest
        if candidate not in taken:
            return candidate
        if folder_label(folder, depth) == folder.as_posix():
            break
    suffix = 2
    while f"{candidate}-{suffix}" in taken:
        suffix += 1
    return f"{candidate}-{suffix}"


def _load_predictions(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    record: RunRecord,
    *,
    strict: bool,
    notices: list[Notice],
) -> int:
    source = record.predictions
    if isinstance(source, BulkSource):
        return load_lines(
            con, run_id, record.dataset.dataset_id, source, strict=strict, notices=notices
        )
    count = _insert_arrow_predictions(
        con, run_id, record.dataset.dataset_id, source, record.retrievals
    )
    null_non_finite(con, run_id, record.path, notices)
    return count


def _insert_arrow_predictions(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    dataset_id: str,
    predictions: pa.Table,
    retrievals: pa.Table | None,
) -> int:
    """Insert predictions (and retrievals) an adapter built as Arrow tables.

    The tables carry the columns of ``predictions`` / ``retrievals`` without ``run_id``;
    missing columns are stored as NULL. A prediction's ``question_idx`` is its question's
    ``idx`` in the dataset ``dataset_id``.
    """
    _insert_table(con, "predictions", run_id, predictions)
    # Looked up afterwards rather than joined in: the insert keeps the adapter's row order.
    con.execute(
        "UPDATE predictions p SET question_idx = q.idx FROM questions q "
        "WHERE p.run_id = ? AND q.dataset_id = ? AND q.qid = p.qid",
        [run_id, dataset_id],
    )
    if retrievals is not None and retrievals.num_rows:
        _insert_table(con, "retrievals", run_id, retrievals)
    return predictions.num_rows


def _insert_table(con: duckdb.DuckDBPyConnection, table: str, run_id: str, data: pa.Table) -> None:
    columns = [row[0] for row in rows(con, f"DESCRIBE {table}")]
    con.register("memscope_incoming", data)
    try:
        selected = ", ".join(
            "?" if name == "run_id" else (name if name in data.column_names else "NULL")
            for name in columns
        )
        con.execute(f"INSERT INTO {table} SELECT {selected} FROM memscope_incoming", [run_id])
    finally:
        con.unregister("memscope_incoming")


def _ensure_dataset(
    con: duckdb.DuckDBPyConnection,
    dataset: DatasetRecord | DatasetSource,
    notices: list[Notice],
    stored: tuple[Any, ...] | Literal["unknown"] | None = "unknown",
) -> None:
    """Store a dataset unless the store already has it (datasets are shared by content).

    ``stored``: the dataset's stored ``(source_path, media_root)`` or None when the caller
    has just looked (it is looked up otherwise); a known dataset gets its paths updated
    only when they differ. A ``DatasetSource`` must have been staged already (outside the
    transaction).
    """
    if stored == "unknown":
        stored = one(
            con,
            "SELECT source_path, media_root FROM datasets WHERE dataset_id = ?",
            [dataset.dataset_id],
        )
    if stored is not None:
        source_path, media_root = stored
        if source_path != dataset.source_path or (
            dataset.media_root is not None and media_root != dataset.media_root
        ):
            con.execute(
                "UPDATE datasets SET source_path = ?, media_root = coalesce(?, media_root) WHERE dataset_id = ?",
                [dataset.source_path, dataset.media_root, dataset.dataset_id],
            )
        return
    if isinstance(dataset, DatasetSource):
        load_dataset(
            con,
            dataset,
            lambda sessions, rounds: _insert_rounds(con, dataset.dataset_id, sessions, rounds),
            notices,
        )
    else:
        notices += dataset.notices
        _insert_rounds(con, dataset.dataset_id, dataset.sessions, dataset.rounds)
        _insert_questions(con, dataset.dataset_id, dataset.questions)
    counts = one(
        con,
        "SELECT (SELECT count(*) FROM sessions WHERE dataset_id = $d), (SELECT count(*) FROM rounds WHERE dataset_id = $d),"
        " (SELECT count(*) FROM questions WHERE dataset_id = $d)",
        {"d": dataset.dataset_id},
    )
    con.execute(
        "INSERT INTO datasets VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, now()::TIMESTAMP)",
        [
            dataset.dataset_id,
            dataset.benchmark,
            dataset.task,
            dataset.source_path,
            dataset.content_hash,
            dataset.media_root,
            *counts,
        ],
    )


def _insert_rounds(
    con: duckdb.DuckDBPyConnection,
    dataset_id: str,
    sessions: list[SessionRecord],
    rounds: list[RoundRecord],
) -> None:
    _insert_records(con, "sessions", dataset_id, sessions)
    _insert_records(con, "rounds", dataset_id, rounds)


def _insert_questions(
    con: duckdb.DuckDBPyConnection, dataset_id: str, questions: list[QuestionRecord]
) -> None:
    _insert_records(con, "questions", dataset_id, questions)


def _insert_records(
    con: duckdb.DuckDBPyConnection, table: str, dataset_id: str, records: Sequence[object]
) -> None:
    """Insert dataclass records into a dataset table (fields named like its columns are
    stored; an empty ``extra`` dict is NULL)."""
    columns = [row[0] for row in rows(con, f"DESCRIBE {table}") if row[0] != "dataset_id"]
    payload = [{name: getattr(record, name, None) for name in columns} for record in records]
    for item in payload:
        if item.get("extra") == {}:
            item["extra"] = None
    insert_json_rows(con, table, payload, {"dataset_id": dataset_id})
