"""``memscope table``: the paper's main results table, systems × the benchmark's axes.

Rows are systems, not run directories: the runs are grouped by run fields (MemEye:
model, method, mode; CUE-Mem: model, method; DMV-Bench: the system), and a row pools the
questions of all its runs (micro), or averages the per-task values (``average="tasks"``,
macro), or is one run (``per_run``). Each cell is the mean of the metric over the row's
questions on one level of an axis (the benchmark's axes from the registry,
``adapters/axes.py`` through ``usecases/runs/axes.py``, as the app's matrix and ``report`` place
questions; ``usecases/table/axes.py`` adds the table's own layout), with its n and
optionally a percentile bootstrap interval: over questions as ``compare`` resamples them
(``analysis/bootstrap.py``), over chain trunks for DMV-Bench as ``report`` does
(``analysis/cluster_rates.py``). With a baseline row every cell also carries Δ = row - baseline
over matched questions with the paired interval, exactly as ``compare`` computes it.

:func:`build_table` returns JSON-ready data; ``cli/table.py`` renders it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypedDict, TypeVar

import numpy as np

from memscope.analysis import cluster_rates
from memscope.analysis import clustered as clustered_analysis
from memscope.analysis.bootstrap import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
)
from memscope.analysis.bootstrap_batch import SharedResamples
from memscope.errors import InputError
from memscope.json_types import JSONValue
from memscope.usecases.benchmarks import spec_of
from memscope.usecases.compare.pairs import match_questions
from memscope.usecases.runs.ingest import effective_k
from memscope.usecases.runs.loading import RunData
from memscope.usecases.runs.run_info import RunInfo, RunValue
from memscope.usecases.table import pooling
from memscope.usecases.table.axes import (
    CELL,
    RUN_TASK,
    QuestionAxes,
    axis_levels,
    benchmark_name,
    clusters,
    level_label,
    question_axes,
    question_values,
    resolve_by,
    table_layout,
    table_metrics,
)
from memscope.usecases.table.membership import check_membership, every_labels, level_mask
from memscope.usecases.table.result import (
    CellDelta,
    ResultsTable,
    TableCell,
    TableColumn,
    TableParams,
    TableRow,
)
from memscope.usecases.table.shared_questions import shared_questions

GROUP_FIELDS = ("model", "method", "base_method", "modality", "mode", "task")
LOWER_IS_BETTER = frozenset(
    {"latest_miss", "rank_inversion", "stale_dominance", "latency", "tokens"}
)
UNRANKED_COLUMNS = frozenset({"ei_gap"})
"""Columns without a best value (a smaller EI-Gap is not simply better)."""


@dataclass
class TableOptions:
    """What ``memscope table`` was asked for (None = the benchmark's default)."""

    by: tuple[str, ...] | None = None
    metric: str | None = None
    group: tuple[str, ...] | None = None
    average: str = "questions"
    per_run: bool = False
    baseline: str | None = None
    ci: bool = False
    labels: dict[str, str] = field(default_factory=dict)
    k: int | None = None
    resamples: int | None = None
    seed: int = DEFAULT_SEED
    membership: str = "highest"
    """Where a question with several X / Y labels counts (``membership.py``)."""
    shared: bool = False
    """Every row over the questions all rows hold (``shared_questions.py``)."""


class _Cell(TypedDict, total=False):
    """A cell while it is computed: value and n first, then the interval, Δ and ``best``
    (``TableCell`` is the finished record)."""

    value: float | None
    n: int
    ci_low: float | None
    ci_high: float | None
    delta: float | None
    delta_low: float | None
    delta_high: float | None
    delta_n: int | None
    significant: bool
    p95: float | None
    best: bool
    n_clusters: int | None
    delta_p: float | None


@dataclass
class _Part:
    """One run's per-question arrays."""

    run: RunInfo
    values: np.ndarray
    axes: QuestionAxes
    keys: list[str]
    clusters: np.ndarray | None
    every: dict[str, np.ndarray] = field(default_factory=dict)
    """``--membership every``: per axis, each question's tuple of every level it names."""

    def subset(self, keep: np.ndarray) -> _Part:
        """This run's questions where ``keep`` holds, every array alike."""
        return _Part(
            run=self.run,
            values=self.values[keep],
            axes=QuestionAxes(
                labels={name: labels[keep] for name, labels in self.axes.labels.items()},
                numbers={name: numbers[keep] for name, numbers in self.axes.numbers.items()},
            ),
            keys=[key for key, kept in zip(self.keys, keep, strict=True) if kept],
            clusters=None if self.clusters is None else self.clusters[keep],
            every={axis: listed[keep] for axis, listed in self.every.items()},
        )


@dataclass
class _Row:
    key: tuple[JSONValue, ...]
    parts: list[_Part]
    label: str = ""
    raw_label: str = ""
    """The label from the raw field values (``--label`` and ``--baseline`` accept it too)."""
    split_run: str | None = None
    """The one run of a row split off a group whose runs overlap (``pooling.py``)."""
    repeats: tuple[int, ...] = ()
    """Repeats of one configuration the row pools (``pooling.py``); empty for parts."""

    def pooled(self, name: str) -> np.ndarray:
        return np.concatenate([part.axes.labels[name] for part in self.parts])

    @property
    def values(self) -> np.ndarray:
        return np.concatenate([part.values for part in self.parts])

    @property
    def keys(self) -> list[str]:
        return [key for part in self.parts for key in part.keys]

    @property
    def clusters(self) -> np.ndarray | None:
        if self.parts[0].clusters is None:
            return None
        return np.concatenate([part.clusters for part in self.parts])

    @property
    def tasks(self) -> np.ndarray:
        return np.concatenate(
            [np.full(len(part.values), part.run.task or "", dtype=object) for part in self.parts]
        )


def _json_value(value: RunValue) -> JSONValue:
    """A run field as JSON: an instant as its ISO text (as orjson writes it)."""
    return value.isoformat() if isinstance(value, datetime) else value


def check_benchmarks(runs: list[RunInfo]) -> str:
    """The one benchmark of ``runs``; refuses a mix, naming which run is which."""
    by_benchmark: dict[str, list[str]] = {}
    for run in runs:
        by_benchmark.setdefault(run.benchmark, []).append(run.run_id)
    if len(by_benchmark) > 1:
        listing = "; ".join(
            f"{benchmark_name(name)}: {', '.join(ids)}" for name, ids in by_benchmark.items()
        )
        raise InputError(
            f"a table holds runs of one benchmark, these are of {len(by_benchmark)}: {listing}",
            fix="Make one table per benchmark (pass only that benchmark's runs or folders).",
        )
    return next(iter(by_benchmark))


def _validate(
    options: TableOptions, benchmark: str
) -> tuple[tuple[str, ...], str, tuple[str, ...]]:
    layout = table_layout(benchmark)
    by = resolve_by(benchmark, options.by or layout.default_by)
    metric = options.metric or layout.default_metric
    metrics = table_metrics()
    if metric not in metrics:
        raise InputError(
            f"--metric {metric}: not a metric memscope tables know",
            fix=f"Pick one of {', '.join(metrics)}.",
        )
    group = options.group or layout.default_group
    for name in group:
        if name not in GROUP_FIELDS:
            raise InputError(
                f"--group {name}: runs can be grouped by {', '.join(GROUP_FIELDS)}",
                fix="Pass a comma-separated list of those fields, e.g. --group model,method.",
            )
    if options.average not in ("questions", "tasks"):
        raise InputError(
            f"--average {options.average}: pass questions (pooled, micro) or tasks (macro)"
        )
    if options.resamples is not None and options.resamples < 1:
        raise InputError(f"--resamples must be at least 1, got {options.resamples}")
    return tuple(by), metric, tuple(group)


NAMED_FIELDS = frozenset({"method", "base_method"})
"""Group fields whose values the benchmark may show by another name (``display_names``)."""


def _shown(field: str, value: JSONValue, names: Mapping[str, str]) -> JSONValue:
    """A group field's value as the row label shows it (the benchmark's display name)."""
    if field in NAMED_FIELDS and isinstance(value, str):
        return names.get(value, value)
    return value


def _joined(values: list[JSONValue]) -> str:
    return " · ".join(str(v) for v in values if v not in (None, ""))


def _labels(
    rows: list[_Row],
    group: tuple[str, ...],
    per_run: bool,
    renames: dict[str, str],
    names: Mapping[str, str],
) -> None:
    """Readable row labels: the group fields that differ between rows, joined by " · ",
    methods under the benchmark's display names (``TableLayout.display_names``)."""
    if per_run:
        for row in rows:
            row.label = row.raw_label = str(row.key[0])
    else:
        # Nothing varies (one row): every field, so the label names the system (model
        # and method), never only a method such as ``no_rag``.
        varying = [i for i in range(len(group)) if len({row.key[i] for row in rows}) > 1] or list(
            range(len(group))
        )
        for row in rows:
            row.raw_label = _joined([row.key[i] for i in varying]) or "–"
            row.label = _joined([_shown(group[i], row.key[i], names) for i in varying]) or "–"
    known = {row.label for row in rows} | {row.raw_label for row in rows}
    unknown = set(renames) - known
    if unknown:
        raise InputError(
            f"--label {sorted(unknown)[0]}=…: no row is labelled so",
            fix=f"Rows: {', '.join(row.label for row in rows)}.",
        )
    for row in rows:
        row.label = renames.get(row.label, renames.get(row.raw_label, row.label))
    seen: dict[str, int] = {}
    for row in rows:
        seen[row.label] = seen.get(row.label, 0) + 1
    if any(count > 1 for count in seen.values()):
        fields = ("run",) if per_run else group
        for row in rows:  # two groups that differ only in a hidden field: show every field
            if seen[row.label] > 1:
                row.raw_label = _joined(list(row.key))
                row.label = _joined(
                    [
                        _shown(name, value, names)
                        for name, value in zip(fields, row.key, strict=True)
                    ]
                )


def _columns(
    benchmark: str, by: tuple[str, ...], rows: list[_Row]
) -> tuple[list[TableColumn], dict[str, list[np.ndarray]]]:
    """The columns, and per axis the (binned) labels of each row's pooled questions (with
    ``--membership every``, on the axes that list them, each question's tuple of levels)."""
    columns: list[TableColumn] = []
    labelled: dict[str, list[np.ndarray]] = {}
    parts = [part.axes for row in rows for part in row.parts]
    for axis in by:
        per_part, levels = axis_levels(benchmark, axis, parts)
        found = [part.every.get(axis) for row in rows for part in row.parts]
        every = [labels for labels in found if labels is not None]
        if every and len(every) == len(found):
            per_part = every
            named = {level for labels in every for named in labels for level in named}
            levels = [level for level in levels if level in named] + sorted(named - set(levels))
        at = 0
        labelled[axis] = []
        for row in rows:
            labelled[axis].append(np.concatenate(per_part[at : at + len(row.parts)]).astype(object))
            at += len(row.parts)
        columns += [
            TableColumn(f"{axis}:{level}", level_label(benchmark, axis, level), axis, level)
            for level in levels
        ]
    columns.append(TableColumn("all", "all", None, None))
    for key, label, _ in table_layout(benchmark).derived:
        columns.append(TableColumn(key, label, "derived", None))
    return columns, labelled


COST_METRICS = ("latency", "tokens")
"""What an answer cost: a cell shows the median and the 95th percentile, not the mean."""


def _cell(values: np.ndarray, mask: np.ndarray, *, quantiles: bool = False) -> _Cell:
    chosen = values[mask]
    defined = chosen[~np.isnan(chosen)]
    if quantiles:
        return {
            "value": float(np.median(defined)) if defined.size else None,
            "n": int(defined.size),
            "p95": float(np.percentile(defined, 95)) if defined.size else None,
        }
    return {"value": float(defined.mean()) if defined.size else None, "n": int(defined.size)}


def _interval(
    values: np.ndarray,
    mask: np.ndarray,
    cluster: np.ndarray | None,
    shared: SharedResamples,
    seed: int,
) -> tuple[float | None, float | None, int | None]:
    """The cell's interval and, over clustered questions, how many clusters it rests on:
    over questions a percentile bootstrap (as ``compare``), over clusters the small-sample
    cluster interval (``analysis/clustered.py``), which holds with few clusters where a
    cluster bootstrap is too narrow."""
    if cluster is None:
        low, high = shared.bounds(values[mask], seed=seed)
        return low, high, None
    found = clustered_analysis.mean_interval(values[mask], cluster[mask], level=DEFAULT_LEVEL)
    return found.ci_low, found.ci_high, found.n_clusters


def _derived_cells(
    benchmark: str,
    values: np.ndarray,
    cells: np.ndarray,
    *,
    ci: bool,
    shared: SharedResamples,
    seed: int,
    levels: Mapping[str, np.ndarray] | None = None,
) -> dict[str, _Cell]:
    """The benchmark's summary columns from the row's cell means (and its axis levels'
    means, ``levels``); intervals resample each cell independently (stratified), cell i
    with seed + i."""
    derived = table_layout(benchmark).derived
    if not derived:
        return {}
    # The default view's cells (MemEye's X1_Y1), then each axis level as ``axis:level``
    # (a task average over one axis's levels, whatever --by shows).
    cell_names = sorted({str(c) for c in cells if c})
    groups = {name: cells == name for name in cell_names}
    for axis, labels in (levels or {}).items():
        for level in sorted({str(value) for value in labels if value}):
            groups.setdefault(f"{axis}:{level}", labels == level)
    means: dict[str, float] = {}
    counts: dict[str, int] = {}
    samples: dict[str, tuple[int, np.ndarray]] = {}
    for i, (name, chosen_mask) in enumerate(groups.items()):
        chosen = values[chosen_mask]
        defined = chosen[~np.isnan(chosen)]
        if defined.size:
            means[name] = float(defined.mean())
            counts[name] = int(defined.size)
            samples[name] = (i, defined)
    # n: the questions of the groups a column depends on (perturbing one moves it).
    values_of = {key: compute(means) for key, _, compute in derived}
    uses = {
        key: [
            name for name in means if compute({**means, name: means[name] + 1.0}) != values_of[key]
        ]
        for key, _, compute in derived
    }
    draws: dict[str, np.ndarray] = {}
    if ci:
        # every cell (as before), and an axis level only where a column reads it
        wanted = {*cell_names, *(name for used in uses.values() for name in used)}
        draws = {
            name: shared.means(defined, seed=seed + i)
            for name, (i, defined) in samples.items()
            if name in wanted
        }
    result: dict[str, _Cell] = {}
    tail = (1.0 - DEFAULT_LEVEL) / 2.0
    for key, _, compute in derived:
        value = values_of[key]
        entry: _Cell = {
            "value": None if value is None else float(value),
            "n": sum(counts[name] for name in uses[key]),
        }
        if ci:
            resampled = compute(draws) if draws else None
            if resampled is None or np.ndim(resampled) == 0:
                entry["ci_low"] = entry["ci_high"] = None
            else:
                low, high = np.quantile(resampled, [tail, 1.0 - tail])
                entry["ci_low"], entry["ci_high"] = float(low), float(high)
        result[key] = entry
    return result


def _row_cells(
    benchmark: str,
    row: _Row,
    columns: list[TableColumn],
    labelled: dict[str, np.ndarray],
    *,
    ci: bool,
    shared: SharedResamples,
    seed: int,
    quantiles: bool = False,
) -> dict[str, _Cell]:
    """Micro cells of one row (or of one task's questions of it, through ``labelled``);
    ``quantiles``: median and 95th percentile (a cost metric) instead of the mean."""
    values = row.values
    cluster = row.clusters
    everything = np.ones(len(values), dtype=bool)
    cells: dict[str, _Cell] = {}
    for column in columns:
        if column.axis == "derived":
            continue
        mask = (
            everything if column.axis is None else level_mask(labelled[column.axis], column.level)
        )
        cell = _cell(values, mask, quantiles=quantiles)
        if ci:
            cell["ci_low"], cell["ci_high"], clusters_used = (
                _interval(values, mask, cluster, shared, seed) if cell["n"] else (None, None, 0)
            )
            if cluster is not None:
                cell["n_clusters"] = clusters_used
        cells[column.key] = cell
    cells |= _derived_cells(
        benchmark,
        values,
        row.pooled("cell"),
        ci=ci,
        shared=shared,
        seed=seed,
        levels={
            axis: row.pooled(axis)
            for axis in (row.parts[0].axes.labels if row.parts else {})
            if axis not in (CELL, RUN_TASK)
        },
    )
    return cells


def _subrow(row: _Row, task: str) -> tuple[_Row, np.ndarray]:
    mask = row.tasks == task
    return _Row(row.key, [p for p in row.parts if (p.run.task or "") == task]), mask


def _task_average(
    benchmark: str,
    row: _Row,
    columns: list[TableColumn],
    labelled: dict[str, np.ndarray],
    *,
    ci: bool,
    shared: SharedResamples,
    seed: int,
) -> dict[str, _Cell]:
    """Macro over tasks: each column is the mean of its per-task values (each task weighs
    1); n sums the tasks' n; an interval resamples each task's questions apart
    (task i with seed + i) and averages the resampled task means."""
    tasks = list(dict.fromkeys(row.tasks.tolist()))
    per_task = []
    for i, task in enumerate(tasks):
        sub, mask = _subrow(row, task)
        sub_labelled = {axis: labels[mask] for axis, labels in labelled.items()}
        per_task.append(
            _row_cells(
                benchmark, sub, columns, sub_labelled, ci=False, shared=shared, seed=seed + i
            )
        )
    cells: dict[str, _Cell] = {}
    tail = (1.0 - DEFAULT_LEVEL) / 2.0
    for column in columns:
        key = column.key
        present = [(i, t[key]) for i, t in enumerate(per_task) if t[key]["value"] is not None]
        cell: _Cell = {
            "value": float(np.mean([c["value"] for _, c in present])) if present else None,
            "n": sum(c["n"] for _, c in present),
        }
        if ci:
            cell["ci_low"] = cell["ci_high"] = None
            if present and column.axis != "derived":
                draws = []
                for i, _ in present:
                    sub, mask = _subrow(row, tasks[i])
                    values = sub.values
                    chosen = (
                        values
                        if column.axis is None
                        else values[level_mask(labelled[column.axis][mask], column.level)]
                    )
                    draws.append(shared.means(chosen[~np.isnan(chosen)], seed=seed + i))
                low, high = np.quantile(np.mean(draws, axis=0), [tail, 1.0 - tail])
                cell["ci_low"], cell["ci_high"] = float(low), float(high)
        cells[key] = cell
    return cells


def _deltas(
    base: _Row,
    row: _Row,
    columns: list[TableColumn],
    base_labelled: dict[str, np.ndarray],
    cells: dict[str, _Cell],
    base_cells: dict[str, _Cell],
    *,
    paired: bool,
    shared: SharedResamples,
    seed: int,
) -> None:
    """Δ = row - baseline per cell. Over matched questions (by question key, occurrence by
    occurrence) with ``compare``'s paired percentile interval (10,000 resamples per group,
    labels from the baseline's side, as run A's in ``compare``); the summary columns, and
    every column of a task-averaged table, get the difference of the two values only."""
    rows_base, rows_row = match_questions(base.keys, row.keys)
    delta = row.values[rows_row] - base.values[rows_base]
    # Clustered questions (DMV-Bench trunks): the unit of the test and the interval is the
    # cluster, exactly as ``compare`` tests it, labelled from the baseline's side.
    base_clusters = base.clusters
    matched_clusters = None if base_clusters is None else base_clusters[rows_base]
    for column in columns:
        cell = cells[column.key]
        if not paired or column.axis == "derived":
            mine, theirs = cell["value"], base_cells[column.key]["value"]
            cell["delta"] = None if mine is None or theirs is None else mine - theirs
            cell["delta_low"] = cell["delta_high"] = None
            cell["delta_n"] = None
            cell["significant"] = False
            continue
        mask = (
            np.ones(len(delta), dtype=bool)
            if column.axis is None
            else level_mask(base_labelled[column.axis][rows_base], column.level)
        )
        chosen = delta[mask]
        defined = chosen[~np.isnan(chosen)]
        cell["delta"] = float(defined.mean()) if defined.size else None
        cell["delta_n"] = int(defined.size)
        if matched_clusters is not None:
            _clustered_delta(
                cell,
                base.values[rows_base][mask],
                row.values[rows_row][mask],
                matched_clusters[mask],
                seed,
            )
            continue
        low, high = shared.bounds(defined, seed=seed)
        cell["delta_low"], cell["delta_high"] = low, high
        cell["significant"] = bool(low is not None and high is not None and (low > 0 or high < 0))


def _clustered_delta(
    cell: _Cell, before: np.ndarray, after: np.ndarray, clusters: np.ndarray, seed: int
) -> None:
    """Δ's interval over clusters (cluster-robust t(G - 1)) and its † from ``compare``'s
    cluster sign-flip test (p < 0.05, two-sided) on the same matched questions."""
    found = clustered_analysis.difference_interval(after - before, clusters, level=DEFAULT_LEVEL)
    cell["delta_low"], cell["delta_high"] = found.ci_low, found.ci_high
    cell["n_clusters"] = found.n_clusters
    test = cluster_rates.sign_flip_test(
        after, before, clusters, permutations=cluster_rates.DEFAULT_PERMUTATIONS, seed=seed
    )
    cell["delta_p"] = test.p_value
    cell["significant"] = bool(test.p_value is not None and test.p_value < 1.0 - DEFAULT_LEVEL)


def _mark_best(rows: list[dict[str, _Cell]], columns: list[TableColumn], metric: str) -> None:
    """Mark each column's best value (``best``) in the rows' cells."""
    for column in columns:
        key = column.key
        values = [value for r in rows if (value := r[key]["value"]) is not None]
        best = None
        if values and key not in UNRANKED_COLUMNS and len(rows) > 1:
            best = min(values) if metric in LOWER_IS_BETTER else max(values)
        for r in rows:
            value = r[key]["value"]
            r[key]["best"] = bool(
                best is not None and value is not None and abs(value - best) < 1e-12
            )


_T = TypeVar("_T")
MAX_BOOTSTRAP_THREADS = 8
"""Threads that bootstrap rows side by side (numpy draws without holding the GIL)."""


def _bootstrap_threads(rows: int) -> int:
    """Threads for ``rows`` rows' bootstraps: one per usable core, at most
    :data:`MAX_BOOTSTRAP_THREADS`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_BOOTSTRAP_THREADS, rows))


def _each_row(compute: Callable[[int], _T], count: int, threads: int) -> Iterator[_T]:
    """``compute(0) … compute(count - 1)`` in order, on ``threads`` threads. The results do
    not depend on the threads: every interval draws from its own seed, and cells that share
    draws (``SharedResamples``) get the same numbers whichever thread drew them."""
    if threads <= 1:
        yield from map(compute, range(count))
        return
    pool = ThreadPoolExecutor(threads, thread_name_prefix="memscope-bootstrap")
    try:
        yield from pool.map(compute, range(count))
    finally:  # interrupted or failed: the rows not started yet are not computed
        pool.shutdown(wait=True, cancel_futures=True)


def build_table(
    data: list[RunData],
    options: TableOptions | None = None,
    *,
    on_progress: Callable[[int, int], None] | None = None,
) -> ResultsTable:
    """The results table over the loaded runs (in the order given).

    ``on_progress(done, total)`` is told after each row how many of the cells that need a
    bootstrap (intervals with ``ci``, Δ against a baseline) are done.

    Its JSON (``ResultsTable.to_json``) is ``{"benchmark", "metric", "by", "group",
    "average", "per_run", "baseline", "params": {"seed", "resamples", "level", "k"},
    "columns": [{"key", "label", "axis", "level"}], "rows": [{"label", "group": {field:
    value}, "display_group": {field: value as the label shows it}, "runs", "tasks",
    "n_questions", "cells": {column key: {"value", "n", ["ci_low", "ci_high"], ["delta",
    "delta_low", "delta_high", "delta_n", "significant"], "best"}}}]}``.

    Raises:
        InputError: no runs, runs of several benchmarks, an unknown axis, metric, group
            field, label or baseline.
    """
    options = options or TableOptions()
    if not data:
        raise InputError(
            "no runs to tabulate", fix="Pass run directories, a folder of them, or run ids."
        )
    benchmark = check_benchmarks([d.run for d in data])
    by, metric, group = _validate(options, benchmark)
    multi_label_axes = table_layout(benchmark).multi_label_axes
    check_membership(options.membership, multi_label_axes)
    clustered = spec_of(benchmark).cluster is not None
    if clustered and options.ci and options.average == "tasks" and not options.per_run:
        # The mean over tasks resamples each task's questions apart, which ignores the
        # clusters the benchmark declares; its interval would be too narrow.
        raise InputError(
            f"--average tasks with --ci: {benchmark_name(benchmark)} intervals are over its "
            "clusters (chain trunks), which a mean over tasks cannot resample",
            fix="Leave out --average tasks (questions pooled) for intervals, or --ci for the mean over tasks.",
        )
    resamples = options.resamples or (
        cluster_rates.DEFAULT_RESAMPLES if clustered else DEFAULT_RESAMPLES
    )
    ks = {effective_k(d.run, options.k) for d in data}
    rows: dict[tuple[JSONValue, ...], _Row] = {}
    for run_data in data:
        run = run_data.run
        part = _Part(
            run=run,
            values=np.asarray(
                question_values(run_data, metric, effective_k(run, options.k)), dtype=float
            ),
            axes=question_axes(run_data, benchmark),
            keys=run_data.column("question_key").tolist(),
            clusters=clusters(run_data, benchmark),
            every={
                axis: listed
                for axis in by
                if (listed := every_labels(run_data, axis, table_layout(benchmark).cell_separator))
                is not None
            }
            if options.membership == "every"
            else {},
        )
        key = (run.run_id,) if options.per_run else tuple(_json_value(run.value(f)) for f in group)
        rows.setdefault(key, _Row(key, [])).parts.append(part)
    ordered, notes = _pooled_rows(list(rows.values()))
    names = table_layout(benchmark).display_names
    _labels(ordered, ("run",) if options.per_run else group, options.per_run, options.labels, names)
    for row in ordered:
        if row.split_run is not None:
            row.label = f"{row.label} · {row.split_run}"
            row.raw_label = f"{row.raw_label} · {row.split_run}"
    if options.shared:
        restricted = shared_questions([[part.keys for part in row.parts] for row in ordered])
        for row, masks in zip(ordered, restricted.keep, strict=True):
            row.parts = [part.subset(keep) for part, keep in zip(row.parts, masks, strict=True)]
        notes.append(restricted.note([row.label for row in ordered]))
    columns, labelled_lists = _columns(benchmark, by, ordered)
    tasks_average = options.average == "tasks" and not options.per_run
    # Every cell's interval through one set of shared draws (cells with the same values
    # and seed draw once): the same numbers as one bootstrap per cell, in a fraction of it.
    shared = SharedResamples(resamples=resamples)
    rows_bootstrapped = len(ordered) * options.ci + (len(ordered) - 1) * (
        options.baseline is not None
    )
    total = rows_bootstrapped * len(columns)
    done = 0
    threads = _bootstrap_threads(len(ordered)) if options.ci or options.baseline else 1
    compute = _task_average if tasks_average else _row_cells

    def cells_of_row(index: int) -> dict[str, _Cell]:
        labelled = {axis: lists[index] for axis, lists in labelled_lists.items()}
        return compute(
            benchmark,
            ordered[index],
            columns,
            labelled,
            ci=options.ci,
            shared=shared,
            seed=options.seed,
            **({"quantiles": True} if options.metric in COST_METRICS and not tasks_average else {}),
        )

    cells_of: list[dict[str, _Cell]] = []
    for cells in _each_row(cells_of_row, len(ordered), threads):
        cells_of.append(cells)
        if options.ci and on_progress is not None:
            done += len(columns)
            on_progress(done, total)
    baseline = None
    if options.baseline is not None:
        labels = [row.label for row in ordered]
        at = next(
            (i for i, row in enumerate(ordered) if options.baseline in (row.label, row.raw_label)),
            -1,
        )
        if at < 0:
            raise InputError(
                f"--baseline {options.baseline}: no row is labelled so",
                fix=f"Rows: {', '.join(labels)}.",
            )
        baseline = ordered[at].label
        base_labelled = {axis: lists[at] for axis, lists in labelled_lists.items()}
        paired_shared = SharedResamples(resamples=DEFAULT_RESAMPLES)
        others = [index for index in range(len(ordered)) if index != at]

        def deltas_of_row(other: int) -> None:
            index = others[other]
            _deltas(
                ordered[at],
                ordered[index],
                columns,
                base_labelled,
                cells_of[index],
                cells_of[at],
                paired=not tasks_average,
                shared=paired_shared,
                seed=options.seed,
            )

        for _ in _each_row(deltas_of_row, len(others), threads):
            if on_progress is not None:
                done += len(columns)
                on_progress(done, total)
    _mark_best(cells_of, columns, metric)
    rows_out = tuple(
        TableRow(
            label=row.label,
            group={"run": row.key[0]}
            if options.per_run
            else dict(zip(group, row.key, strict=True)),
            display_group={"run": row.key[0]}
            if options.per_run
            else {
                name: _shown(name, value, names) for name, value in zip(group, row.key, strict=True)
            },
            runs=tuple(p.run.run_id for p in row.parts),
            tasks=tuple(sorted({p.run.task or "" for p in row.parts})),
            n_questions=len(row.values),
            cells={key: _typed_cell(cell) for key, cell in cells.items()},
            repeats=row.repeats,
        )
        for row, cells in zip(ordered, cells_of, strict=True)
    )
    return ResultsTable(
        benchmark=benchmark,
        metric=metric,
        by=tuple(by),
        group=("run",) if options.per_run else tuple(group),
        average="tasks" if tasks_average else "questions",
        per_run=options.per_run,
        baseline=baseline,
        params=TableParams(
            seed=options.seed,
            resamples=resamples if options.ci else None,
            delta_resamples=DEFAULT_RESAMPLES if baseline is not None else None,
            level=DEFAULT_LEVEL,
            k=sorted(ks)[0] if len(ks) == 1 else sorted(ks),
            clustered=clustered,
            membership=options.membership,
            multi_label_axes=multi_label_axes if set(by) & set(multi_label_axes) else (),
        ),
        columns=tuple(columns),
        rows=rows_out,
        notes=tuple(notes),
    )


def _pooled_rows(rows: list[_Row]) -> tuple[list[_Row], list[str]]:
    """The rows with every row whose runs overlap split into one row per run (no question
    counted twice unsaid), repeats recorded; and the notes saying what was split."""
    out: list[_Row] = []
    notes: list[str] = []
    for row in rows:
        found = pooling.classify([part.keys for part in row.parts])
        if found.kind == "overlap":
            runs = [part.run.run_id for part in row.parts]
            notes.append(pooling.split_note(_joined(list(row.key)), runs, found.shared))
            out += [_Row(row.key, [part], split_run=part.run.run_id) for part in row.parts]
            continue
        row.repeats = found.repeats
        out.append(row)
    return out, notes


def _typed_cell(cell: _Cell) -> TableCell:
    """A cell as computed (filled in several passes) into its frozen record."""
    return TableCell(
        value=cell["value"],
        n=cell["n"],
        best=cell["best"],
        ci=(cell["ci_low"], cell["ci_high"]) if "ci_low" in cell else None,
        p95=cell.get("p95"),
        delta=CellDelta(
            cell["delta"],
            cell["delta_low"],
            cell["delta_high"],
            cell["delta_n"],
            cell["significant"],
            p_value=cell.get("delta_p"),
        )
        if "delta" in cell
        else None,
        n_clusters=cell.get("n_clusters"),
    )
