"""Label events in the store: append, read back, and export with DuckDB's COPY.

Label events are append-only: nothing here updates or deletes one. Times are UTC, stored
as naive ``TIMESTAMP``; they are read back in the order they happened (time, then event
id) and exported with an explicit ``Z`` (jsonl, csv) or as UTC instants (parquet).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memscope.store.sql import one, rows

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

EVENT_COLUMNS = (
    "event_id",
    "run_id",
    "run_hash",
    "qid",
    "question_key",
    "action",
    "codes",
    "primary_code",
    "note",
    "annotator",
    "source",
    "taxonomy_version",
    "params",
    "created_at",
    "supersedes",
)
UTC_TEXT = "%Y-%m-%dT%H:%M:%S.%fZ"
"""How exports write an instant: ISO 8601 in UTC, microseconds, an explicit Z."""
EXPORT_FORMATS = {
    "jsonl": "FORMAT json",
    "csv": "FORMAT csv, HEADER true",
    "parquet": "FORMAT parquet",
}


def insert_event(
    con: duckdb.DuckDBPyConnection, event: dict[str, Any], created_at: datetime
) -> int:
    """Append one label event; returns its id. The caller's connection commits on return."""
    found = one(
        con,
        "INSERT INTO label_events VALUES (nextval('label_event_ids'), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "RETURNING event_id",
        [
            event["run_id"],
            event["run_hash"],
            event["qid"],
            event["question_key"],
            event["action"],
            list(event["codes"]),
            event["primary_code"],
            event["note"],
            event["annotator"],
            event["source"],
            event["taxonomy_version"],
            json.dumps(event["params"]) if event["params"] is not None else None,
            created_at,
            event["supersedes"],
        ],
    )
    assert found is not None  # RETURNING always yields the inserted row
    return int(found[0])


def _event_filter(
    run_id: str | None, qid: str | None, annotator: str | None
) -> tuple[str, list[str]]:
    """The WHERE clause (empty when nothing is fixed) and its parameters that pick a run's,
    a question's or an annotator's events."""
    conditions, params = [], []
    for column, value in (("run_id", run_id), ("qid", qid), ("annotator", annotator)):
        if value is not None:
            conditions.append(f"{column} = ?")
            params.append(value)
    return (f"WHERE {' AND '.join(conditions)}" if conditions else ""), params


def events(
    con: duckdb.DuckDBPyConnection,
    run_id: str | None,
    *,
    qid: str | None = None,
    annotator: str | None = None,
) -> list[dict[str, Any]]:
    """Label events (of one run, or every run when ``run_id`` is None), oldest first."""
    where, params = _event_filter(run_id, qid, annotator)
    found = rows(
        con,
        f"SELECT {', '.join(EVENT_COLUMNS)} FROM label_events {where} ORDER BY created_at, event_id",
        params,
    )
    result = []
    for row in found:
        event = dict(zip(EVENT_COLUMNS, row, strict=True))
        event["params"] = json.loads(event["params"]) if event["params"] else None
        event["codes"] = list(event["codes"] or [])
        result.append(event)
    return result


def run_identity(con: duckdb.DuckDBPyConnection, run_id: str) -> tuple[str, str] | None:
    """``(content_hash, dataset_id)`` of a run, or None."""
    found = one(con, "SELECT content_hash, dataset_id FROM runs WHERE run_id = ?", [run_id])
    return (found[0], found[1]) if found else None


def question_info(con: duckdb.DuckDBPyConnection, run_id: str, qid: str) -> dict[str, Any] | None:
    """Question key, task and axes of one question of a run, or None when the run lacks it."""
    # Two point lookups instead of a join: this runs for every label the app saves.
    if one(con, "SELECT 1 FROM predictions WHERE run_id = ? AND qid = ?", [run_id, qid]) is None:
        return None
    found = one(
        con,
        "SELECT question_key, task, x, y FROM questions "
        "WHERE dataset_id = (SELECT dataset_id FROM runs WHERE run_id = ?) AND qid = ?",
        [run_id, qid],
    )
    return (
        {"question_key": found[0], "task": found[1], "x": found[2], "y": found[3]}
        if found
        else None
    )


def run_qids(con: duckdb.DuckDBPyConnection, run_id: str) -> list[str]:
    """The qids of a run, in idx order."""
    return [
        row[0]
        for row in rows(
            con,
            "SELECT p.qid FROM predictions p JOIN runs r USING (run_id) "
            "JOIN questions q ON q.dataset_id = r.dataset_id AND q.qid = p.qid WHERE p.run_id = ? ORDER BY q.idx",
            [run_id],
        )
    ]


