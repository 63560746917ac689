"""Which columns a benchmark's results table has, and how a question maps to them.

This is the one place ``memscope table`` learns a benchmark's axes; it reads the same
per-question attributes the report pipelines read (``pipeline/report.py``,
``report_cue.py``, ``report_dmv.py``), so it can later be pointed at a shared axes registry
without touching the table itself.

- MemEye: ``x`` (X1-X4), ``y`` (Y1-Y3), ``cell`` (X_Y), ``task``; the extra column
  ``macro`` is the coordinate-balanced macro average (the mean of the X×Y cell means).
- CUE-Mem: ``task`` (task group), ``evidence`` (explicit / implicit), ``cell``
  (task/setting); extra columns Memory Avg. per setting and EI-Gap (docs/metrics.md §8).
- DMV-Bench: ``reach``, ``bank`` (bank size); probes are clustered by chain trunk, so
  intervals resample trunks (docs/metrics.md §7).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from memscope.analysis import aggregate
from memscope.analysis.answers import answer_score, correctness
from memscope.analysis.cuemem import MEMORY_TASKS, SETTINGS, TASKS
from memscope.analysis.dmv import bin_labels
from memscope.pipeline.loading import RunData
from memscope.pipeline.question_extras import as_float, extra_columns
from memscope.pipeline.report import question_metrics

Derived = Callable[[dict[str, Any]], Any]
"""A summary column computed from the row's ``cell`` means (floats, or arrays of resampled
means: the functions use only + - and / so they work on both)."""


@dataclass(frozen=True)
class BenchmarkAxes:
    """How one benchmark's table is laid out."""

    axes: tuple[str, ...]
    default_by: tuple[str, ...]
    default_metric: str
    default_group: tuple[str, ...]
    derived: tuple[tuple[str, str, Derived], ...] = ()
    clustered: bool = False
    """Whether questions are clustered (DMV-Bench trunks): intervals resample clusters."""


def _mean_of_present(values: list[Any]) -> Any:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def _memeye_macro(cells: dict[str, Any]) -> Any:
    return _mean_of_present([cells.get(cell) for cell in aggregate.CELLS])


def _memory_avg(setting: str) -> Derived:
    def average(cells: dict[str, Any]) -> Any:
        return _mean_of_present([cells.get(f"{task}/{setting}") for task in MEMORY_TASKS])

    return average


def _ei_gap(cells: dict[str, Any]) -> Any:
    explicit, implicit = _memory_avg("explicit")(cells), _memory_avg("implicit")(cells)
    return None if explicit is None or implicit is None else explicit - implicit


BENCHMARKS: dict[str, BenchmarkAxes] = {
    "memeye": BenchmarkAxes(
        axes=("x", "y", "cell", "task"),
        default_by=("x", "y"),
        default_metric="em",
        default_group=("model", "method", "mode"),
        derived=(("macro", "macro", _memeye_macro),),
    ),
    "cuemem": BenchmarkAxes(
        axes=("task", "evidence", "cell"),
        default_by=("cell",),
        default_metric="accuracy",
        default_group=("model", "method"),
        derived=(
            ("memory_avg_explicit", "Mem. Avg. explicit", _memory_avg("explicit")),
            ("memory_avg_implicit", "Mem. Avg. implicit", _memory_avg("implicit")),
            ("ei_gap", "EI-Gap", _ei_gap),
        ),
    ),
    "dmv": BenchmarkAxes(
        axes=("reach", "bank"),
        default_by=("reach",),
        default_metric="tsr",
        default_group=("method",),
        clustered=True,
    ),
}

ANSWER_METRICS = ("em", "judge", "score", "accuracy", "tsr")
RETRIEVAL_METRICS = (
    "any_clue",
    "coverage",
    "full_clue",
    "mrr",
    "latest_at_k",
    "latest_miss",
    "rank_inversion",
    "stale_dominance",
)
METRICS = ANSWER_METRICS + RETRIEVAL_METRICS


