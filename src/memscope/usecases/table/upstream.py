"""``memscope table --check-upstream``: the per-run numbers against the benchmark's own table.

Each benchmark's spec says where upstream writes its table and how a row is matched to a
run (``Benchmark.check_table``: MemEye's matrix runner ``summary.csv``, DMV-Bench's
``f2_summary.csv`` …). Upstream rounds its CSV numbers, so a value agrees when it is within
half a unit of the last digit written.
"""

from __future__ import annotations

from typing import Any

from memscope.usecases.runs.loading import RunData


def check_upstream(data: list[RunData]) -> dict[str, Any]:
    """Every comparison with an upstream summary row that names one of the runs.

    Returns ``{"checks": [{"source", "run", "field", "upstream", "memscope", "agrees"}],
    "n_runs_checked", "n_disagreeing", "runs_without_summary": [run id], "summary_files":
    [each benchmark's summary files, in words, for the text's message]}``.
    """
    checks: list[dict[str, Any]] = []
    without = []
    files: list[str] = []
    for run_data in data:
        spec = run_data.spec
        described = f"{spec.title} {spec.summary_files}" if spec.summary_files else ""
        if described and described not in files:
            files.append(described)
        check = spec.check_table
        found = check(run_data.hook_view()) if check is not None else []
        if not found:
            without.append(run_data.run.run_id)
        checks += found
    return {
        "checks": checks,
        "n_runs_checked": len({c["run"] for c in checks}),
        "n_disagreeing": sum(not c["agrees"] for c in checks),
        "runs_without_summary": without,
        "summary_files": files,
    }
