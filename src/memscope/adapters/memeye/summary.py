"""MemEye's own summaries, checked against what memscope stored.

- ``metrics.json`` ``summary`` (upstream-formats §1.4): ``open_count`` = every row and the
  ``overall`` means of EM, F1, BLEU-1 and judge, compared with the run's stored rows once
  they are in the store (:func:`check_stored`).
- The matrix runner's ``runs/<task>/matrices/<ts>/summary.csv`` (§1.9: one row per model ×
  method with ``num_qas_run``, ``em``, ``judge``, ``run_dir``): a row is matched to a run
  by its run directory's name and compared on n and the means (:func:`check_table`,
  ``memscope table --check-upstream``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from memscope.plugin import (
    RATE_TOLERANCE,
    Comparison,
    JSONObject,
    check_notices,
    csv_comparison,
    mean_defined,
    read_csv_rows,
    summary_check,
)

if TYPE_CHECKING:
    from memscope.plugin import Notice, RunColumns, RunRecord, StoredMeans

MEANS = ("em", "f1", "bleu_1", "judge")
"""``summary.overall`` means the store keeps a per-question value of."""


def check_stored(record: RunRecord, stored: StoredMeans) -> tuple[JSONObject | None, list[Notice]]:
    """The cross-check of ``metrics.json``'s ``summary`` against the stored rows."""
    summary = record.metrics.get("summary")
    if summary is None or summary == {}:
        return None, []
    where = str(Path(record.path) / "metrics.json")
    surprises: list[str] = []
    comparisons: list[Comparison] = []
    overall = summary.get("overall") if isinstance(summary, dict) else None
    if not isinstance(summary, dict) or not isinstance(overall, dict):
        surprises.append(
            "metrics.json 'summary' has no 'overall' object (upstream-formats.md 1.4); not cross-checked"
        )
    else:
        found = stored(MEANS)
        if isinstance(summary.get("open_count"), int):
            comparisons.append(("open_count", summary["open_count"], found["n"], 0.0))
        for name in MEANS:
            value = overall.get(name)
            if value is None:
                continue
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                surprises.append(
                    f"metrics.json summary.overall.{name} is not a number: {value!r}"[:160]
                )
                continue
            comparisons.append((f"overall.{name}", float(value), found[name], RATE_TOLERANCE))
    check = summary_check(where, comparisons, surprises=surprises)
    return check, check_notices(check)


def check_table(data: RunColumns) -> list[JSONObject]:
    """The matrix runner's ``summary.csv`` rows that name this run, compared."""
    path = Path(str(data.run.get("path") or ""))
    run_id = str(data.run["run_id"])
    checks = []
    for summary in sorted(path.parent.glob("matrices/*/summary.csv")):
        for row in read_csv_rows(summary):
            if Path(row.get("run_dir") or "").name != path.name:
                continue
            em = data.column("em").astype(float)
            judge = data.column("judge").astype(float)
            checks += [
                csv_comparison(summary, run_id, "n", row.get("num_qas_run"), float(len(em))),
                csv_comparison(summary, run_id, "em", row.get("em"), mean_defined(em)),
                csv_comparison(summary, run_id, "judge", row.get("judge"), mean_defined(judge)),
            ]
    return [c for c in checks if c is not None]
