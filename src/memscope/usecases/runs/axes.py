"""A run's questions placed on its benchmark's axes (``adapters.axes``), as numpy columns,
and the cross tables the matrix and ``report`` show.

- :func:`run_axes`: the axes of a run's benchmark.
- :func:`axis_columns`: per axis, each question's value as text (``""`` where missing),
  numeric axes grouped as ``report``'s TSR tables group them (``analysis.cluster_rates.bin_labels``).
- :func:`numeric_levels`: how a numeric axis groups its values (each distinct number a
  level, ranges beyond :data:`MAX_BINS`); ``memscope table`` groups with it too.
- :func:`numeric_mask`: the rows a numeric filter (``>=30``, ``2-3``, ``12``) keeps.
- :func:`axes_report`: per matrix view, accuracy per cell, per row and per column.
- :func:`axes_delta`: per matrix view, Δ = correct_B − correct_A over matched questions
  (``compare``; the app's comparison matrix shows the same).
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np

from memscope.adapters.axes import Axis, BenchmarkAxes
from memscope.adapters.axes import MatrixView as MatrixView  # for the app's matrix
from memscope.adapters.spec import Benchmark
from memscope.errors import InputError
from memscope.usecases.runs.loading import RunData
from memscope.usecases.runs.question_extras import extra_columns

if TYPE_CHECKING:
    import pyarrow as pa


class CellSummary(TypedDict):
    """One group of a :func:`cross_table`: the mean (None: no defined value) and its n."""

    value: float | None
    n: int


class CrossTable(TypedDict):
    """:func:`cross_table`'s result: per cell (row, then column), per row, per column."""

    cells: dict[str, dict[str, CellSummary]]
    by_row: dict[str, CellSummary]
    by_column: dict[str, CellSummary]


MAX_BINS = 8
"""Numeric levels beyond this many are grouped into ranges (as ``report`` does)."""

SOURCE_COLUMNS = {"extra": "extra", "own": "prediction_extra"}
"""Which question-table column each ``extra:`` / ``own:`` axis source reads."""

_COMPARISON = re.compile(r"^(>=|<=|>|<|=)?\s*(-?\d+(?:\.\d+)?)$")
_RANGE = re.compile(r"^(-?\d+(?:\.\d+)?)\s*-\s*(-?\d+(?:\.\d+)?)$")


def run_axes(data: RunData) -> BenchmarkAxes:
    """The axes of the run's benchmark."""
    return data.spec.axes


def raw_values(questions: pa.Table, axes: BenchmarkAxes) -> dict[str, np.ndarray]:
    """Per axis key, each question's value before grouping (object arrays, None missing);
    ``questions`` is a run's question table (``store.queries.question_table``)."""
    wanted: dict[str, set[str]] = {"extra": set(), "own": set()}
    for axis in axes.axes:
        for kind, name in axis.sources():
            if kind in wanted:
                wanted[kind].add(name)
    found = {
        kind: extra_columns(questions, tuple(sorted(names)), column=SOURCE_COLUMNS[kind])
        for kind, names in wanted.items()
        if names
    }
    result: dict[str, np.ndarray] = {}
    for axis in axes.axes:
        column: np.ndarray | None = None
        for kind, name in axis.sources():  # the first source that has a value wins
            values = (
                np.asarray(questions.column(name).to_pylist(), dtype=object)
                if kind == "column"
                else found[kind][name]
            )
            if column is None:
                column = values.copy()
            else:
                missing = np.array([value is None for value in column.tolist()], dtype=bool)
                column[missing] = values[missing]
        assert column is not None  # an axis names at least one source
        if axis.derive is not None:
            derived = np.empty(len(column), dtype=object)
            derived[:] = [axis.derive(value) for value in column.tolist()]
            column = derived
        result[axis.key] = column
    return result


def _number(value: object) -> float:
    if not isinstance(value, (int, float, str)):
        return math.nan
    try:
        number = float(value)
    except ValueError:
        return math.nan
    return number