def question_values(data: RunData, metric: str, k: int) -> np.ndarray:
    """Per-question values of ``metric`` (NaN where undefined).

    ``em`` and ``judge`` as stored; ``score`` is ``compare``'s answer score (MCQ EM, else
    judge, else EM); ``accuracy`` is correctness (docs/metrics.md §2); ``tsr`` is
    DMV-Bench's 0/1 success (its EM, as ``report`` reads it); the others are the
    retrieval and temporal metrics at cut-off ``k``.
    """
    mode = data.column("mode")
    em = data.column("em").astype(float)
    judge = data.column("judge").astype(float)
    if metric in ("em", "tsr"):
        return em
    if metric == "judge":
        return judge
    if metric == "score":
        return answer_score(mode, em, judge)
    if metric == "accuracy":
        return correctness(mode, em, judge)
    return question_metrics(data, k)[metric]


def question_axes(data: RunData, benchmark: str) -> dict[str, np.ndarray]:
    """Per question, its level on each of the benchmark's axes (``""`` where it has none).

    DMV-Bench's ``bank`` holds the raw bank size as text; :func:`axis_levels` bins it.
    """
    n = data.questions.num_rows
    task = np.array([data.run.get("task") or ""] * n, dtype=object)
    if benchmark == "memeye":
        x = np.array(["" if v is None else str(v) for v in data.column("x")], dtype=object)
        y = np.array(["" if v is None else str(v) for v in data.column("y")], dtype=object)
        return {"x": x, "y": y, "cell": aggregate.cell_labels(x, y).astype(object), "task": task}
    if benchmark == "cuemem":
        extras = extra_columns(data.questions, ("task_group", "explicitness"))
        groups = np.array([t or "" for t in extras["task_group"]], dtype=object)
        settings = np.array([s or "" for s in extras["explicitness"]], dtype=object)
        settings = np.where(np.isin(settings, SETTINGS), settings, "")
        cells = np.array(
            [f"{g}/{s}" if g and s else "" for g, s in zip(groups, settings, strict=True)],
            dtype=object,
        )
        return {"task": groups, "evidence": settings.astype(object), "cell": cells}
    if benchmark == "dmv":
        extras = extra_columns(data.questions, ("reach", "bank_size"))
        reach = as_float(extras["reach"])
        bank = as_float(extras["bank_size"])
        return {
            "reach": np.array(["" if np.isnan(r) else str(int(r)) for r in reach], dtype=object),
            "bank": np.array(["" if np.isnan(b) else str(int(b)) for b in bank], dtype=object),
        }
    return {"task": task}


def axis_levels(benchmark: str, axis: str, labels: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """The column levels of ``axis`` over all questions of the table, in the paper's order,
    and the labels to group by (binned for DMV-Bench bank sizes, as ``report`` bins them)."""
    present = {str(v) for v in labels if v}
    if benchmark == "memeye" and axis in ("x", "y", "cell"):
        fixed = {"x": aggregate.X_LEVELS, "y": aggregate.Y_LEVELS, "cell": aggregate.CELLS}
        return labels, [level for level in fixed[axis] if level in present]
    if benchmark == "cuemem":
        if axis == "task":
            return labels, [t for t in TASKS if t in present] + sorted(present - set(TASKS))
        if axis == "evidence":
            return labels, [s for s in SETTINGS if s in present]
        order = [f"{t}/{s}" for t in TASKS for s in SETTINGS]
        return labels, [c for c in order if c in present] + sorted(present - set(order))
    if benchmark == "dmv":
        numbers = np.array([float(v) if v else np.nan for v in labels])
        if axis == "bank":
            binned, levels = bin_labels(numbers, max_bins=8)
            return binned, levels
        return labels, [str(int(v)) for v in np.unique(numbers[~np.isnan(numbers)])]
    return labels, sorted(present)


def clusters(data: RunData, benchmark: str) -> np.ndarray | None:
    """Cluster label per question where questions are not independent (DMV-Bench trunks,
    as ``report`` forms them, prefixed by the run so that runs never share a cluster)."""
    if not BENCHMARKS.get(benchmark, BENCHMARKS["memeye"]).clustered:
        return None
    trunks = extra_columns(data.questions, ("trunk",))["trunk"]
    run_id = data.run["run_id"]
    return np.array(
        [
            f"{run_id}|{t}" if t not in (None, "") else f"{run_id}|#{q}"
            for t, q in zip(trunks, data.qids, strict=True)
        ],
        dtype=object,
    )


def benchmark_axes(benchmark: str) -> BenchmarkAxes:
    """The layout of ``benchmark``'s table (MemEye's for an unknown benchmark)."""
    return BENCHMARKS.get(benchmark, BENCHMARKS["memeye"])
