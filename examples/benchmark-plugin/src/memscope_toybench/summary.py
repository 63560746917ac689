"""ToyBench's own summary (``summary.toybench.json``: ``{"n", "correct", "by_kind": {kind:
{"n", "correct"}}}``) against the rows memscope stored; counts must agree exactly.

:func:`check_stored` (at ingest) checks the count and accuracy, :func:`check_table` (``table
--check-upstream``) each kind's count and number correct.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import memscope.plugin as ms

SUMMARY_FILE = "summary.toybench.json"


def _summary(run_dir: Path) -> dict[str, Any]:
    try:
        found = (
            ms.read_json_file(run_dir / SUMMARY_FILE) if (run_dir / SUMMARY_FILE).is_file() else {}
        )
    except ms.MemscopeError:
        return {}
    return found if isinstance(found, dict) else {}


def check_stored(
    record: ms.RunRecord, stored: ms.StoredMeans
) -> tuple[dict[str, Any] | None, list[ms.Notice]]:
    """The summary's ``n`` and ``correct / n`` against the stored count and mean EM."""
    summary, means = _summary(Path(record.path)), stored(["em"])
    if not summary:
        return None, []
    n, correct = summary.get("n"), summary.get("correct")
    accuracy = correct / n if isinstance(correct, int) and isinstance(n, int) and n else None
    fields = [("n", n, means.get("n"), 0.0), ("accuracy", accuracy, means.get("em"), 1e-9)]
    check = ms.summary_check(str(Path(record.path) / SUMMARY_FILE), fields)
    return check, ms.check_notices(check)


def check_table(data: ms.RunColumns) -> list[ms.JSONObject]:
    """Per kind, the summary's ``n`` and ``correct`` against the run's stored rows."""
    by_kind = _summary(data.run_dir).get("by_kind")
    graded = list(zip(data.attribute("kind").tolist(), data.column("em").tolist(), strict=True))
    checks: list[ms.JSONObject] = []
    for kind, written in by_kind.items() if isinstance(by_kind, dict) else ():
        mine = [em for k, em in graded if k == kind]
        ours = {"n": len(mine), "correct": sum(1 for em in mine if em >= 1.0)}  # NaN: not
        for field, theirs in written.items() if isinstance(written, dict) else ():
            if field in ours and type(theirs) in (int, float):
                source, run = data.run_dir / SUMMARY_FILE, str(data.run["run_id"])
                found = ms.csv_comparison(source, run, f"{kind} {field}", str(theirs), ours[field])
                checks += [found] if found else []
    return checks