def numeric_levels(numbers: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """``(label per value, levels in increasing order)`` of a numeric axis over ``numbers``
    (NaN: ``""``): each distinct number its own level, more than :data:`MAX_BINS` of them
    cut into ranges ``"lo-hi"`` as ``report``'s tables cut them."""
    from memscope.analysis.cluster_rates import bin_labels

    return bin_labels(numbers, max_bins=MAX_BINS)


def axis_columns(
    data: RunData | pa.Table, axes: BenchmarkAxes | None = None
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], dict[str, list[str]]]:
    """``(labels, numbers, levels)`` per axis key.

    ``data`` is a loaded run, or a question table read with the benchmark's ``axes``.
    ``labels``: each question's value as text (``""`` missing; numeric axes grouped into at
    most :data:`MAX_BINS` groups like ``report``'s tables); ``numbers``: the raw numbers of
    numeric axes (NaN missing); ``levels``: the values in display order.
    """
    if isinstance(data, RunData):
        axes = axes or run_axes(data)
        questions = data.questions
    else:
        questions = data
        if axes is None:
            raise TypeError("a question table is read with its benchmark's axes")
    labels: dict[str, np.ndarray] = {}
    numbers: dict[str, np.ndarray] = {}
    levels: dict[str, list[str]] = {}
    for key, column in raw_values(questions, axes).items():
        axis = axes.require(key)
        if axis.numeric:
            values = np.array([_number(v) for v in column.tolist()], dtype=float)
            numbers[key] = values
            labels[key], levels[key] = numeric_levels(values)
        else:
            labels[key] = np.array(
                ["" if v is None else str(v) for v in column.tolist()], dtype=object
            )
            levels[key] = [level.value for level in axis.levels]
    return labels, numbers, levels


def numeric_mask(axis: Axis, numbers: np.ndarray, text: str) -> np.ndarray:
    """The rows whose value satisfies a numeric filter: ``30``, ``>=30``, ``<3``, ``6-12``.

    Raises:
        InputError: when ``text`` is none of these forms.
    """
    text = text.strip()
    ranged = _RANGE.match(text)
    if ranged:
        low, high = float(ranged.group(1)), float(ranged.group(2))
        return (numbers >= low) & (numbers <= high)
    found = _COMPARISON.match(text)
    if not found:
        raise InputError(
            f"{axis.key}:{text} is not a number or a comparison",
            fix=f"Write {axis.key}:2, {axis.key}:>=30, {axis.key}:<3 or {axis.key}:6-12.",
        )
    op, value = found.group(1) or "=", float(found.group(2))
    with np.errstate(invalid="ignore"):
        return {
            "=": numbers == value,
            ">=": numbers >= value,
            "<=": numbers <= value,
            ">": numbers > value,
            "<": numbers < value,
        }[op]


def level_mask(axis: Axis, labels: np.ndarray, numbers: np.ndarray | None, text: str) -> np.ndarray:
    """The rows a filter term ``axis:text`` keeps.

    Raises:
        InputError: naming the axis's levels when ``text`` names none of them.
    """
    if axis.numeric:
        if numbers is None:
            return np.zeros(len(labels), dtype=bool)
        if text in set(labels.tolist()) and "-" in text:
            return labels == text  # a range label of the matrix, e.g. bank:6-12
        return numeric_mask(axis, numbers, text)
    level = axis.match(text)
    if level is None:
        names = ", ".join(f"{lv.short or lv.value}" for lv in axis.levels)
        raise InputError(f"{axis.key}:{text} is not a {axis.title}", fix=f"Use one of {names}.")
    return labels == level.value