def question_index(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, dict[str, Any]]:
    """Per qid of a run: question key, task and axes, in idx order."""
    found = rows(
        con,
        "SELECT p.qid, q.question_key, q.task, q.x, q.y FROM predictions p JOIN runs r USING (run_id) "
        "JOIN questions q ON q.dataset_id = r.dataset_id AND q.qid = p.qid WHERE p.run_id = ? ORDER BY q.idx",
        [run_id],
    )
    return {
        row[0]: {"question_key": row[1], "task": row[2], "x": row[3], "y": row[4]} for row in found
    }


def copy_to_file(
    con: duckdb.DuckDBPyConnection,
    table: pa.Table,
    path: str,
    fmt: str,
    json_columns: tuple[str, ...] = (),
) -> None:
    """Write an Arrow table to ``path`` with DuckDB's COPY (jsonl, csv or parquet).

    ``json_columns`` hold JSON text; they are written as JSON (nested in jsonl, text in
    csv, a JSON column in parquet). Timestamp columns are UTC instants: ISO 8601 text
    ending in ``Z`` in jsonl and csv (``2026-05-01T09:30:00.000000Z``), a UTC timestamp in
    parquet.
    """
    import pyarrow as pa

    def column(field: pa.Field) -> str:
        name = field.name
        if name in json_columns:
            return f'"{name}"::JSON AS "{name}"'
        if pa.types.is_timestamp(field.type) and fmt != "parquet":
            # epoch_us: the instant itself, whatever the session's time zone.
            return f'strftime(make_timestamp(epoch_us("{name}")), \'{UTC_TEXT}\') AS "{name}"'
        return f'"{name}"'

    con.register("memscope_export", table)
    try:
        columns = ", ".join(column(field) for field in table.schema)
        con.execute(
            f"COPY (SELECT {columns} FROM memscope_export) TO ? ({EXPORT_FORMATS[fmt]})", [path]
        )
    finally:
        con.unregister("memscope_export")


VERDICT_COLUMNS = (
    "event_id",
    "run_id",
    "run_hash",
    "qid",
    "question_key",
    "action",
    "verdict",
    "note",
    "annotator",
    "source",
    "created_at",
    "supersedes",
)
"""The columns of ``verdict_events`` (migration 010), in table order."""


def insert_verdict_event(
    con: duckdb.DuckDBPyConnection, event: dict[str, Any], created_at: datetime
) -> int:
    """Append one verdict event; returns its id. The caller's connection commits on return."""
    found = one(
        con,
        "INSERT INTO verdict_events VALUES (nextval('verdict_event_ids'), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "RETURNING event_id",
        [*(event[column] for column in VERDICT_COLUMNS[1:-2]), created_at, event["supersedes"]],
    )
    assert found is not None  # RETURNING always yields the inserted row
    return int(found[0])


def verdict_events(
    con: duckdb.DuckDBPyConnection,
    run_id: str | None,
    *,
    qid: str | None = None,
    annotator: str | None = None,
) -> list[dict[str, Any]]:
    """Verdict events (of one run, or every run when ``run_id`` is None), oldest first."""
    where, params = _event_filter(run_id, qid, annotator)
    found = rows(
        con,
        f"SELECT {', '.join(VERDICT_COLUMNS)} FROM verdict_events {where} ORDER BY created_at, event_id",
        params,
    )
    return [dict(zip(VERDICT_COLUMNS, row, strict=True)) for row in found]


def save_verdict_sample(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    items: list[tuple[str, str, float]],
    *,
    metric: str,
    seed: int,
    created_at: datetime,
) -> None:
    """Replace the run's verdict sample with ``items``: (qid, stratum, inclusion probability)."""
    con.execute("DELETE FROM verdict_sample_items WHERE run_id = ?", [run_id])
    if items:
        con.executemany(
            "INSERT INTO verdict_sample_items VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                [run_id, position, qid, stratum, probability, metric, seed, created_at]
                for position, (qid, stratum, probability) in enumerate(items)
            ],
        )


def verdict_sample(con: duckdb.DuckDBPyConnection, run_id: str) -> list[tuple[str, str, float]]:
    """The run's verdict sample in order: (qid, stratum, inclusion probability); empty if none."""
    return [
        (row[0], row[1], float(row[2]))
        for row in rows(
            con,
            "SELECT qid, stratum, inclusion_probability FROM verdict_sample_items "
            "WHERE run_id = ? ORDER BY position",
            [run_id],
        )
    ]
