"""``memscope export-labels``: labels (and suggestions) as jsonl, csv or parquet.

One row per current label - per (run, question, annotator) - or, with ``history``, one
row per label event. The rows are built as an Arrow table with a fixed schema and written
by DuckDB's COPY, so the file loads back into DuckDB as-is. In csv, list columns (codes)
are joined with ``;`` and JSON columns (params, accepted_suggestion, numbers) are JSON text.
An accepted suggestion is a human label (``source`` human) with ``accepted_from`` naming the
rule; ``params`` are the view's (alpha, lambda, K) when it was labelled and
``accepted_suggestion`` the suggestion's own code, rule, numbers and twin run. ``axes`` is the
question's place on its benchmark's axes as JSON text (``{"x": "X4", "y": "Y3"}``,
``{"evidence": "implicit", "modality": "image", "task": "long_pattern"}``,
``{"bank": "9", "position": "1", "reach": "2"}``). ``verdict`` (``verdict_note``,
``verdict_at``) is the annotator's current verdict on the question's answer (correct,
wrong, unsure: ``memscope label --verdict``); a verdict on a question the annotator has no
label on is a row of its own with no codes; ``import-labels`` reads them back. With
``history`` every verdict event is a row too (``event_kind`` verdict, no codes, its
``action`` set, clear or undo, ``verdict`` and ``verdict_note``; label events are
``event_kind`` label), and ``import-labels`` replays them to the same current verdicts. Times (``created_at``, ``labelled_at``,
``first_labelled_at``) are UTC: ISO 8601 text with a ``Z`` in jsonl and csv
(``2026-05-01T09:30:00.000000Z``), UTC timestamps in parquet.

Writing: the file is staged in the system temp folder (on the destination's file system
when it can be, else next to the destination under a hidden name) and renamed into place,
so a failure or a kill never leaves a half-written export or a stray file in the
destination folder; Ctrl-C and SIGTERM remove the staged file. An ``--out`` that is a
symlink writes to the link's target (the link stays); one that is not a regular file (a
terminal, a pipe, ``/proc/self/fd/1``) is written straight through. Nothing is written over
the store's files or over a file that is not a label export (``usecases.output_files``).

CSV is for spreadsheets too, so it is made safe the way spreadsheet-safe exporters do (the
OWASP "CSV injection" rule): a text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or
a carriage return gets a leading ``'`` so no spreadsheet runs it as a formula. jsonl and
parquet keep the exact text. An empty text (an empty note) is written as ``""`` and NULL as
nothing; DuckDB reads that back faithfully with
``read_csv(path, allow_quoted_nulls = false)`` (its default turns ``""`` into NULL).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscope.errors import InputError
from memscope.textsafe import FORMULA_STARTS, defuse_cell
from memscope.usecases.labels.events import current_labels_by_annotator, label_history, split_params
from memscope.usecases.output_files import (
    LABEL_EXPORT,
    cannot_write,
    plan_output,
    store_files,
    stream_writer,
)

if TYPE_CHECKING:
    import pyarrow as pa

    from memscope.store import Store

FORMATS = ("jsonl", "csv", "parquet")
LIST_SEPARATOR = ";"
JSON_COLUMNS = ("params", "accepted_suggestion", "suggestion_numbers")
TEMP_PREFIX = ".memscope-export-"


def restore_cell(value: str | None) -> str | None:
    """The text ``defuse_cell`` was given: a CSV cell read back with its ``'`` removed."""
    if value is not None and value.startswith("'") and value[1:].startswith(FORMULA_STARTS):
        return value[1:]
    return value


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote: the file (None for stdout), its bytes when written to stdout, the row count."""

    path: Path | None
    rows: int
    content: bytes | None = None


def _schema(*, history: bool, include_suggestions: bool) -> pa.Schema:
    import pyarrow as pa

    text = pa.string()
    utc = pa.timestamp("us", tz="UTC")  # stored times are naive UTC; pyarrow reads them so
    fields = [
        ("run_id", text),
        ("run_hash", text),
        ("qid", text),
        ("question_key", text),
        ("task", text),
        ("x", text),
        ("y", text),
        ("axes", text),
        ("codes", pa.list_(text)),
        ("primary_code", text),
        ("note", text),
        ("annotator", text),
        ("source", text),
        ("taxonomy_version", text),
        ("params", text),
        ("accepted_from", text),
        ("accepted_suggestion", text),
    ]
    if history:
        fields += [
            ("event_id", pa.int64()),
            ("event_uid", text),
            ("action", text),
            ("supersedes", pa.int64()),
            ("created_at", utc),
            ("event_kind", text),
            ("verdict", text),
            ("verdict_note", text),
        ]
    else:
        fields += [
            ("event_id", pa.int64()),
            ("event_uid", text),
            ("labelled_at", utc),
            ("first_labelled_at", utc),
            ("verdict", text),
            ("verdict_note", text),
            ("verdict_at", utc),
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
    for run_id in sorted(run_ids):
        for qid, axes in _axis_values(store, run_id).items():
            if (run_id, qid) in found:
                found[(run_id, qid)]["axes"] = json.dumps(axes, sort_keys=True)
    return found


def _axis_values(store: Store, run_id: str) -> dict[str, dict[str, str]]:
    """Per qid, the question's place on its benchmark's axes (``{"reach": "2", "bank": "9"}``)."""
    from memscope.errors import NotFoundError
    from memscope.usecases.runs.axes import axis_columns
    from memscope.usecases.runs.loading import load_questions

    try:
        data = load_questions(store, run_id)
    except NotFoundError:
        return {}
    labels, _numbers, _levels = axis_columns(data)
    return {
        qid: {key: str(column[row]) for key, column in labels.items() if column[row]}
        for row, qid in enumerate(data.qids.tolist())
    }


def _suggestions(store: Store, run_id: str | None) -> dict[tuple[str, str], Any]:
    from memscope.store.suggestions import suggestion_rows
    from memscope.usecases.suggest.rules import suggestions_from_rows

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
    from memscope.usecases.labels.import_file import event_uid

    questions = _questions(store, {item.run_id for item in items} | ({run_id} if run_id else set()))
    suggestions = _suggestions(store, run_id) if include_suggestions else {}
    records: list[dict[str, Any]] = []
    for item in items:
        info = questions.get((item.run_id, item.qid), {})
        view_params, accepted_from, suggestion_params = split_params(item.params)
        record = {
            "run_id": item.run_id,
            "run_hash": item.run_hash,
            "qid": item.qid,
            "question_key": item.question_key,
            "task": info.get("task"),
            "x": info.get("x"),
            "y": info.get("y"),
            "axes": info.get("axes"),
            "codes": list(item.codes),
            "primary_code": item.primary,
            "note": item.note,
            "annotator": item.annotator,
            # Accepting a suggestion is a human decision, also for labels stored before that
            # was so (source "rule", the rule in params).
            "source": "human" if item.source == "rule" and accepted_from else item.source,
            "taxonomy_version": item.taxonomy_version,
            "params": json.dumps(view_params) if view_params is not None else None,
            "accepted_from": accepted_from,
            "accepted_suggestion": json.dumps(suggestion_params)
            if suggestion_params is not None
            else None,
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
                "event_kind": "label",
            }
        else:
            record |= {"labelled_at": item.labelled_at, "first_labelled_at": item.first_labelled_at}
        records.append(record)
    if history:
        records += _verdict_event_rows(store, run_id, annotator)
    else:
        records += _verdict_columns(store, run_id, annotator, records, questions)
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
                        "axes": info.get("axes"),
                        "source": "rule",
                    }
                    | _suggestion_columns(suggestion)
                )
    schema = _schema(history=history, include_suggestions=include_suggestions)
    return pa.Table.from_pylist(records, schema=schema)


def _verdict_columns(
    store: Store,
    run_id: str | None,
    annotator: str | None,
    records: list[dict[str, Any]],
    questions: dict[tuple[str, str], dict[str, Any]],
) -> list[dict[str, Any]]:
    """Each label row gets its annotator's current verdict on the question (``verdict``,
    ``verdict_note``, ``verdict_at``); a verdict on a question the annotator has no label
    on becomes a row of its own, with no codes. Returns those extra rows."""
    from memscope.usecases.labels.verdicts import current_from, verdict_history

    events = verdict_history(store, run_id)
    by_run: dict[str, list[Any]] = {}
    for event in events:
        by_run.setdefault(event.run_id, []).append(event)
    run_hash = {event.run_id: event.run_hash for event in events}
    key_of = {(event.run_id, event.qid): event.question_key for event in events}
    current = {
        (rid, verdict.qid, verdict.annotator): verdict
        for rid, run_events in by_run.items()
        for verdict in current_from(run_events)
        if annotator is None or verdict.annotator == annotator
    }
    if not current:
        return []
    extra_questions = _questions(
        store, {rid for rid, _, _ in current} - {r["run_id"] for r in records}
    )
    extra: list[dict[str, Any]] = []
    for record in records:
        found = current.pop((record["run_id"], record["qid"], record["annotator"]), None)
        if found is not None:
            record |= {
                "verdict": found.verdict,
                "verdict_note": found.note,
                "verdict_at": found.given_at,
            }
    for (rid, qid, who), found in current.items():
        info = questions.get((rid, qid)) or extra_questions.get((rid, qid), {})
        extra.append(
            {
                "run_id": rid,
                "run_hash": run_hash.get(rid),
                "qid": qid,
                "question_key": key_of.get((rid, qid)),
                "task": info.get("task"),
                "x": info.get("x"),
                "y": info.get("y"),
                "axes": info.get("axes"),
                "codes": [],
                "annotator": who,
                "source": "human",
                "verdict": found.verdict,
                "verdict_note": found.note,
                "verdict_at": found.given_at,
            }
        )
    return extra


def _verdict_event_rows(
    store: Store, run_id: str | None, annotator: str | None
) -> list[dict[str, Any]]:
    """``--history``: one row per verdict event (``event_kind`` verdict, no codes), with its
    action (set, clear, undo), verdict, note and time; ``import-labels`` replays them."""
    from memscope.usecases.labels.verdicts import verdict_history

    events = [
        event
        for event in verdict_history(store, run_id)
        if annotator is None or event.annotator == annotator
    ]
    questions = _questions(store, {event.run_id for event in events})
    rows: list[dict[str, Any]] = []
    for event in events:
        info = questions.get((event.run_id, event.qid), {})
        rows.append(
            {
                "run_id": event.run_id,
                "run_hash": event.run_hash,
                "qid": event.qid,
                "question_key": event.question_key,
                "task": info.get("task"),
                "x": info.get("x"),
                "y": info.get("y"),
                "axes": info.get("axes"),
                "codes": [],
                "annotator": event.annotator,
                "source": event.source,
                "event_id": event.event_id,
                "action": event.action,
                "supersedes": event.supersedes,
                "created_at": event.created_at,
                "event_kind": "verdict",
                "verdict": event.verdict,
                "verdict_note": event.note,
            }
        )
    return rows


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


def _for_csv(table: pa.Table, json_columns: tuple[str, ...] = ()) -> pa.Table:
    """Join list columns with ``;`` (CSV has no lists) and defuse formula-like text cells."""
    import pyarrow as pa

    for index, column in enumerate(table.schema):
        if pa.types.is_list(column.type):
            values = [
                None if value is None else LIST_SEPARATOR.join(value)
                for value in table.column(index).to_pylist()
            ]
        elif pa.types.is_string(column.type) and column.name not in json_columns:
            values = table.column(index).to_pylist()
        else:
            continue
        defused = [defuse_cell(value) for value in values]
        table = table.set_column(
            index, pa.field(column.name, pa.string()), pa.array(defused, pa.string())
        )
    return table


def _staging_dir(target_dir: Path) -> Path:
    """Where to stage the file: the temp folder when a rename from it is atomic, else beside."""
    staging = Path(tempfile.gettempdir())
    try:
        if staging.stat().st_dev == target_dir.stat().st_dev:
            return staging
    except OSError:
        pass
    return target_dir


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM during the export unwinds like Ctrl-C, so the staged file is removed."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


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
    json_columns = tuple(name for name in JSON_COLUMNS if name in table.column_names)
    if fmt == "csv":
        table = _for_csv(table, json_columns)
    # Refused before anything is written: the store's own files, and any file memscope did
    # not write as a label export (a terminal, pipe or /proc/self/fd/1 is written through).
    target = plan_output(out, LABEL_EXPORT, store_files(store)) if out is not None else None
    destination = target.file if target is not None else None
    target_dir = destination.parent if destination is not None else Path(tempfile.gettempdir())
    staging = _staging_dir(target_dir) if destination is not None else target_dir
    temp: Path | None = None
    try:
        with _terminate_as_interrupt():
            handle, temp_name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=f".{fmt}", dir=staging)
            os.close(handle)
            temp = Path(temp_name)
            with store.read() as con:
                copy_to_file(con, table, str(temp), fmt, json_columns)
            if target is None:
                return ExportResult(None, table.num_rows, temp.read_bytes())
            if destination is None:
                with temp.open("rb") as source, stream_writer(target) as sink:
                    shutil.copyfileobj(source, sink)
                return ExportResult(target.given, table.num_rows)
            if destination.exists() and not os.access(destination, os.W_OK):
                raise PermissionError(13, "Permission denied", str(destination))
            os.replace(temp, destination)
            return ExportResult(destination, table.num_rows)
    except OSError as exc:
        if isinstance(exc, BrokenPipeError) and target is not None and destination is None:
            raise  # the pipe's reader went away (`--out /dev/stdout | head`): the CLI stops quietly
        where = target.given if target is not None else target_dir
        raise cannot_write(exc, where, "export") from None
    finally:
        if temp is not None:
            temp.unlink(missing_ok=True)


def runs_with_labels(store: Store) -> list[str]:
    """The run ids that have at least one current label or verdict (what an export without
    a run holds)."""
    from memscope.usecases.labels.verdicts import current_from, verdict_history

    if not store.exists:
        return []
    judged = {event.run_id for event in verdict_history(store, None)}
    with_verdicts = {
        rid for rid in judged if current_from(event for event in verdict_history(store, rid))
    }
    return sorted(
        {label.run_id for label in current_labels_by_annotator(store, None)} | with_verdicts
    )


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
