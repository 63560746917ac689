"""DMV-Bench's ``f2_summary.csv`` for ``memscope table --check-upstream`` (upstream-formats §2.3).

A row is matched to a run by its system and compared on n, TSR and TSR per reach
(upstream writes -1 for a reach without probes). The same file is also checked at ingest,
while the run is read (``run.summary_comparisons``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from memscope.plugin import JSONObject, csv_comparison, mean_defined, read_csv_rows

if TYPE_CHECKING:
    import numpy as np

    from memscope.plugin import RunColumns

SUMMARY = "f2_summary.csv"


def _floats(values: np.ndarray) -> np.ndarray:
    import numpy as np  # here, not at import: the registry imports this module at start-up

    out = np.full(len(values), np.nan)
    for i, value in enumerate(values.tolist()):
        try:
            out[i] = float(value)
        except (TypeError, ValueError):
            continue
    return out


def check_table(data: RunColumns) -> list[JSONObject]:
    """The ``f2_summary.csv`` row of this run's system, compared."""
    directory = Path(str(data.run.get("path") or "").partition("#")[0])
    summary = directory / SUMMARY
    system = data.run.get("method")
    run_id = str(data.run["run_id"])
    success = data.column("em").astype(float)
    reach = _floats(data.attribute("reach"))
    checks = []
    for row in read_csv_rows(summary):
        if row.get("system") != system:
            continue
        checks += [
            csv_comparison(summary, run_id, "n", row.get("n_recall_tasks"), float(len(success))),
            csv_comparison(summary, run_id, "tsr", row.get("SR"), mean_defined(success)),
        ]
        for name, value in row.items():
            if name and name.startswith("recall_at_reach_") and value not in (None, "", "-1"):
                r = float(name.rpartition("_")[2])
                checks.append(
                    csv_comparison(
                        summary,
                        run_id,
                        f"tsr reach {int(r)}",
                        value,
                        mean_defined(success[reach == r]),
                    )
                )
    return [c for c in checks if c is not None]