def cross_table(
    values: np.ndarray,
    row_labels: np.ndarray,
    column_labels: np.ndarray,
    rows: list[str],
    columns: list[str],
) -> CrossTable:
    """Mean of ``values`` (NaN ignored) per cell, per row and per column, with n.

    Returns:
        ``{"cells": {row: {column: {"value", "n"}}}, "by_row": {row: {...}},
        "by_column": {column: {...}}}``; a group without questions is absent, one whose
        questions have no defined value has ``value`` None.
    """
    defined = ~np.isnan(values)

    def summary(mask: np.ndarray) -> CellSummary | None:
        if not mask.any():
            return None
        kept = values[mask & defined]
        return {"value": float(kept.mean()) if kept.size else None, "n": int(kept.size)}

    cells: dict[str, dict[str, CellSummary]] = {}
    for row in rows:
        in_row = row_labels == row
        for column in columns:
            found = summary(in_row & (column_labels == column))
            if found is not None:
                cells.setdefault(row, {})[column] = found
    by_row = {row: s for row in rows if (s := summary(row_labels == row)) is not None}
    by_column = {c: s for c in columns if (s := summary(column_labels == c)) is not None}
    return {"cells": cells, "by_row": by_row, "by_column": by_column}


def cross_json(table: CrossTable) -> dict[str, list[dict[str, str | float | None]]]:
    """A :func:`cross_table` as JSON lists, so that level names stay data, not keys:
    ``{"cells": [{"row", "column", "value", "n"}], "by_row": [{"level", "value", "n"}],
    "by_column": [...]}``."""
    return {
        "cells": [
            {"row": row, "column": column, "value": summary["value"], "n": summary["n"]}
            for row, by_column in table["cells"].items()
            for column, summary in by_column.items()
        ],
        "by_row": [
            {"level": row, "value": summary["value"], "n": summary["n"]}
            for row, summary in table["by_row"].items()
        ],
        "by_column": [
            {"level": column, "value": summary["value"], "n": summary["n"]}
            for column, summary in table["by_column"].items()
        ],
    }


def axes_report(data: RunData, correct: np.ndarray) -> dict[str, Any]:
    """``report``'s ``axes`` section: ``{"benchmark", "axes": [{"key", "title", "levels":
    [{"value", "label"}]}], "views": [{"rows", "columns", "correct": cross_json}]}``, the
    share of correct answers per cell of each matrix view (what the app's matrix shows as
    accuracy / TSR / EM)."""
    axes = run_axes(data)
    labels, _numbers, levels = axis_columns(data, axes)
    views = []
    for view in axes.views:
        table = cross_table(
            np.asarray(correct, dtype=float),
            labels[view.rows],
            labels[view.columns],
            levels[view.rows],
            levels[view.columns],
        )
        views.append({"rows": view.rows, "columns": view.columns, "correct": cross_json(table)})
    return {
        "benchmark": axes.benchmark,
        "axes": [
            {
                "key": axis.key,
                "title": axis.title,
                "levels": [
                    {"value": value, "label": axis.label(value)} for value in levels[axis.key]
                ],
            }
            for axis in axes.axes
        ],
        "views": views,
    }


def axes_delta(
    questions_a: pa.Table,
    spec: Benchmark,
    rows_a: np.ndarray,
    correct_a: np.ndarray,
    correct_b: np.ndarray,
) -> list[dict[str, Any]]:
    """``compare``'s Δ on the benchmark's axes: per matrix view, the mean of
    ``correct_b − correct_a`` per cell, row and column over the matched questions (rows of
    run A: ``rows_a``; a question unscored in either run is left out)."""
    axes = spec.axes
    labels, _numbers, levels = axis_columns(questions_a, axes)
    delta = np.asarray(correct_b, dtype=float) - np.asarray(correct_a, dtype=float)
    views = []
    for view in axes.views:
        table = cross_table(
            delta,
            labels[view.rows][rows_a],
            labels[view.columns][rows_a],
            levels[view.rows],
            levels[view.columns],
        )
        views.append({"rows": view.rows, "columns": view.columns, "delta": cross_json(table)})
    return views
