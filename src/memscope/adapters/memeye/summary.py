"""MemEye's own summaries, checked against what memscope stored.

- ``metrics.json`` ``summary`` (upstream-formats §1.4): ``open_count`` = every row and the
  ``overall`` means of EM, F1, BLEU-1 and judge, compared with the run's stored rows once
  they are in the store (:func:`check_stored`).
- The matrix runner's ``runs/<task>/matrices/<ts>/summary.csv`` (§1.9: one row per model ×
  method with ``num_qas_run``, ``em``, ``judge``, ``run_dir``): a row is matched to a run
  by its run directory's name and compared on n and the means (:func:`check_table`,
  ``memscope table --check-upstream``).
- ``metrics.json``'s ``by_x``, ``by_y`` and ``by_cell`` means (EM, F1, judge), under the
  runner's own counting: a question with several X or Y labels counts in every bucket it
  names, and in every (X, Y) pair for cells (upstream-formats §1.4; memscope's default
  places a question by its highest label, the paper's rule). :func:`check_levels`, also
  in ``memscope table --check-upstream``; ``table --membership every`` shows these numbers.
"""

from __future__ import annotations

import json
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
    # The per-level means need every label of a question (the runner's counting): they
    # are compared by ``table --check-upstream`` (check_levels), and said to be left here.
    left = [key for key in LEVEL_KEYS if isinstance(summary, dict) and summary.get(key)]
    check = summary_check(where, comparisons, surprises=surprises, not_compared=left)
    return check, check_notices(check)


LEVEL_MEANS = ("em", "f1", "judge")
"""Per-level means of ``metrics.json`` the question table has a per-question value of."""
LEVEL_KEYS = ("by_x", "by_y", "by_cell")


def _every(data: RunColumns, name: str) -> list[tuple[str, ...]]:
    """Per question, every distinct label of ``x_labels`` / ``y_labels``, in order."""
    return [
        tuple(dict.fromkeys(str(v) for v in (labels if labels is not None else ()) if v))
        for labels in data.column(name)
    ]


def check_levels(data: RunColumns) -> list[JSONObject]:
    """``metrics.json``'s per-level means compared with the run's questions under the
    runner's counting (a question in every bucket it names); none without the file."""
    import numpy as np  # here, not at import: the registry imports this module at start-up

    path = Path(str(data.run.get("path") or "")) / "metrics.json"
    try:
        summary = json.loads(path.read_text(encoding="utf-8")).get("summary")
    except (OSError, ValueError, AttributeError):
        return []
    if not isinstance(summary, dict):
        return []
    xs, ys = _every(data, "x_labels"), _every(data, "y_labels")
    members = {
        "by_x": xs,
        "by_y": ys,
        "by_cell": [tuple(f"{x}_{y}" for x in a for y in b) for a, b in zip(xs, ys, strict=True)],
    }
    run_id = str(data.run["run_id"])
    checks: list[JSONObject] = []
    for key in LEVEL_KEYS:
        levels = summary.get(key)
        if not isinstance(levels, dict):
            continue
        for level, means in levels.items():
            if not isinstance(means, dict):
                continue
            chosen = np.fromiter((level in named for named in members[key]), dtype=bool)
            for name in LEVEL_MEANS:
                value = means.get(name)
                if not isinstance(value, (int, float)) or isinstance(value, bool):
                    continue
                mine = mean_defined(data.column(name).astype(float)[chosen])
                checks.append(
                    {
                        "source": str(path),
                        "run": run_id,
                        "field": f"{key}.{level}.{name}",
                        "upstream": float(value),
                        "memscope": mine,
                        "agrees": mine is not None and abs(float(value) - mine) <= RATE_TOLERANCE,
                    }
                )
    return checks


def check_table(data: RunColumns) -> list[JSONObject]:
    """The matrix runner's ``summary.csv`` rows that name this run, and ``metrics.json``'s
    per-level means (:func:`check_levels`), compared."""
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
    return [c for c in checks if c is not None] + check_levels(data)
