"""``memscope export-labels``: labels (and suggestions) as jsonl, csv or parquet.

One row per current label - per (run, question, annotator) - or, with ``history``, one
row per label event. The rows are built as an Arrow table with a fixed schema and written
by DuckDB's COPY, so the file loads back into DuckDB as-is. The file is written under a
temporary name next to its destination and renamed into place, so a failure leaves no
half-written export. In csv, list columns (codes) are joined with ``;`` and JSON columns
(params, numbers) are JSON text.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscope.errors import InputError, MemscopeError
from memscope.pipeline.labels import current_labels_by_annotator, label_history

if TYPE_CHECKING:
    import pyarrow as pa

    from memscope.store import Store

FORMATS = ("jsonl", "csv", "parquet")
LIST_SEPARATOR = ";"
JSON_COLUMNS = ("params", "suggestion_numbers")


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote: the file (None for stdout), its bytes when written to stdout, the row count."""

    path: Path | None
    rows: int
    content: bytes | None = None


def _schema(*, history: bool, include_suggestions: bool) -> pa.Schema:
    import pyarrow as pa

    text = pa.string()
    fields = [
        ("run_id", text),
        ("run_hash", text),
        ("qid", text),
        ("question_key", text),
        ("task", text),
        ("x", text),
        ("y", text),
        ("codes", pa.list_(text)),
        ("primary_code", text),
        ("note", text),
        ("annotator", text),
        ("source", text),
        ("taxonomy_version", text),
        ("params", text),
    ]
    if history:
        fields += [
            ("event_id", pa.int64()),
            ("event_uid", text),
            ("action", text),
            ("supersedes", pa.int64()),
            ("created_at", pa.timestamp("us")),
        ]
    else:
        fields += [
            ("event_id", pa.int64()),
            ("event_uid", text),
            ("labelled_at", pa.timestamp("us")),
            ("first_labelled_at", pa.timestamp("us")),
        ]
    if include_suggestions:
        fields += [
            ("suggested_code", text),
            ("suggested_codes", pa.list_(text)),
            ("suggested_rule", text),
            ("suggestion_explanation", text),
            ("suggestion_numbers", text),
            ("suggestion_twin_run_id", text),
        ]
    return pa.schema(fields)


def _questions(store: Store, run_ids: set[str]) -> dict[tuple[str, str], dict[str, Any]]:
    from memscope.store.labels import question_index

    found: dict[tuple[str, str], dict[str, Any]] = {}
    with store.read() as con:
        for run_id in sorted(run_ids):
            for qid, info in question_index(con, run_id).items():
                found[(run_id, qid)] = info
    return found


def _suggestions(store: Store, run_id: str | None) -> dict[tuple[str, str], Any]:
    from memscope.pipeline.suggest import suggestions_from_rows
    from memscope.store.suggestions import suggestion_rows

    with store.read() as con:
        stored = suggestion_rows(con, run_id)
    by_run: dict[str, list[dict[str, Any]]] = {}
    for row in stored:
        by_run.setdefault(row["run_id"], []).append(row)
    return {
        (rid, qid): item
        for rid, items in by_run.items()
        for qid, item in suggestions_from_rows(items).items()
    }


def label_table(
    store: Store,
    run_id: str | None,
    *,
    history: bool = False,
    include_suggestions: bool = False,
    annotator: str | None = None,
) -> pa.Table:
    """The export rows as an Arrow table (see the module docstring for the columns)."""
    import pyarrow as pa

    if history:
        items: list[Any] = [
            e for e in label_history(store, run_id) if annotator is None or e.annotator == annotator
        ]
    else:
        items = [
            label
            for label in current_labels_by_annotator(store, run_id)
            if annotator is None or label.annotator == annotator
        ]
    from memscope.pipeline.import_labels import event_uid

    questions = _questions(store, {item.run_id for item in items} | ({run_id} if run_id else set()))
    suggestions = _suggestions(store, run_id) if include_suggestions else {}
    records: list[dict[str, Any]] = []
    for item in items:
        info = questions.get((item.run_id, item.qid), {})
        record = {
            "run_id": item.run_id,
            "run_hash": item.run_hash,
            "qid": item.qid,
            "question_key": item.question_key,
            "task": info.get("task"),
            "x": info.get("x"),
            "y": info.get("y"),
            "codes": list(item.codes),
            "primary_code": item.primary,
            "note": item.note,
            "annotator": item.annotator,
            "source": item.source,
            "taxonomy_version": item.taxonomy_version,
            "params": json.dumps(item.params) if item.params is not None else None,
            "event_id": item.event_id,
            # The stable id import-labels deduplicates by (issue 16).
            "event_uid": event_uid(
                item.run_hash,
                item.qid,
                item.annotator,
                item.action if history else "set",
                item.created_at if history else item.labelled_at,
                list(item.codes),
            ),
        }
        if history:
            record |= {
                "action": item.action,
                "supersedes": item.supersedes,
                "created_at": item.created_at,
            }
        else:
            record |= {"labelled_at": item.labelled_at, "first_labelled_at": item.first_labelled_at}
        records.append(record)
    if include_suggestions:
        labelled = {(record["run_id"], record["qid"]) for record in records}
        for record in records:
            record |= _suggestion_columns(suggestions.get((record["run_id"], record["qid"])))
        if not history:
            for (rid, qid), suggestion in suggestions.items():
                if (rid, qid) in labelled:
                    continue
                info = questions.get((rid, qid), {})
                records.append(
                    {
                        "run_id": rid,
                        "qid": qid,
                        "question_key": suggestion.question_key,
                        "task": info.get("task"),
                        "x": info.get("x"),
                        "y": info.get("y"),
                        "source": "rule",
                    }
                    | _suggestion_columns(suggestion)
                )
    schema = _schema(history=history, include_suggestions=include_suggestions)
    return pa.Table.from_pylist(records, schema=schema)


