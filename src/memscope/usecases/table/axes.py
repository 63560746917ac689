"""What ``memscope table`` lays out on a benchmark's axes, and how a question maps to them.

The axes themselves (their keys, levels, labels, and each question's level) come from the
benchmark's registry (``adapters/axes.py`` through ``usecases/runs/axes.py``), the same the app's
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
from dataclasses import dataclass

import numpy as np

from memscope.adapters.axes import Axis
from memscope.adapters.spec import TableLayout
from memscope.analysis.answers import answer_score, correctness
from memscope.errors import InputError, PluginError
from memscope.usecases.benchmarks import benchmarks, spec_of
from memscope.usecases.report.build import question_metrics
from memscope.usecases.report.metric_names import RETRIEVAL_METRICS
from memscope.usecases.runs.axes import axis_columns, numeric_levels
from memscope.usecases.runs.loading import RunData
from memscope.usecases.runs.question_extras import as_float, extra_columns

CELL = "cell"
RUN_TASK = "task"
"""MemEye's per-task columns: the run's task (CUE-Mem's ``task`` is an axis of its own)."""


def table_layout(benchmark: str) -> TableLayout:
    """The layout of ``benchmark``'s table (its spec's ``table``).

    Raises:
        PluginError: the benchmark is not installed.
    """
    return spec_of(benchmark).table


def benchmark_name(benchmark: str | None) -> str:
    """How the benchmark is called in text (its spec's title; the raw name if unknown)."""
    try:
        return spec_of(benchmark).title
    except PluginError:
        return str(benchmark)


def table_axis_keys(benchmark: str) -> tuple[str, ...]:
    """The ``--by`` words of ``benchmark``: its registry axes, ``cell``, and MemEye's
    ``task``."""
    keys = [axis.key for axis in spec_of(benchmark).axes.axes] + [CELL]
    if table_layout(benchmark).run_task_axis:
        keys.append(RUN_TASK)
    return tuple(keys)


def resolve_by(benchmark: str, words: tuple[str, ...]) -> tuple[str, ...]:
    """The axis keys ``--by`` names (a registry alias such as ``bank_size`` counts).

    Raises:
        InputError: naming the benchmark's axes when a word names none of them.
    """
    axes = spec_of(benchmark).axes
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


SHARED_ANSWER_METRICS = ("em", "judge", "score", "accuracy")


def own_metrics() -> dict[str, str]:
    """The benchmarks' own table metrics and the column each reads (``tsr`` → ``em``:
    DMV-Bench's 0/1 success; ``f1`` → ``f1``), in registry order."""
    found: dict[str, str] = {}
    for spec in benchmarks():
        for name, column in spec.table.metrics:
            found.setdefault(name, column)
    return found


def table_metrics() -> tuple[str, ...]:
    """Every ``--metric`` of ``memscope table``: the shared answer metrics, the benchmarks'
    own, then the retrieval and temporal ones."""
    return SHARED_ANSWER_METRICS + tuple(own_metrics()) + RETRIEVAL_METRICS


def question_values(data: RunData, metric: str, k: int) -> np.ndarray:
    """Per-question values of ``metric`` (NaN where undefined).

    ``em`` and ``judge`` as stored; ``score`` is ``compare``'s answer score (MCQ EM, else
    judge, else EM); ``accuracy`` is correctness (docs/metrics.md §2); a benchmark's own
    metric reads the column its spec names (``tsr``: DMV-Bench's 0/1 success, its EM as
    ``report`` reads it); the others are the retrieval and temporal metrics at cut-off
    ``k``.
    """
    mode = data.column("mode")
    em = data.column("em").astype(float)
    judge = data.column("judge").astype(float)
    own = own_metrics()
    if metric == "em":
        return em
    if metric in own:
        column = own[metric]
        if column in data.questions.column_names:
            return data.column(column).astype(float)
        # Not a stored column: the run's own per-answer attribute (a harness's judge runs).
        return as_float(extra_columns(data.questions, (column,), column="prediction_extra")[column])
    if metric == "judge":
        return judge
    if metric == "score":
        return answer_score(mode, em, judge, data.column("f1"))
    if metric == "accuracy":
        return correctness(mode, em, judge, data.column("f1"))
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
    axes = spec_of(benchmark).axes
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
        labels[RUN_TASK] = np.full(data.questions.num_rows, data.run.task or "", dtype=object)
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
    axes = spec_of(benchmark).axes
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
    axis = spec_of(benchmark).axes.axis(key)
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
    view = spec_of(benchmark).axes.views[0]
    row, _, column = level.partition(table_layout(benchmark).cell_separator)
    row_head, column_head = (
        _heading(benchmark, view.rows, row),
        _heading(benchmark, view.columns, column),
    )
    if spec_of(benchmark).axes.require(view.columns).numeric:
        return f"{row_head} · {column_head}"
    return f"{row_head} ({column_head[:3]}.)"


def clusters(data: RunData, benchmark: str) -> np.ndarray | None:
    """Cluster label per question where questions are not independent (the spec's
    ``cluster``: DMV-Bench trunks, as ``report`` forms them), prefixed by the run so that
    runs never share a cluster."""
    cluster = spec_of(benchmark).cluster
    if cluster is None:
        return None
    trunks = extra_columns(data.questions, (cluster,))[cluster]
    run_id = data.run.run_id
    return np.array(
        [
            f"{run_id}|{t}" if t not in (None, "") else f"{run_id}|#{q}"
            for t, q in zip(trunks, data.qids, strict=True)
        ],
        dtype=object,
    )
