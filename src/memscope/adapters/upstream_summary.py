"""Cross-checks a benchmark's own summary file against the numbers memscope recomputes.

Each benchmark writes its headline numbers next to the per-question file: DMV-Bench's
``f2_summary.csv`` (SR overall and by reach per system), MemEye's ``metrics.json``
``summary`` (counts and means), CUE-Mem's ``<data>_accuracy.json`` (correct / total /
accuracy per category). Recomputing them from the per-question rows memscope stored is the
first check a reviewer asks for: when they agree, memscope read the run as upstream did.

:func:`summary_check` builds the record kept in the run's ``metrics["upstream_check"]``
(shown at ingest and by ``memscope report``); :func:`check_sentence` says it in words.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from memscope.json_types import JSONObject, JSONValue
from memscope.records import Notice

if TYPE_CHECKING:
    import numpy as np

CHECK_KEY = "upstream_check"
"""The key of the check in a run's ``metrics``."""
RATE_TOLERANCE = 5e-4
"""Largest difference of a rate in [0, 1] that still agrees (upstream rounds to 4 places)."""
PERCENT_TOLERANCE = 0.05
"""Largest difference of a percentage that still agrees (upstream rounds to 1–2 places)."""
MAX_LISTED = 6

Comparison = tuple[str, JSONValue, JSONValue, float]
"""``(field, upstream value, recomputed value, tolerance)``; tolerance 0 = exact."""


def _agrees(upstream: JSONValue, recomputed: JSONValue, tolerance: float) -> bool:
    if upstream is None or recomputed is None:
        return upstream is None and recomputed is None
    if isinstance(upstream, (int, float)) and isinstance(recomputed, (int, float)):
        if math.isnan(float(upstream)) or math.isnan(float(recomputed)):
            return math.isnan(float(upstream)) and math.isnan(float(recomputed))
        return abs(float(upstream) - float(recomputed)) <= tolerance
    return bool(upstream == recomputed)


def summary_check(
    file: str,
    comparisons: list[Comparison],
    *,
    surprises: list[str] | None = None,
    not_compared: list[str] | None = None,
) -> JSONObject:
    """The check record of one summary file.

    Returns:
        ``{"file", "agrees", "checked", "fields" (what was compared), "differences":
        [{"field", "upstream", "recomputed"}], "surprises": [...]}``, with
        ``"not_compared"`` (what the file holds that this check leaves out) when given;
        ``agrees`` is None when nothing could be compared.
    """
    differences: list[JSONValue] = [
        {"field": name, "upstream": upstream, "recomputed": recomputed}
        for name, upstream, recomputed, tolerance in comparisons
        if not _agrees(upstream, recomputed, tolerance)
    ]
    found: JSONObject = {
        "file": file,
        "agrees": (not differences) if comparisons else None,
        "checked": len(comparisons),
        "fields": [name for name, *_ in comparisons],
        "differences": differences,
        "surprises": list[JSONValue](surprises or []),
    }
    if not_compared:
        found["not_compared"] = list[JSONValue](not_compared)
    return found


def _items(value: JSONValue) -> list[JSONValue]:
    """A list field of a check record (none when it is missing)."""
    return value if isinstance(value, list) else []


def _count(value: JSONValue) -> int:
    return int(value) if isinstance(value, (int, float, str)) and value else 0


def merge_checks(checks: list[JSONObject]) -> JSONObject:
    """One check record over several summary files of one run (CUE-Mem's
    ``<data>_accuracy.json`` and a group of ``aggregated_accuracy.json``).

    ``file`` is the first file, ``files`` every one; with more than one file each
    difference's field names its file; ``agrees`` is None only when no file had anything
    to compare.
    """
    if len(checks) == 1:
        return checks[0]
    compared = [check for check in checks if check.get("agrees") is not None]

    def named(check: JSONObject, difference: JSONObject) -> JSONObject:
        name = str(check.get("file", "")).replace("\\", "/").rsplit("/", 1)[-1]
        return {**difference, "field": f"{name}: {difference['field']}"}

    differences: list[JSONValue] = [
        named(check, difference)
        for check in checks
        for difference in _items(check.get("differences"))
        if isinstance(difference, dict)
    ]
    merged: JSONObject = {
        "file": checks[0].get("file"),
        "files": [check.get("file") for check in checks],
        "agrees": all(check["agrees"] for check in compared) if compared else None,
        "checked": sum(_count(check.get("checked")) for check in checks),
        "differences": differences,
        "surprises": [surprise for check in checks for surprise in _items(check.get("surprises"))],
    }
    groups = [group for check in checks for group in _items(check.get("groups"))]
    if groups:
        merged["groups"] = groups
    return merged


