"""Helpers turning ragged per-question lists into padded numpy matrices, and back."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

PAD = -1
"""Fill value of padded integer matrices (positions and session orders start at 1)."""


def float_column(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """An Arrow column of numbers (or booleans) as float64, NaN where null; no Python loop."""
    import pyarrow as pa
    import pyarrow.compute as pc

    floats = pc.cast(column, pa.float64())
    return np.asarray(floats.to_numpy(zero_copy_only=False), dtype=np.float64)


def pad_lists(
    column: pa.ChunkedArray | pa.Array, *, fill: float = PAD, dtype: type = np.int64
) -> np.ndarray:
    """Return a ``(rows, longest list)`` matrix from an Arrow list column.

    Null lists become empty rows; null items become ``fill``. Fully vectorised: no Python
    loop over rows.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if isinstance(array, pa.ChunkedArray):  # an empty chunked array
        array = pa.array([], type=column.type)
    lengths = (
        pc.fill_null(pc.list_value_length(array), 0).to_numpy(zero_copy_only=False).astype(np.int64)
    )
    rows = len(array)
    width = int(lengths.max()) if rows else 0
    out: np.ndarray = np.full((rows, width), fill, dtype=dtype)
    if not width:
        return out
    flat = pc.list_flatten(array)
    values = pc.fill_null(flat, fill).to_numpy(zero_copy_only=False).astype(dtype)
    row_index = np.repeat(np.arange(rows), lengths)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    col_index = np.arange(len(values)) - np.repeat(starts, lengths)
    out[row_index, col_index] = values
    return out


def row_member(items: np.ndarray, sets: np.ndarray) -> np.ndarray:
    """For each row, whether each entry of ``items`` occurs in the same row of ``sets``.

    Both are padded with :data:`PAD`; padding never matches.

    Args:
        items: ``(n, A)`` integers.
        sets: ``(n, B)`` integers.

    Returns:
        ``(n, A)`` booleans.
    """
    if items.shape[1] == 0 or sets.shape[1] == 0:
        return np.zeros(items.shape, dtype=bool)
    equal = items[:, :, None] == sets[:, None, :]
    return (equal & (sets[:, None, :] != PAD)).any(axis=2) & (items != PAD)
