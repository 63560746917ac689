"""Bulk loaders: per-question files the store reads with DuckDB itself.

A loader stages a file with DuckDB's readers (no Python row loop), checks every row,
reports bad ones by ``file:line`` and inserts the good ones into ``predictions`` and
``retrievals``. ``LOADERS`` maps a :class:`~memscope.records.BulkSource` loader name to
its function.
"""

from __future__ import annotations

from memscope.store.loaders.memeye import load_memeye_predictions

LOADERS = {"memeye_predictions": load_memeye_predictions}
