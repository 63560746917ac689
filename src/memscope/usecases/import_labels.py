"""``memscope import-labels``: merge other people's label exports into this store.

A file written by ``memscope export-labels`` (jsonl, csv or parquet; one row per current
label, or with ``--history`` one per event) becomes label events here with the
annotator, source, note, params and time it had. Each event has a stable id,
:func:`event_uid`, a hash of (run hash, qid, annotator, action, time, codes): the same
event exported twice, or exported from a store that had imported it, has the same id, so
an event already present is skipped. A file whose run hash differs from the ingested
run's is refused, naming the questions whose text changed, unless ``allow_changed_run``;
then the events of questions the run still has are imported (their old run hash kept).
Everything is checked before anything is written, and all events go in one transaction.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscope.errors import InputError, NotFoundError
from memscope.usecases.export import restore_cell

if TYPE_CHECKING:
    from memscope.store import Store

REQUIRED = ("run_id", "qid", "codes", "annotator")
TIME_COLUMNS = ("created_at", "labelled_at")
LIST_SEPARATOR = ";"


def _time_text(value: datetime | str | None) -> str:
    if value is None:
        return ""
    when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return when.replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")


def event_uid(
    run_hash: str | None,
    qid: str,
    annotator: str,
    action: str,
    created_at: datetime | str | None,
    codes: list[str] | tuple[str, ...],
) -> str:
    """The stable id of a label event (20 hex digits of a SHA-256 over its identity)."""
    identity = json.dumps(
        [run_hash or "", qid, annotator, action, _time_text(created_at), list(codes)],
        separators=(",", ":"),
    )
    return hashlib.sha256(identity.encode()).hexdigest()[:20]


@dataclass
class ImportResult:
    """What an import did, per file and in total."""

    imported: int = 0
    skipped_present: int = 0
    skipped_missing: list[str] = field(default_factory=list)
    files: list[dict[str, Any]] = field(default_factory=list)
    unknown_codes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready values."""
        return {
            "imported": self.imported,
            "skipped_present": self.skipped_present,
            "skipped_missing_questions": self.skipped_missing,
            "unknown_codes": self.unknown_codes,
            "files": self.files,
        }


