"""What ``memscope table`` lays out on a benchmark's axes, and how a question maps to them.

The axes themselves (their keys, levels, labels, and each question's level) come from the
benchmark's registry (``adapters/axes.py`` through ``usecases/axes.py``), the same the app's
matrix, the filters, ``report`` and ``compare`` use. What is the table's own:

- ``cell``: the cross of the benchmark's default matrix view (MemEye X×Y as ``X1_Y1``,
  CUE-Mem task/evidence, DMV-Bench reach/bank), and MemEye's ``task`` (the run's task: a
  sweep writes one run per task);
- the default columns, metric and row grouping, and the summary columns computed from a
  row's cells: MemEye's coordinate-balanced ``macro`` (the mean of the X×Y cell means),
  CUE-Mem's Memory Avg. per setting and EI-Gap (docs/metrics.md §8);
- how a column is headed (the level as the paper writes it);
- that DMV-Bench probes are clustered by chain trunk, so intervals resample trunks
  (docs/metrics.md §7).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from memscope.adapters.axes import Axis, axes_for
from memscope.analysis import aggregate
from memscope.analysis.answers import answer_score, correctness
from memscope.analysis.cuemem import MEMORY_TASKS
from memscope.errors import InputError
from memscope.usecases.axes import axis_columns, numeric_levels
from memscope.usecases.loading import RunData
from memscope.usecases.metric_names import RETRIEVAL_METRICS
from memscope.usecases.question_extras import extra_columns
from memscope.usecases.report import question_metrics

Derived = Callable[[dict[str, Any]], Any]
"""A summary column computed from the row's ``cell`` means (floats, or arrays of resampled
means: the functions use only + - and / so they work on both)."""

CELL = "cell"
RUN_TASK = "task"
"""MemEye's per-task columns: the run's task (CUE-Mem's ``task`` is an axis of its own)."""


@dataclass(frozen=True)
class TableLayout:
    """How one benchmark's table is laid out beyond its axes."""

    default_by: tuple[str, ...]
    default_metric: str
    default_group: tuple[str, ...]
    derived: tuple[tuple[str, str, Derived], ...] = ()
    clustered: bool = False
    """Whether questions are clustered (DMV-Bench trunks): intervals resample clusters."""
    cell_separator: str = "/"
    """Between the two levels of a ``cell`` (MemEye's ``X1_Y1``, as ``analysis.aggregate``)."""
    heads_by_value: bool = False
    """Head columns by the level's value (MemEye's X1 … Y3), not its label."""
    run_task_axis: bool = False
    """Offer ``task``: the run's task (MemEye sweeps write one run per task)."""


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


LAYOUTS: dict[str, TableLayout] = {
    "memeye": TableLayout(
        default_by=("x", "y"),
        default_metric="em",
        default_group=("model", "method", "mode"),
        derived=(("macro", "macro", _memeye_macro),),
        cell_separator="_",
        heads_by_value=True,
        run_task_axis=True,
    ),
    "cuemem": TableLayout(
        default_by=(CELL,),
        default_metric="accuracy",
        default_group=("model", "method"),
        derived=(
            ("memory_avg_explicit", "Mem. Avg. explicit", _memory_avg("explicit")),
            ("memory_avg_implicit", "Mem. Avg. implicit", _memory_avg("implicit")),
            ("ei_gap", "EI-Gap", _ei_gap),
        ),
    ),
    "dmv": TableLayout(
        default_by=("reach",),
        default_metric="tsr",
        default_group=("method",),
        clustered=True,
    ),
}


def table_layout(benchmark: str) -> TableLayout:
    """The layout of ``benchmark``'s table (MemEye's for an unknown benchmark, as
    ``adapters.axes.axes_for`` reads it)."""
    return LAYOUTS.get(axes_for(benchmark).benchmark, LAYOUTS["memeye"])


def benchmark_name(benchmark: str | None) -> str:
    """How the benchmark is called in text (its registry name; the raw name if unknown)."""
    found = axes_for(benchmark)
    return found.name if found.benchmark == benchmark else str(benchmark)


def table_axis_keys(benchmark: str) -> tuple[str, ...]:
    """The ``--by`` words of ``benchmark``: its registry axes, ``cell``, and MemEye's
    ``task``."""
    keys = [axis.key for axis in axes_for(benchmark).axes] + [CELL]
    if table_layout(benchmark).run_task_axis:
        keys.append(RUN_TASK)
    return tuple(keys)


def resolve_by(benchmark: str, words: tuple[str, ...]) -> tuple[str, ...]:
    """The axis keys ``--by`` names (a registry alias such as ``bank_size`` counts).

    Raises:
        InputError: naming the benchmark's axes when a word names none of them.
    """
    axes = axes_for(benchmark)
    keys = table_axis_keys(benchmark)
    resolved = []
    for word in words:
        wanted = word.strip().lower()
        found = axes.axis(wanted)
        key = found.key if found is not None else wanted
        if key not in keys:
            raise InputError(
                f"--by {word}: {benchmark_name(benchmark)} tables have the axes {', '.join(keys)}",
                fix=f"Pass one of them, e.g. --by {table_layout(benchmark).default_by[0]}.",
            )
        resolved.append(key)
    return tuple(dict.fromkeys(resolved))


ANSWER_METRICS = ("em", "judge", "score", "accuracy", "tsr")
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


@dataclass
class QuestionAxes:
    """One run's questions on the table's axes."""

    labels: dict[str, np.ndarray]
    """Per axis key, each question's level (``""`` where it has none); numeric axes grouped
    over this run's questions, as ``report`` groups them."""
    numbers: dict[str, np.ndarray]
    """Per numeric axis, each question's raw number (NaN where missing)."""


def _known(axis: Axis, labels: np.ndarray) -> np.ndarray:
    """``labels`` with values outside a fixed axis's levels blanked (a numeric axis as is)."""
    if axis.numeric:
        return labels
    values = [level.value for level in axis.levels]
    return np.where(np.isin(labels, values), labels, "").astype(object)


def question_axes(data: RunData, benchmark: str) -> QuestionAxes:
    """Per question of one run, its level on each ``--by`` axis of ``benchmark``."""
    axes = axes_for(benchmark)
    layout = table_layout(benchmark)
    found, numbers, _levels = axis_columns(data, axes)
    labels = {key: _known(axes.require(key), values) for key, values in found.items()}
    view = axes.views[0]
    rows, columns = labels[view.rows], labels[view.columns]
    separator = layout.cell_separator
    labels[CELL] = np.array(
        [f"{r}{separator}{c}" if r and c else "" for r, c in zip(rows, columns, strict=True)],
        dtype=object,
    )
    if layout.run_task_axis:
        labels[RUN_TASK] = np.full(
            data.questions.num_rows, data.run.get("task") or "", dtype=object
        )
    return QuestionAxes(labels, numbers)


def _bounds(level: str) -> tuple[float, float]:
    found = re.match(r"^(-?\d+)(?:-(-?\d+))?$", level)
    if not found:
        return (float("inf"), float("inf"))
    low = float(found.group(1))
    return low, float(found.group(2)) if found.group(2) else low


def _numeric_levels(key: str, parts: list[QuestionAxes]) -> tuple[list[np.ndarray], list[str]]:
    """A numeric axis's groups for the whole table. Each run grouped as ``report`` groups
    it (``usecases.axes.numeric_levels`` over the run's probes) when the runs agree on
    which group each number is in (always so with at most eight distinct numbers, or for
    one run); otherwise the same grouping over all the table's probes, so that the
    columns mean the same for every row."""
    group_of: dict[float, str] = {}
    agree = True
    for part in parts:
        numbers, labels = part.numbers[key], part.labels[key]
        defined = ~np.isnan(numbers)
        for number, label in set(
            zip(numbers[defined].tolist(), labels[defined].tolist(), strict=True)
        ):
            if group_of.setdefault(number, label) != label:
                agree = False
    if agree:
        return [part.labels[key] for part in parts], sorted(set(group_of.values()), key=_bounds)
    pooled, levels = numeric_levels(np.concatenate([part.numbers[key] for part in parts]))
    sizes = np.cumsum([len(part.numbers[key]) for part in parts])[:-1]
    return np.split(np.asarray(pooled, dtype=object), sizes), levels


def axis_levels(
    benchmark: str, key: str, parts: list[QuestionAxes]
) -> tuple[list[np.ndarray], list[str]]:
    """The column levels of axis ``key`` over all runs of the table, in the benchmark's
    order and only those some question has, and per run the labels to group by."""
    axes = axes_for(benchmark)
    axis = axes.axis(key) if key != CELL else None
    if axis is not None and axis.numeric:
        return _numeric_levels(key, parts)
    labels = [part.labels[key] for part in parts]
    present = {str(v) for values in labels for v in values.tolist() if v}
    if axis is not None:
        order = [level.value for level in axis.levels]
    elif key == CELL:
        # The cross of the view's two axes as grouped for this table (numeric groups may be
        # the table's own, see _numeric_levels).
        view = axes.views[0]
        row_labels, row_levels = axis_levels(benchmark, view.rows, parts)
        column_labels, column_levels = axis_levels(benchmark, view.columns, parts)
        separator = table_layout(benchmark).cell_separator
        labels = [
            np.array(
                [f"{r}{separator}{c}" if r and c else "" for r, c in zip(rs, cs, strict=True)],
                dtype=object,
            )
            for rs, cs in zip(row_labels, column_labels, strict=True)
        ]
        present = {str(v) for values in labels for v in values.tolist() if v}
        order = [f"{r}{separator}{c}" for r in row_levels for c in column_levels]
    else:
        order = sorted(present)
    return labels, [level for level in order if level in present]


def _heading(benchmark: str, key: str, level: str) -> str:
    axis = axes_for(benchmark).axis(key)
    if axis is None:
        return level
    if axis.numeric:
        return f"{axis.key} {level}"
    return level if table_layout(benchmark).heads_by_value else axis.label(level)


def level_label(benchmark: str, key: str, level: str) -> str:
    """How a column is headed: the level as the paper writes it (MemEye ``X1``; CUE-Mem
    ``Entity Recall``, a cell ``Entity Recall (exp.)``; DMV-Bench ``reach 2``)."""
    if key != CELL:
        return _heading(benchmark, key, level)
    if table_layout(benchmark).heads_by_value:
        return level
    view = axes_for(benchmark).views[0]
    row, _, column = level.partition(table_layout(benchmark).cell_separator)
    row_head, column_head = (
        _heading(benchmark, view.rows, row),
        _heading(benchmark, view.columns, column),
    )
    if axes_for(benchmark).require(view.columns).numeric:
        return f"{row_head} · {column_head}"
    return f"{row_head} ({column_head[:3]}.)"


def clusters(data: RunData, benchmark: str) -> np.ndarray | None:
    """Cluster label per question where questions are not independent (DMV-Bench trunks,
    as ``report`` forms them, prefixed by the run so that runs never share a cluster)."""
    if not table_layout(benchmark).clustered:
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
