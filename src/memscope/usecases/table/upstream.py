"""``memscope table --check-upstream``: the per-run numbers against the benchmark's own table.

Each benchmark's spec says where upstream writes its table and how a row is matched to a
run (``Benchmark.check_table``: MemEye's matrix runner ``summary.csv``, DMV-Bench's
``f2_summary.csv`` …). Upstream rounds its CSV numbers, so a value agrees when it is within
half a unit of the last digit written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memscope.usecases.runs.loading import RunData

if TYPE_CHECKING:
    from memscope.store import Store


def _read_sources(store: Store | None, data: list[RunData]) -> dict[str, dict[str, str]]:
    """Run id -> the read options the store remembers the run was read with (``dataset``
    and the benchmark's own, such as a retrieval log), ``{}`` without a store."""
    if store is None:
        return {}
    from memscope.store.queries import run_configs
    from memscope.usecases.runs.ingest import READ_SOURCES

    with store.read() as con:
        configs = run_configs(con, [part.run.run_id for part in data])
    found: dict[str, dict[str, str]] = {}
    for run_id, config in configs.items():
        sources = config.get(READ_SOURCES)
        if isinstance(sources, dict):
            found[run_id] = {str(k): str(v) for k, v in sources.items() if isinstance(v, str)}
    return found


def check_upstream(data: list[RunData], store: Store | None = None) -> dict[str, Any]:
    """Every comparison with an upstream summary row that names one of the runs.

    ``store``: where the runs' remembered read options are looked up, which a benchmark's
    check may need to find upstream's numbers outside the run's folder (the hook sees
    them as the row's ``read_sources``).

    Returns ``{"checks": [{"source", "run", "field", "upstream", "memscope", "agrees"}],
    "n_runs_checked", "n_disagreeing", "runs_without_summary": [run id], "summary_files":
    [each benchmark's summary files, in words, for the text's message]}``.
    """
    checks: list[dict[str, Any]] = []
    without = []
    files: list[str] = []
    read_sources = _read_sources(store, data)
    for run_data in data:
        spec = run_data.spec
        described = f"{spec.title} {spec.summary_files}" if spec.summary_files else ""
        if described and described not in files:
            files.append(described)
        check = spec.check_table
        sources = read_sources.get(run_data.run.run_id)
        found = check(run_data.hook_view(sources)) if check is not None else []
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