def _codes(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        if value.startswith("["):  # JSON text (a jsonl file read as written)
            try:
                return [str(code) for code in json.loads(value)]
            except ValueError:
                pass
        return [code for code in value.split(LIST_SEPARATOR) if code]
    return [str(code) for code in value]


def _params(value: Any) -> dict[str, Any] | None:
    if value is None or value == "":
        return None
    if isinstance(value, dict):
        return value
    try:
        parsed = json.loads(value)
    except (TypeError, ValueError):
        return {"imported_params": str(value)}
    return parsed if isinstance(parsed, dict) else {"imported_params": parsed}


def _int(value: Any) -> int | None:
    if value is None or value == "":
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _events_of_file(path: Path) -> list[dict[str, Any]]:
    """The file's rows as label events (not yet checked against the store)."""
    from memscope.store.label_files import read_label_file

    rows = read_label_file(path)
    if path.suffix.lower() == ".csv":  # export-labels defused formula-like text cells
        rows = [
            {name: restore_cell(v) if isinstance(v, str) else v for name, v in row.items()}
            for row in rows
        ]
    columns = set(rows[0]) if rows else set()
    if rows and "qid" not in columns and "n_primary" in columns:
        raise InputError(
            "this is a summary export (counts per cell), not labels",
            where=str(path),
            fix="Export the labels themselves: `memscope export-labels --history`.",
        )
    missing = [name for name in REQUIRED if name not in columns]
    if rows and missing:
        raise InputError(
            f"the label file lacks the column(s) {', '.join(missing)}",
            where=str(path),
            fix="Pass a file written by `memscope export-labels`.",
        )
    history = "action" in columns and "created_at" in columns
    time_column = "created_at" if history else "labelled_at"
    if rows and time_column not in columns:
        raise InputError(
            "the label file has no time column (created_at or labelled_at)",
            where=str(path),
            fix="Pass a file written by `memscope export-labels`.",
        )
    events = []
    for line, row in enumerate(rows, start=2):
        if not row.get("annotator"):
            continue  # a suggestion-only row of --include-suggestions
        action = str(row.get("action") or "set") if history else "set"
        try:
            created_at = datetime.fromisoformat(_time_text(row.get(time_column)))
        except ValueError:
            raise InputError(
                f"row {line - 1} has an unreadable time {row.get(time_column)!r}",
                where=str(path),
            ) from None
        codes = _codes(row.get("codes"))
        event: dict[str, Any] = {
            "run_id": str(row["run_id"]),
            "run_hash": row.get("run_hash") or None,
            "qid": str(row["qid"]),
            "question_key": row.get("question_key") or None,
            "action": action,
            "codes": codes if action == "set" else [],
            "primary_code": (row.get("primary_code") or (codes[0] if codes else None))
            if action == "set"
            else None,
            "note": row.get("note") or None,
            "annotator": str(row["annotator"]),
            "source": str(row.get("source") or "import"),
            "taxonomy_version": str(row.get("taxonomy_version") or "unknown"),
            "params": _params(row.get("params")),
            "created_at": created_at,
            "original_event_id": _int(row.get("event_id")),
        }
        event["event_uid"] = str(row.get("event_uid") or "") or event_uid(
            event["run_hash"],
            event["qid"],
            event["annotator"],
            action,
            created_at,
            event["codes"],
        )
        events.append(event)
    return events


def _local_run(con: Any, run_id: str, run_hash: str | None) -> str:
    from memscope.store import queries
    from memscope.store.sql import one

    if queries.get_run(con, run_id):
        return run_id
    if run_hash:
        found = one(con, "SELECT run_id FROM runs WHERE content_hash = ? LIMIT 1", [run_hash])
        if found:
            return str(found[0])
    raise NotFoundError(
        f"the labels are for run {run_id!r}, which this store has not ingested",
        fix="Ingest that run first (`memscope ingest RUN_DIR`), then import again.",
    )


def _present_uids(con: Any, run_id: str) -> set[str]:
    from memscope.store import labels as stored
    from memscope.store.sql import rows

    present = {
        event_uid(
            event["run_hash"],
            event["qid"],
            event["annotator"],
            event["action"],
            event["created_at"],
            event["codes"],
        )
        for event in stored.events(con, run_id)
    }
    present |= {
        row[0]
        for row in rows(
            con,
            "SELECT i.event_uid FROM label_imports i JOIN label_events e USING (event_id) "
            "WHERE e.run_id = ?",
            [run_id],
        )
    }
    return present


def import_labels(
    store: Store, paths: list[Path], *, allow_changed_run: bool = False
) -> ImportResult:
    """Import label exports into the store (see the module docstring).

    Raises:
        InputError: an unreadable file, or a changed run without ``allow_changed_run``.
        NotFoundError: a file's run is not ingested here.
    """
    from memscope.store import labels as stored
    from memscope.store.label_files import record_imports
    from memscope.taxonomy import load_taxonomy

    taxonomy = load_taxonomy()
    result = ImportResult()
    planned: list[tuple[Path, dict[str, Any]]] = []
    seen: set[str] = set()
    with store.read() as con:
        for path in paths:
            events = _events_of_file(path)
            by_run: dict[str, list[dict[str, Any]]] = {}
            for event in events:
                by_run.setdefault(event["run_id"], []).append(event)
            file_entry: dict[str, Any] = {"file": str(path), "rows": len(events), "runs": {}}
            for run_id, run_events in by_run.items():
                hashes = {e["run_hash"] for e in run_events if e["run_hash"]}
                local = _local_run(con, run_id, next(iter(hashes), None))
                identity = stored.run_identity(con, local)
                local_hash = identity[0] if identity else None
                questions = stored.question_index(con, local)
                changed_run = bool(hashes - {local_hash})
                if changed_run:
                    changed = sorted(
                        {
                            e["qid"]
                            for e in run_events
                            if e["qid"] not in questions
                            or (
                                e["question_key"]
                                and questions[e["qid"]]["question_key"] != e["question_key"]
                            )
                        },
                        key=_qid_order,
                    )
                    what = (
                        f"questions changed or gone: {', '.join(changed)}"
                        if changed
                        else "no labelled question's text changed (answers or retrievals may have)"
                    )
                    if not allow_changed_run:
                        raise InputError(
                            f"the labels in {path.name} were made on another version of run "
                            f"{local}: {what}",
                            where=str(path),
                            fix="Re-ingest the run they were made on, or pass "
                            "--allow-changed-run to import the labels of questions the run still has.",
                        )
                present = _present_uids(con, local)
                counts = {"imported": 0, "present": 0, "missing": 0, "changed_run": changed_run}
                ordered = sorted(
                    run_events,
                    key=lambda e: (e["created_at"], e["original_event_id"] or 0),
                )
                for event in ordered:
                    if event["qid"] not in questions:
                        counts["missing"] += 1
                        result.skipped_missing.append(f"{local}:{event['qid']}")
                        continue
                    if event["event_uid"] in present or event["event_uid"] in seen:
                        counts["present"] += 1
                        continue
                    seen.add(event["event_uid"])
                    event = {**event, "run_id": local}
                    if not event["question_key"]:
                        event["question_key"] = questions[event["qid"]]["question_key"]
                    for code in event["codes"]:
                        if taxonomy.get(code) is None and code not in result.unknown_codes:
                            result.unknown_codes.append(code)
                    planned.append((path, event))
                    counts["imported"] += 1
                file_entry["runs"][local] = counts
                result.imported += counts["imported"]
                result.skipped_present += counts["present"]
            result.files.append(file_entry)
    if planned:
        planned.sort(key=lambda item: (item[1]["created_at"], item[1]["original_event_id"] or 0))
        with store.write() as con:
            con.begin()
            try:
                done = []
                for path, event in planned:
                    new_id = stored.insert_event(
                        con, {**event, "supersedes": None}, event["created_at"]
                    )
                    done.append(
                        {
                            "event_id": new_id,
                            "event_uid": event["event_uid"],
                            "file": str(path),
                            "original_event_id": event["original_event_id"],
                        }
                    )
                record_imports(con, done)
                con.commit()
            except BaseException:
                con.rollback()
                raise
    return result


def _qid_order(qid: str) -> tuple[int, str]:
    digits = qid[1:] if qid[:1] == "q" else ""
    return (int(digits), qid) if digits.isdigit() else (1 << 30, qid)
