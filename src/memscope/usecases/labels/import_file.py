"""``memscope import-labels``: merge other people's label exports into this store.

A file written by ``memscope export-labels`` (jsonl, csv or parquet; one row per current
label, or with ``--history`` one per event) becomes label events here with the
annotator, source, note, params and time it had. Verdicts come along: a current-label
file's ``verdict`` column as ``set`` events, a ``--history`` file's verdict events
(``event_kind`` verdict) as they were, sets, clears and undos, so replaying them gives the
same current verdicts. Each event has a stable id,
:func:`event_uid`, a hash of (run hash, qid, annotator, action, time, codes): the same
event exported twice, or exported from a store that had imported it, has the same id, so
an event already present is skipped. A file whose run hash differs from the ingested
run's is refused, naming the questions whose text changed, unless ``allow_changed_run``;
then the events of questions the run still has are imported (their old run hash kept).
Everything is checked before anything is written, and all events go in one transaction.

The files are loaded in bulk (``store.label_import``): DuckDB reads them, every row is
checked and normalised in SQL, and the new events are inserted with one ``INSERT …
SELECT``, so a million rows import in seconds. A bad row (a code that is not a name, an
unknown action or source, a time that is not ISO 8601) refuses the import, naming each
bad row (up to ten) and what is wrong with it, as a bad file does: labels are merged
whole or not at all. Times are instants: a time with an offset (``10:00+05:00``) is stored
as UTC (``05:00``); a time without one is taken as UTC, as memscope's own exports wrote
them before they said so with a ``Z``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscope.errors import InputError, NotFoundError

if TYPE_CHECKING:
    from memscope.store import Store

REQUIRED = ("run_id", "qid", "codes", "annotator")
MAX_LISTED_ROWS = 10


def _time_text(value: datetime | str | None) -> str:
    """The instant as the stable id hashes it: naive UTC text (an offset is applied first)."""
    if value is None:
        return ""
    when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
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
    verdicts_imported: int = 0
    verdicts_present: int = 0
    verdicts_missing: list[str] = field(default_factory=list)
    """``run:qid`` of verdicts on questions the local run lacks (not imported)."""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready values."""
        return {
            "imported": self.imported,
            "skipped_present": self.skipped_present,
            "skipped_missing_questions": self.skipped_missing,
            "unknown_codes": self.unknown_codes,
            "files": self.files,
            "verdicts_imported": self.verdicts_imported,
            "verdicts_present": self.verdicts_present,
            "verdicts_skipped_missing_questions": self.verdicts_missing,
        }


Progress = Callable[[str], None]
"""Told what the import is doing now ("reading labels.jsonl", "writing 1,000,000 events")."""


def _uids_of(identities: list[tuple[Any, ...]]) -> list[str]:
    """Stable ids of events given as (run_hash, qid, annotator, action, created_at, codes)."""
    return [
        event_uid(run_hash, qid, annotator, action, created_at, codes or [])
        for run_hash, qid, annotator, action, created_at, codes in identities
    ]


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


def _check_columns(columns: set[str], rows: bool, path: Path) -> bool:
    """Whether the file holds one row per event (else per current label); InputError when it
    is not a label export."""
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
    return history


def _refuse_bad_rows(con: Any, paths: list[Path]) -> None:
    from memscope.store import label_import

    count, first = label_import.bad_rows(con, MAX_LISTED_ROWS)
    if not count:
        return
    listed = "\n    ".join(
        f"{paths[file_no]}: row {row}: {problem}" for file_no, row, problem in first
    )
    more = f"\n    … and {count - len(first)} more" if count > len(first) else ""
    raise InputError(
        f"{count} bad row(s) in the label file(s); nothing was imported:\n    {listed}{more}",
        where=str(paths[first[0][0]]),
        fix="Correct those rows (codes are names of the taxonomy: a list, or text joined "
        "with ';'; times are ISO 8601) and import again.",
    )


def _refuse_bad_verdicts(con: Any, paths: list[Path]) -> None:
    from memscope.store import label_import

    first = label_import.bad_verdicts(con, MAX_LISTED_ROWS)
    if not first:
        return
    listed = "\n    ".join(
        f"{paths[file_no]}: row {row}: {problem}" for file_no, row, problem in first
    )
    raise InputError(
        f"bad verdict(s) in the label file(s); nothing was imported:\n    {listed}",
        where=str(paths[first[0][0]]),
        fix="A verdict is correct, wrong or unsure, with its run, qid, annotator and "
        "verdict_at (ISO 8601); correct those rows and import again.",
    )


