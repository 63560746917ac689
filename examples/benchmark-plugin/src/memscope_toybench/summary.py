"""ToyBench's own summary (``summary.toybench.json``) checked against the rows memscope stored.

ToyBench's scorer writes ``{"n", "correct", "by_kind": {kind: {"n", "correct"}}}`` beside
the answers. Two spec hooks compare it:

- :func:`check_stored` (``Benchmark.check_stored``), at ingest: the run's question count and
  accuracy, so ``ingest`` and ``report`` say "agrees with upstream's summary";
- :func:`check_table` (``Benchmark.check_table``), for ``memscope table --check-upstream``:
  each kind's count and number correct.

Counts must agree exactly.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from memscope.plugin import (
    MemscopeError,
    Notice,
    RunColumns,
    RunRecord,
    StoredMeans,
    check_notices,
    read_json_file,
    summary_check,
)

SUMMARY_FILE = "summary.toybench.json"


def _summary(run_dir: Path) -> dict[str, Any] | None:
    path = run_dir / SUMMARY_FILE
    if not path.is_file():
        return None
    try:
        found = read_json_file(path, what=SUMMARY_FILE)
    except MemscopeError:
        return None
    return found if isinstance(found, dict) else None


def check_stored(
    record: RunRecord, stored: StoredMeans
) -> tuple[dict[str, Any] | None, list[Notice]]:
    """The summary's ``n`` and ``correct / n`` against the stored rows' count and mean EM."""
    summary = _summary(Path(record.path))
    if summary is None:
        return None, []
    means = stored(["em"])
    n, correct = summary.get("n"), summary.get("correct")
    accuracy = correct / n if isinstance(correct, int) and isinstance(n, int) and n else None
    check = summary_check(
        str(Path(record.path) / SUMMARY_FILE),
        [("n", n, means.get("n"), 0.0), ("accuracy", accuracy, means.get("em"), 1e-9)],
    )
    return check, check_notices(check)


def check_table(data: RunColumns) -> list[dict[str, Any]]:
    """Per kind, the summary's ``n`` and ``correct`` against the run's stored rows."""
    run_dir = data.run_dir
    summary = _summary(run_dir)
    by_kind = summary.get("by_kind") if summary else None
    if not isinstance(by_kind, dict):
        return []
    kinds = data.attribute("kind").tolist()
    grades = data.column("em").tolist()
    checks = []
    for kind, written in by_kind.items():
        if not isinstance(written, dict):
            continue
        mine = [g for k, g in zip(kinds, grades, strict=True) if k == kind]
        recomputed = {
            "n": len(mine),
            "correct": sum(1 for g in mine if not math.isnan(g) and g >= 1.0),
        }
        for field in ("n", "correct"):
            upstream = written.get(field)
            if not isinstance(upstream, (int, float)) or isinstance(upstream, bool):
                continue
            checks.append(
                {
                    "source": str(run_dir / SUMMARY_FILE),
                    "run": str(data.run["run_id"]),
                    "field": f"{kind} {field}",
                    "upstream": float(upstream),
                    "memscope": float(recomputed[field]),
                    "agrees": float(upstream) == float(recomputed[field]),
                }
            )
    return checks
