"""Benchmark-specific question attributes (the questions' ``extra`` JSON) as numpy columns."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa


def extra_columns(
    questions: pa.Table, names: tuple[str, ...], *, column: str = "extra"
) -> dict[str, np.ndarray]:
    """``{name: (n,) object array}`` of the named ``extra`` attributes, None where absent.

    ``questions`` is a run's question table (``store.queries.question_table``), whose
    ``extra`` column holds one JSON object (or null) per question; ``column =
    "prediction_extra"`` reads the run's own per-question attributes instead.
    """
    raw = (
        questions.column(column).to_pylist()
        if column in questions.column_names
        else [None] * questions.num_rows
    )
    parsed: list[dict[str, Any]] = []
    for text in raw:
        try:
            value = json.loads(text) if text else {}
        except (TypeError, ValueError):
            value = {}
        parsed.append(value if isinstance(value, dict) else {})
    columns: dict[str, np.ndarray] = {}
    for name in names:
        values = np.empty(len(parsed), dtype=object)
        values[:] = [entry.get(name) for entry in parsed]
        columns[name] = values
    return columns


def as_float(values: np.ndarray) -> np.ndarray:
    """An object column of numbers (or None) as floats with NaN for None."""
    return np.array([np.nan if v is None else float(v) for v in values], dtype=float)