def import_labels(
    store: Store,
    paths: list[Path],
    *,
    allow_changed_run: bool = False,
    progress: Progress | None = None,
) -> ImportResult:
    """Import label exports into the store (see the module docstring).

    The files are read, checked and inserted by DuckDB in one transaction: a bad row, a
    changed run or an interrupt leaves the store as it was.

    Raises:
        InputError: an unreadable file or bad rows (each named, up to ten), or a changed run
            without ``allow_changed_run``.
        NotFoundError: a file's run is not ingested here.
    """
    from memscope.store import label_import
    from memscope.store import labels as stored
    from memscope.store.connection import rollback_quietly
    from memscope.taxonomy import load_taxonomy

    tell = progress or (lambda _what: None)
    taxonomy = load_taxonomy()
    result = ImportResult()
    from memscope.store.label_files import label_file_source

    for path in paths:  # what a path that is no label file is, before anything is read
        label_file_source(path)
    with store.write() as con:
        con.begin()
        try:
            label_import.start(con)
            for file_no, path in enumerate(paths):
                tell(
                    f"reading {path.name}"
                    + (f" ({file_no + 1} of {len(paths)})" if len(paths) > 1 else "")
                )
                staged = label_import.stage(con, path)
                history = _check_columns(set(staged.columns), not staged.empty, path)
                label_import.normalise(con, staged, file_no, history=history)
                label_import.stage_verdicts(con, staged, file_no)
            tell(f"checking {label_import.row_count(con):,} row(s)")
            _refuse_bad_rows(con, paths)
            _refuse_bad_verdicts(con, paths)
            unnamed = label_import.rows_without_uid(con)
            if unnamed:
                label_import.set_uids(
                    con,
                    [row[0] for row in unnamed],
                    [row[1] for row in unnamed],
                    _uids_of([row[2:] for row in unnamed]),
                )
            groups = label_import.run_groups(con)
            local_of: dict[tuple[int, str], tuple[str, bool]] = {}
            for file_no, run_id, hashes in groups:
                local = _local_run(con, run_id, hashes[0] if hashes else None)
                label_import.assign_run(con, file_no, run_id, local)
                identity = stored.run_identity(con, local)
                local_hash = identity[0] if identity else None
                local_of[(file_no, run_id)] = (local, bool(set(hashes) - {local_hash}))
            label_import.load_local_questions(con)
            # Verdict rows are held to the same rules as label rows: an unknown run is
            # refused, another version of the run is refused (or, allowed, keeps its hash).
            verdict_of: dict[tuple[int, str], tuple[str, bool]] = {}
            for file_no, run_id, hashes in label_import.verdict_run_groups(con):
                if (file_no, run_id) in local_of:
                    local = local_of[(file_no, run_id)][0]
                else:
                    local = _local_run(con, run_id, hashes[0] if hashes else None)
                identity = stored.run_identity(con, local)
                local_hash = identity[0] if identity else None
                verdict_of[(file_no, run_id)] = (local, bool(set(hashes) - {local_hash}))
            for (file_no, run_id), (local, changed_run) in {**verdict_of, **local_of}.items():
                changed_run = changed_run or verdict_of.get((file_no, run_id), ("", False))[1]
                if changed_run and not allow_changed_run:
                    path = paths[file_no]
                    changed = sorted(
                        set(label_import.changed_questions(con, file_no, run_id))
                        | set(label_import.changed_verdict_questions(con, file_no, run_id, local)),
                        key=_qid_order,
                    )
                    what = (
                        f"questions changed or gone: {', '.join(changed)}"
                        if changed
                        else "no labelled question's text changed (answers or retrievals may have)"
                    )
                    raise InputError(
                        f"the labels in {path.name} were made on another version of run "
                        f"{local}: {what}",
                        where=str(path),
                        fix="Re-ingest the run they were made on, or pass "
                        "--allow-changed-run to import the labels of questions the run still has.",
                    )
            made_here = label_import.local_events_to_hash(con)
            label_import.classify(con, _uids_of(made_here))
            counts: dict[tuple[int, str], dict[str, Any]] = {}
            for file_no, run_id, local, outcome, n in label_import.outcome_counts(con):
                entry = counts.setdefault(
                    (file_no, run_id),
                    {
                        "local": local,
                        "counts": {
                            "imported": 0,
                            "present": 0,
                            "missing": 0,
                            "changed_run": local_of[(file_no, run_id)][1],
                        },
                    },
                )
                key = {"new": "imported", "present": "present", "missing": "missing"}[outcome]
                entry["counts"][key] += n
            for file_no, path in enumerate(paths):
                runs = {
                    entry["local"]: entry["counts"]
                    for (number, _run), entry in counts.items()
                    if number == file_no
                }
                rows_in_file = sum(
                    sum(c[k] for k in ("imported", "present", "missing")) for c in runs.values()
                )
                result.files.append({"file": str(path), "rows": rows_in_file, "runs": runs})
                for run_counts in runs.values():
                    result.imported += run_counts["imported"]
                    result.skipped_present += run_counts["present"]
            result.skipped_missing = label_import.missing_questions(con)
            result.unknown_codes = [
                code for code in label_import.new_codes(con) if taxonomy.get(code) is None
            ]
            if result.imported:
                tell(f"writing {result.imported:,} event(s)")
            label_import.insert_new(con, [str(path) for path in paths])
            verdict_runs = {key: local for key, (local, _changed) in verdict_of.items()}
            result.verdicts_missing = label_import.missing_verdict_questions(con, verdict_runs)
            result.verdicts_imported, result.verdicts_present = label_import.insert_verdicts(
                con, verdict_runs
            )
            label_import.finish(con)
            con.commit()
        except BaseException:
            rollback_quietly(con)
            raise
    return result


def _qid_order(qid: str) -> tuple[int, str]:
    digits = qid[1:] if qid[:1] == "q" else ""
    return (int(digits), qid) if digits.isdigit() else (1 << 30, qid)
