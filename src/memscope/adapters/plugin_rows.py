"""What a plugin's ``read_all`` hands back, checked as memscope's own readers check rows.

memscope's readers refuse or skip a bad row themselves (``--strict`` refuses the run); a
plugin's rows would otherwise be stored as given: an ``em`` of 5 makes EM 1.167, a qid
written twice counts a question twice, a prediction for a question the dataset does not
have is kept. :func:`checked_records` holds a plugin's records to the same rules before
anything is stored, and names the plugin in every message.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from memscope.errors import PluginError, RunDirError
from memscope.records import DatasetRecord, Notice, RunRecord

if TYPE_CHECKING:
    import pyarrow as pa

SCORES = ("em", "judge", "f1")
"""Prediction columns that are 0–1 where present (docs/benchmarks.md, Identity)."""
EXAMPLES = 5


def checked_records(
    name: str, package: str, records: object, path: str, *, strict: bool
) -> list[RunRecord]:
    """``records`` (what benchmark ``name``'s ``read_all`` returned for ``path``) with bad
    prediction and retrieval rows left out, each skip a notice naming the plugin.

    Raises:
        PluginError: not a list of RunRecords of this benchmark, or predictions that are
            not an Arrow table.
        RunDirError: a bad row with ``strict`` (``--strict``): nothing is stored.
    """
    import pyarrow as pa

    plugin = f"benchmark {name!r} ({package})"
    fix = f"This is a bug in the package that provides it ({package}); report it to its authors."
    if not isinstance(records, (list, tuple)) or not all(
        isinstance(record, RunRecord) for record in records
    ):
        raise PluginError(
            f"{plugin}: read_all returned {type(records).__name__}, not a list of RunRecord",
            where=path,
            fix=fix,
        )
    for record in records:
        if record.benchmark != name:
            raise PluginError(
                f"{plugin}: read_all returned a run of benchmark {record.benchmark!r}",
                where=path,
                fix=fix,
            )
        if not isinstance(record.predictions, pa.Table):
            raise PluginError(
                f"{plugin}: a run's predictions are a {type(record.predictions).__name__}, "
                "not a pyarrow Table",
                where=path,
                fix=fix,
            )
        if record.retrievals is not None and not isinstance(record.retrievals, pa.Table):
            raise PluginError(
                f"{plugin}: a run's retrievals are a {type(record.retrievals).__name__}, "
                "not a pyarrow Table or None",
                where=path,
                fix=fix,
            )
        qids = (
            {question.qid for question in record.dataset.questions}
            if isinstance(record.dataset, DatasetRecord)
            else None
        )
        record.predictions = _checked(
            plugin, record, record.predictions, "prediction", qids, strict=strict, unique=True
        )
        if record.retrievals is not None:
            record.retrievals = _checked(
                plugin, record, record.retrievals, "retrieval", qids, strict=strict, unique=False
            )
    return list(records)


def _checked(
    plugin: str,
    record: RunRecord,
    table: pa.Table,
    what: str,
    qids: set[str] | None,
    *,
    strict: bool,
    unique: bool,
) -> pa.Table:
    """``table`` without its bad rows; a notice per reason (or a refusal with ``strict``)."""
    if "qid" not in table.column_names:
        raise PluginError(
            f"{plugin}: the run's {what} table has no qid column",
            where=record.path,
            fix="A plugin's reader gives every row its question's qid (docs/benchmarks.md).",
        )
    columns = {
        column: table.column(column).to_pylist()
        for column in ("qid", *SCORES)
        if column in table.column_names and (column == "qid" or what == "prediction")
    }
    reasons: dict[str, list[str]] = {}
    keep: list[bool] = []
    seen: set[str] = set()
    for row, qid in enumerate(columns["qid"]):
        reason = None
        if not isinstance(qid, str) or not qid:
            reason = "no qid"
        elif qids is not None and qid not in qids:
            reason = "a qid the dataset does not have"
        elif unique and qid in seen:
            reason = "a qid given twice (the first row is kept)"
        else:
            for column in SCORES:
                if column not in columns:
                    continue
                value = columns[column][row]
                if value is not None and not (
                    isinstance(value, (int, float)) and math.isfinite(value) and 0 <= value <= 1
                ):
                    reason = f"{column} outside [0, 1]"
                    break
        if reason is None and isinstance(qid, str):
            seen.add(qid)
        keep.append(reason is None)
        if reason is not None:
            reasons.setdefault(reason, []).append(str(qid))
    if not reasons:
        return table
    if strict:
        first, shown = next(iter(reasons.items()))
        raise RunDirError(
            f"{plugin}: {sum(map(len, reasons.values()))} {what} row(s) are bad ({first}: "
            f"{', '.join(shown[:EXAMPLES])}); nothing was ingested (--strict)",
            where=record.path,
            fix="Fix the run or the plugin, or drop --strict to ingest the good rows.",
        )
    import pyarrow as pa

    for reason, shown in reasons.items():
        record.notices.append(
            Notice(
                f"{plugin}: {len(shown)} {what} row(s) skipped: {reason}",
                record.path,
                tuple(shown[:EXAMPLES]),
            )
        )
    return table.filter(pa.array(keep, type=pa.bool_()))
