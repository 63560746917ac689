"""``memscope table --check-upstream``: the per-run numbers against the benchmark's own table.

- MemEye's matrix runner writes ``runs/<task>/matrices/<ts>/summary.csv``
  (docs/upstream-formats §1.9: one row per model × method with ``num_qas_run``, ``em``,
  ``judge``, ``run_dir``); a row is matched to a run by its run directory's name and
  compared on n, mean EM and mean judge over all questions.
- DMV-Bench writes ``f2_summary.csv`` in the run directory (§2.3: ``system, SR,
  n_recall_tasks, recall_at_reach_<r>``); a row is matched by system and compared on n, TSR
  and TSR per reach (upstream writes -1 for a reach without probes).

Upstream rounds its CSV numbers, so a value agrees when it is within half a unit of the
last digit written.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np

from memscope.file_kinds import open_regular
from memscope.usecases.loading import RunData
from memscope.usecases.question_extras import as_float, extra_columns


def _tolerance(text: str) -> float:
    digits = len(text.partition(".")[2]) if "." in text else 0
    return 0.5 * 10.0**-digits + 1e-9


def _read_csv(path: Path) -> list[dict[str, str]]:
    try:
        # open_regular: a FIFO or device named summary.csv is skipped, not waited on.
        with open(open_regular(path), newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error):
        return []


def _compare(
    source: Path, run_id: str, name: str, upstream: str | None, mine: float | None
) -> dict[str, Any] | None:
    if upstream in (None, ""):
        return None
    try:
        number = float(upstream)
    except ValueError:
        return None
    agrees = mine is not None and abs(number - mine) <= _tolerance(str(upstream))
    return {
        "source": str(source),
        "run": run_id,
        "field": name,
        "upstream": number,
        "memscope": mine,
        "agrees": bool(agrees),
    }


def _mean(values: np.ndarray) -> float | None:
    defined = values[~np.isnan(values)]
    return float(defined.mean()) if defined.size else None


def _memeye(data: RunData) -> list[dict[str, Any]]:
    path = Path(str(data.run.get("path") or ""))
    checks = []
    for summary in sorted(path.parent.glob("matrices/*/summary.csv")):
        for row in _read_csv(summary):
            if Path(row.get("run_dir") or "").name != path.name:
                continue
            em = data.column("em").astype(float)
            judge = data.column("judge").astype(float)
            checks += [
                _compare(summary, data.run["run_id"], "n", row.get("num_qas_run"), float(len(em))),
                _compare(summary, data.run["run_id"], "em", row.get("em"), _mean(em)),
                _compare(summary, data.run["run_id"], "judge", row.get("judge"), _mean(judge)),
            ]
    return [c for c in checks if c is not None]


def _dmv(data: RunData) -> list[dict[str, Any]]:
    directory = Path(str(data.run.get("path") or "").partition("#")[0])
    summary = directory / "f2_summary.csv"
    system = data.run.get("method")
    checks = []
    success = data.column("em").astype(float)
    reach = as_float(extra_columns(data.questions, ("reach",))["reach"])
    for row in _read_csv(summary):
        if row.get("system") != system:
            continue
        run_id = data.run["run_id"]
        checks += [
            _compare(summary, run_id, "n", row.get("n_recall_tasks"), float(len(success))),
            _compare(summary, run_id, "tsr", row.get("SR"), _mean(success)),
        ]
        for name, value in row.items():
            if name and name.startswith("recall_at_reach_") and value not in (None, "", "-1"):
                r = float(name.rpartition("_")[2])
                checks.append(
                    _compare(
                        summary, run_id, f"tsr reach {int(r)}", value, _mean(success[reach == r])
                    )
                )
    return [c for c in checks if c is not None]


def check_upstream(data: list[RunData]) -> dict[str, Any]:
    """Every comparison with an upstream summary row that names one of the runs.

    Returns ``{"checks": [{"source", "run", "field", "upstream", "memscope", "agrees"}],
    "n_runs_checked", "n_disagreeing", "runs_without_summary": [run id]}``.
    """
    checks: list[dict[str, Any]] = []
    without = []
    for run_data in data:
        benchmark = run_data.run.get("benchmark")
        found = (
            _memeye(run_data)
            if benchmark == "memeye"
            else _dmv(run_data)
            if benchmark == "dmv"
            else []
        )
        if not found:
            without.append(run_data.run["run_id"])
        checks += found
    return {
        "checks": checks,
        "n_runs_checked": len({c["run"] for c in checks}),
        "n_disagreeing": sum(not c["agrees"] for c in checks),
        "runs_without_summary": without,
    }
