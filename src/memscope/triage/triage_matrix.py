"""The matrix of the triage app: one value and its n per cell for a chosen metric, on the
run's own benchmark axes (``adapters.axes``).

MemEye (X×Y): EM and Judge (answers), Any-Clue@K and Latest@K (retrieval, docs/metrics.md §3–§4).
CUE-Mem (task × evidence, or task × modality): accuracy, evidence Recall@K and
Precision@K, with the EI-gap per task beside the accuracy grid. DMV-Bench (reach × bank
size, or reach × encoding position): TSR, target in the top K of the first recall step,
target seen in any step; every non-MemEye grid also has an "all" column (e.g. TSR by
reach, the retention curve). Everywhere: the share of failures labelled, how many
questions carry a labelled or suggested failure code, and in comparison mode
Δ = B − A (A the run open, B the one compared with it, as ``memscope compare A B``). Values come from the shared metric code (``usecases.report.build``,
``usecases.compare.pairs``, ``usecases.runs.question_scores``); this module only groups them by cell.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from memscope.usecases.benchmarks import Benchmark
from memscope.usecases.labels.queue import TriageTable
from memscope.usecases.report.build import question_metrics
from memscope.usecases.report.metric_names import METRIC_NAMES
from memscope.usecases.runs.axes import MatrixView, cross_table
from memscope.usecases.runs.loading import RunData
from memscope.usecases.runs.store_access import Store

RATE_METRICS = {key: METRIC_NAMES[key] for key in ("em", "judge", "f1", "any_clue", "latest_at_k")}
DELTA_RESAMPLES = 1000


@dataclass(frozen=True)
class MatrixMetric:
    """A metric the matrix can colour by."""

    key: str
    title: str
    kind: str
    """``rate`` (0..1), ``count`` (questions) or ``delta`` (−1..1)."""


@dataclass(frozen=True)
class CellValue:
    """One cell: the value (None: undefined) and how many questions it is over."""

    value: float | None
    n: int


RETRIEVAL_KEYS = {"any_clue", "latest_at_k", "evidence_recall", "evidence_precision", "r1_top_k"}
"""Metrics that need the retrieval evidence (loaded in the background)."""
SHARED_METRICS = frozenset({"accuracy", "tsr", *RATE_METRICS, *RETRIEVAL_KEYS})
"""The matrix metrics a benchmark's ``axes.metrics`` may name besides its own table metrics
(``TableLayout.metrics``, read from their prediction column) and ``own:NAME``;
docs/benchmarks.md."""
OWN_METRIC = "own:"
"""A matrix metric ``own:NAME``: the mean of the run's own per-question attribute ``NAME``
(``PredictionRow.extra``; a question without it is not counted), so a benchmark's own
per-question fact (DMV-Bench's target seen in any recall step) needs no code here."""


def own_values(data: RunData, name: str) -> np.ndarray:
    """Per question the run's own attribute ``name`` as a float, NaN where it is missing or
    not a number."""
    from memscope.usecases.runs.question_extras import extra_columns

    raw = extra_columns(data.questions, (name,), column="prediction_extra")[name]
    return np.array(
        [float(value) if isinstance(value, int | float) else np.nan for value in raw.tolist()],
        dtype=float,
    )


ALL_COLUMN = "*"
EI_GAP_COLUMN = "ei_gap"


def needs_evidence(metric: MatrixMetric) -> bool:
    """Whether computing ``metric`` needs the run's retrieval evidence (not only its
    question and answer scores)."""
    return metric.key in RETRIEVAL_KEYS


def caches_by_parameters(metric: MatrixMetric) -> bool:
    """Whether a grid of ``metric`` stays valid while the session labels: everything but
    the label, suggestion and labelled-share counts depends only on the run(s) and K."""
    return metric.key != "labelled" and not metric.key.startswith(("label:", "suggested:"))


def available_metrics(
    spec: Benchmark,
    compare: bool,
    has_retrieval: bool,
    labels: Mapping[str, Iterable[str]],
    suggested_codes: Iterable[str],
) -> list[MatrixMetric]:
    """The metrics that make sense for this session's benchmark (``spec``), in display
    order; ``labels`` (qid -> codes) is the session's small dict and ``suggested_codes``
    the run's distinct suggested codes: a code labelled or suggested somewhere gets its
    count."""
    metrics = [
        MatrixMetric(key, title, "rate")
        for key, title in spec.axes.metrics
        if has_retrieval or key not in RETRIEVAL_KEYS
    ]
    metrics.append(MatrixMetric("labelled", "share of failures labelled", "rate"))
    if compare:
        metrics.append(MatrixMetric("delta", spec.matrix.delta_title, "delta"))
    labelled_codes = sorted({code for codes in labels.values() for code in codes})
    suggested = sorted({code for code in suggested_codes if code})
    metrics += [
        MatrixMetric(f"label:{code}", f"labelled {code}", "count") for code in labelled_codes
    ]
    metrics += [
        MatrixMetric(f"suggested:{code}", f"suggested {code}", "count") for code in suggested
    ]
    return metrics


def matrix_table(
    data: RunData,
    labels: Mapping[str, Iterable[str]],
    suggestions: Mapping[str, object],
    other: RunData | None = None,
) -> TriageTable:
    """The per-question columns the grid groups (axes, correctness, labels, suggestions,
    the compared run's correctness), built from columns read for one computation
    (``TriageSession.run_columns``), the session's label dict and the suggested codes
    (qid -> code, read for a "suggested CODE" count only: ``TriageSession.run_suggested``);
    the caller drops it with the grid computed."""
    return TriageTable(data, suggestions, labels, other)


def _coordinate_delta(store: Store, run_a: str, run_b: str) -> dict[tuple[str, str], CellValue]:
    """The caption-proof Δ per (x, y) cell, as ``memscope compare`` computes it (answer
    scores of the matched questions)."""
    from memscope.usecases.compare.pairs import make_comparison

    by_cell = make_comparison(store, run_a, run_b, resamples=DELTA_RESAMPLES).delta.by_cell
    cells: dict[tuple[str, str], CellValue] = {}
    for cell, summary in by_cell.items():
        x, _, y = cell.partition("_")
        delta = summary.get("delta")
        cells[(x, y)] = CellValue(
            float(delta) if delta is not None else None, int(summary.get("n") or 0)
        )
    return cells


def _on_coordinates(table: TriageTable, view: MatrixView) -> bool:
    """Whether ``view`` is the question table's x × y grid (MemEye's X × Y)."""
    row_axis, column_axis = table.axes.require(view.rows), table.axes.require(view.columns)
    return ("column", "x") in row_axis.sources() and ("column", "y") in column_axis.sources()


@dataclass(frozen=True)
class Grid:
    """A matrix view filled for one metric: its rows, columns and cells.

    ``cells`` is keyed ``(row value, column value)``; the extra columns (``"*"`` = all
    columns together, ``"ei_gap"`` = CUE-Mem's explicit − implicit) use the same keys.
    """

    row_title: str
    column_title: str
    rows: list[tuple[str, str]]
    """``(value, label)`` in display order."""
    columns: list[tuple[str, str]]
    extra_columns: list[tuple[str, str]]
    cells: dict[tuple[str, str], CellValue]


def outside_columns(grid: Grid) -> int:
    """How many questions the rows' "all" cells hold beyond their columns' cells: those
    with no level on the column axis (a question whose evidence has no age, say),
    which "all" counts and no column shows."""
    extra = 0
    for row, _ in grid.rows:
        everything = grid.cells.get((row, ALL_COLUMN))
        if everything is None:
            continue
        in_columns = sum(
            found.n for column, _ in grid.columns if (found := grid.cells.get((row, column)))
        )
        extra += max(everything.n - in_columns, 0)
    return extra


def grid_values(
    metric: MatrixMetric,
    table: TriageTable,
    data: RunData,
    k: int,
    view: MatrixView | None = None,
    other_run_id: str | None = None,
    store: Store | None = None,
) -> Grid:
    """The matrix for ``metric`` on ``view`` (default: the benchmark's first view).

    ``data`` holds the columns the metric needs, in the rows of ``table`` (the app reads
    them for this computation: :func:`needs_evidence` says whether they include the
    retrieval evidence); ``other_run_id`` is the compared run."""
    axes = table.axes
    view = view or axes.views[0]
    row_axis, column_axis = axes.require(view.rows), axes.require(view.columns)
    rows = [(v, row_axis.label(v)) for v in table.axis_levels[view.rows]]
    columns = [(v, column_axis.label(v)) for v in table.axis_levels[view.columns]]
    style = table.spec.matrix
    if metric.key == "delta" and _on_coordinates(table, view):
        # On the x × y grid Δ is compare's caption-proof gain of the answer scores.
        found = (
            _coordinate_delta(store, str(data.run.run_id), other_run_id)
            if other_run_id is not None and store is not None
            else {}
        )
        by_cell = {(r, c): found[(r, c)] for r, _ in rows for c, _ in columns if (r, c) in found}
        return Grid(row_axis.title, column_axis.title, rows, columns, [], by_cell)
    row_labels = table.axis_labels[view.rows]
    column_labels = table.axis_labels[view.columns]
    values, counting = _question_values(metric, table, data, k)
    row_values, column_values = [v for v, _ in rows], [v for v, _ in columns]
    cells: dict[tuple[str, str], CellValue] = {}
    if counting:
        for row in row_values:
            in_row = row_labels == row
            for column in [*column_values, ALL_COLUMN]:
                mask = in_row if column == ALL_COLUMN else in_row & (column_labels == column)
                if mask.any():
                    cells[(row, column)] = CellValue(float(values[mask].sum()), int(mask.sum()))
    else:
        crossed = cross_table(values, row_labels, column_labels, row_values, column_values)
        for row, by_column in crossed["cells"].items():
            for column, summary in by_column.items():
                cells[(row, column)] = CellValue(summary["value"], summary["n"])
        for row, summary in crossed["by_row"].items():
            cells[(row, ALL_COLUMN)] = CellValue(summary["value"], summary["n"])
    extra = [(ALL_COLUMN, "all")] if style.all_column else []
    if not style.all_column:
        cells = {key: value for key, value in cells.items() if key[1] != ALL_COLUMN}
    gap = style.gap  # the benchmark's declared difference column (CUE-Mem's EI-gap)
    if metric.key == "accuracy" and gap is not None and view.columns == gap.axis:
        extra.append((EI_GAP_COLUMN, gap.title))
        for row in row_values:
            first, second = cells.get((row, gap.minuend)), cells.get((row, gap.subtrahend))
            if first and second and first.value is not None and second.value is not None:
                cells[(row, EI_GAP_COLUMN)] = CellValue(
                    first.value - second.value, first.n + second.n
                )
    return Grid(row_axis.title, column_axis.title, rows, columns, extra, cells)


def _question_values(
    metric: MatrixMetric, table: TriageTable, data: RunData, k: int
) -> tuple[np.ndarray, bool]:
    """Per question: the value a cell averages (NaN: not counted), and whether cells sum
    instead (failure-code counts)."""
    n = len(table)
    if metric.key in ("accuracy", "tsr"):
        return table.correct.astype(float), False
    own = dict(table.spec.table.metrics)
    if metric.key in own and metric.key not in SHARED_METRICS:
        return data.column(own[metric.key]).astype(float), False  # a benchmark's own (f1)
    if metric.key in RATE_METRICS:
        return question_metrics(data, k)[metric.key], False
    if metric.key in ("evidence_recall", "evidence_precision"):
        from memscope.usecases.runs.question_scores import evidence_values

        return evidence_values(data, k, precision=metric.key == "evidence_precision"), False
    if metric.key == "r1_top_k":
        return question_metrics(data, k)["any_clue"], False
    if metric.key.startswith(OWN_METRIC):
        return own_values(data, metric.key.removeprefix(OWN_METRIC)), False
    if metric.key == "labelled":
        values = np.where(table.correct == 0.0, table.labelled.astype(float), np.nan)
        return values, False
    if metric.key == "delta":
        if table.other_correct is None:
            return np.full(n, np.nan), False
        return table.other_correct - table.correct, False
    if metric.key.startswith(("label:", "suggested:")):
        source, code = metric.key.split(":", 1)
        has = (
            np.array([code in codes.split() for codes in table.label.tolist()], dtype=bool)
            if source == "label"
            else table.suggested == code
        )
        return has.astype(float), True
    return np.full(n, np.nan), False