def _value(value: JSONValue) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    return "none" if value is None else str(value)


def _field_families(fields: list[str]) -> str:
    """The compared fields, those of one family together: ``open_count,
    overall.{em, f1, judge}``; a family of more than five as ``f1.category_counts.* (10)``."""
    families: dict[str, list[str]] = {}
    for name in fields:
        family, dot, member = name.rpartition(".")
        families.setdefault(family if dot else name, []).append(member if dot else "")
    parts = []
    for family, members in families.items():
        named = [m for m in members if m]
        if not named:
            parts.append(family)
        elif len(named) == 1:
            parts.append(f"{family}.{named[0]}")
        elif len(named) <= 5:
            parts.append(f"{family}.{{{', '.join(named)}}}")
        else:
            parts.append(f"{family}.* ({len(named)})")
    return ", ".join(parts)


def check_sentence(check: Mapping[str, JSONValue]) -> str:
    """One line: "agrees with upstream's summary …" or the differences, naming the file."""
    files = [str(f) for f in _items(check.get("files")) or [check.get("file", "the summary file")]]
    file = " and ".join(files)
    summary = "summaries" if len(files) > 1 else "summary"
    if check.get("agrees") is None:
        return f"upstream's {summary} {file} holds nothing memscope can recompute"
    if check["agrees"]:
        name = " and ".join(f.replace("\\", "/").rsplit("/", 1)[-1] for f in files)
        fields = [str(f) for f in _items(check.get("fields"))]
        what = f": {_field_families(fields)}" if fields else ""
        left = [str(f) for f in _items(check.get("not_compared"))]
        unchecked = (
            f"; not compared here: {', '.join(left)} (memscope table --check-upstream compares them)"
            if left
            else ""
        )
        return (
            f"agrees with upstream's {summary} {name} in the {check['checked']} values "
            f"recomputed{what}{unchecked}"
        )
    differences = [d for d in _items(check.get("differences")) if isinstance(d, dict)]
    listed = "; ".join(
        f"{d['field']}: upstream {_value(d['upstream'])}, recomputed {_value(d['recomputed'])}"
        for d in differences[:MAX_LISTED]
    )
    more = f"; … {len(differences) - MAX_LISTED} more" if len(differences) > MAX_LISTED else ""
    return (
        f"differs from upstream's {summary} {file} in {len(differences)} of {check['checked']} "
        f"values: {listed}{more}"
    )


def check_notices(check: Mapping[str, JSONValue]) -> list[Notice]:
    """Warnings for a disagreeing check and for fields of the summary that surprised the reader."""
    file = str(check["file"])
    notices = [Notice(str(surprise), file) for surprise in _items(check.get("surprises"))]
    if check.get("agrees") is False:
        notices.append(Notice(check_sentence(check), file))
    return notices


def csv_tolerance(text: str) -> float:
    """Half a unit of the last digit written: upstream rounds its CSV numbers."""
    digits = len(text.partition(".")[2]) if "." in text else 0
    return 0.5 * 10.0**-digits + 1e-9


def read_csv_rows(path: Path) -> list[dict[str, str]]:
    """The rows of an upstream CSV summary (none when it cannot be read)."""
    import csv

    from memscope.file_kinds import open_regular

    try:
        # open_regular: a FIFO or device named like the summary is skipped, not waited on.
        with open(open_regular(path), newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error):
        return []


def csv_comparison(
    source: Path, run_id: str, name: str, upstream: str | None, mine: float | None
) -> JSONObject | None:
    """One ``table --check-upstream`` comparison of a CSV value with memscope's (None when
    upstream wrote no number there)."""
    if upstream in (None, ""):
        return None
    try:
        number = float(upstream)
    except ValueError:
        return None
    agrees = mine is not None and abs(number - mine) <= csv_tolerance(str(upstream))
    return {
        "source": str(source),
        "run": run_id,
        "field": name,
        "upstream": number,
        "memscope": mine,
        "agrees": bool(agrees),
    }


def mean_defined(values: np.ndarray) -> float | None:
    """The mean of the defined (non-NaN) values of a float array, None when there are none."""
    import numpy as np

    defined = values[~np.isnan(values)]
    return float(defined.mean()) if defined.size else None