def _suggestion_columns(suggestion: Any) -> dict[str, Any]:
    if suggestion is None:
        return {}
    return {
        "suggested_code": suggestion.code,
        "suggested_codes": suggestion.codes,
        "suggested_rule": suggestion.rule,
        "suggestion_explanation": suggestion.explanation,
        "suggestion_numbers": json.dumps(suggestion.numbers),
        "suggestion_twin_run_id": suggestion.twin_run_id,
    }


def summary_table(store: Store, run_id: str | None, *, annotator: str | None = None) -> pa.Table:
    """Counts of each code per (X, Y) cell over the current labels: ``n`` questions carrying
    the code, ``n_primary`` where it is the primary one; per run and annotator."""
    import pyarrow as pa

    labels = [
        label
        for label in current_labels_by_annotator(store, run_id)
        if annotator is None or label.annotator == annotator
    ]
    questions = _questions(store, {label.run_id for label in labels})
    counts: dict[tuple[Any, ...], list[int]] = {}
    for label in labels:
        info = questions.get((label.run_id, label.qid), {})
        x, y = info.get("x"), info.get("y")
        for code in label.codes:
            key = (label.run_id, label.annotator, x, y, code)
            entry = counts.setdefault(key, [0, 0])
            entry[0] += 1
            entry[1] += int(code == label.primary)
    text = pa.string()
    schema = pa.schema(
        [
            ("run_id", text),
            ("annotator", text),
            ("x", text),
            ("y", text),
            ("cell", text),
            ("code", text),
            ("n", pa.int64()),
            ("n_primary", pa.int64()),
        ]
    )
    records = [
        {
            "run_id": key[0],
            "annotator": key[1],
            "x": key[2],
            "y": key[3],
            "cell": f"{key[2]}_{key[3]}" if key[2] and key[3] else None,
            "code": key[4],
            "n": n,
            "n_primary": n_primary,
        }
        for key, (n, n_primary) in sorted(
            counts.items(), key=lambda item: tuple(str(v) for v in item[0])
        )
    ]
    return pa.Table.from_pylist(records, schema=schema)


def _for_csv(table: pa.Table) -> pa.Table:
    """Join list columns with ``;`` (CSV has no lists)."""
    import pyarrow as pa

    for index, column in enumerate(table.schema):
        if pa.types.is_list(column.type):
            joined = [
                None if value is None else LIST_SEPARATOR.join(value)
                for value in table.column(index).to_pylist()
            ]
            table = table.set_column(
                index, pa.field(column.name, pa.string()), pa.array(joined, pa.string())
            )
    return table


def write_table(store: Store, table: pa.Table, fmt: str, out: Path | None) -> ExportResult:
    """Write ``table`` as ``fmt`` to ``out`` (atomically) or return its bytes for stdout.

    Raises:
        InputError: an unknown format, or parquet without ``out``.
        MemscopeError: the destination cannot be written.
    """
    from memscope.store.labels import copy_to_file

    if fmt not in FORMATS:
        raise InputError(
            f"unknown export format {fmt!r}", fix=f"Valid formats: {', '.join(FORMATS)}."
        )
    if fmt == "parquet" and out is None:
        raise InputError(
            "parquet is binary: give a file with --out PATH", fix="Or export jsonl/csv to stdout."
        )
    if fmt == "csv":
        table = _for_csv(table)
    json_columns = tuple(name for name in JSON_COLUMNS if name in table.column_names)
    target_dir = (
        out.expanduser().resolve().parent if out is not None else Path(tempfile.gettempdir())
    )
    if out is not None and not target_dir.is_dir():
        raise InputError(
            f"the folder of --out does not exist: {target_dir}",
            fix="Create it, or pick another path.",
        )
    handle, temp_name = tempfile.mkstemp(
        prefix=".memscope-export-", suffix=f".{fmt}", dir=target_dir
    )
    os.close(handle)
    temp = Path(temp_name)
    try:
        with store.read() as con:
            copy_to_file(con, table, str(temp), fmt, json_columns)
        if out is None:
            return ExportResult(None, table.num_rows, temp.read_bytes())
        os.replace(temp, out.expanduser())
        return ExportResult(out.expanduser(), table.num_rows)
    except OSError as exc:
        raise MemscopeError(
            f"cannot write the export: {exc.strerror or exc}", where=str(out or temp)
        ) from None
    finally:
        temp.unlink(missing_ok=True)


def export_labels(
    store: Store,
    run_id: str | None,
    *,
    fmt: str = "jsonl",
    out: Path | None = None,
    include_suggestions: bool = False,
    history: bool = False,
    summary: bool = False,
    annotator: str | None = None,
) -> ExportResult:
    """Export a run's labels (every run's when ``run_id`` is None); see :func:`label_table`."""
    if summary:
        table = summary_table(store, run_id, annotator=annotator)
    else:
        table = label_table(
            store,
            run_id,
            history=history,
            include_suggestions=include_suggestions,
            annotator=annotator,
        )
    return write_table(store, table, fmt, out)
