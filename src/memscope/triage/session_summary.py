"""What a triage session leaves behind, in one line for the terminal after the app quits,
and where the app's in-app export (``e``) writes by default."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from memscope.errors import InputError
from memscope.textsafe import printable_id

if TYPE_CHECKING:
    from memscope.usecases.runs.store_access import Store

EXPORT_SUFFIXES = {".csv": "csv", ".jsonl": "jsonl", ".json": "jsonl", ".parquet": "parquet"}
"""File name endings the in-app export understands, and the format each means."""


def session_summary(
    store: Store,
    run_id: str,
    annotator: str,
    exported: str | None,
    qids: Iterable[str],
    verdict_qids: Iterable[str] = (),
) -> str:
    """``srag_v: labelled 12 · 3 notes · exported: no``: of the questions ``qids`` whose
    label this session changed, how many carry a label (and a note) of ``annotator`` now;
    `` · 4 verdicts`` after the notes when, of the questions ``verdict_qids`` whose verdict
    this session changed, some carry one of ``annotator`` now.

    Labels and verdicts made before the session, or by another annotator, are not counted."""
    from memscope.usecases.labels.events import current_labels

    changed = set(qids)
    current = current_labels(store, run_id, annotator=annotator) if changed else {}
    labels = [label for qid, label in current.items() if qid in changed]
    labelled = sum(1 for label in labels if label.codes)
    notes = sum(1 for label in labels if (label.note or "").strip())
    judged = _verdicts_now(store, run_id, annotator, set(verdict_qids))
    verdicts = f" · {judged} verdict{'s' if judged != 1 else ''}" if judged else ""
    return (
        f"{printable_id(run_id)}: labelled {labelled} · {notes} note{'s' if notes != 1 else ''}"
        f"{verdicts} · exported: {exported or 'no'}"
    )


def _verdicts_now(store: Store, run_id: str, annotator: str, qids: set[str]) -> int:
    """How many of ``qids`` carry a verdict of ``annotator`` now."""
    if not qids:
        return 0
    from memscope.usecases.labels.verdicts import current_verdicts

    return len(qids & set(current_verdicts(store, run_id, annotator=annotator)))


def default_export_path(store: Store, run_id: str) -> Path:
    """``labels-<run>.csv`` beside the store file.

    A run id that is not all letters, digits, ``.``, ``_`` and ``-`` gets a short hash of
    itself after the safe part: ``srag_v`` and ``srag_v`` + U+200B never share a default file.
    """
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", run_id).strip("_") or "run"
    if safe != run_id:
        safe += "-" + hashlib.sha256(run_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return Path(store.path).resolve().parent / f"labels-{safe}.csv"


def export_format(path: Path) -> str:
    """The export format a file name asks for (by its ending)."""
    found = EXPORT_SUFFIXES.get(path.suffix.lower())
    if found is None:
        raise InputError(
            f"cannot tell the export format of {path.name!r}",
            where=str(path),
            fix="End the file name in .csv, .jsonl or .parquet.",
        )
    return found
