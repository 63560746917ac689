"""Bulk loaders: per-question files the store reads with DuckDB itself.

A loader stages a file with DuckDB's readers (no Python row loop), checks every row,
reports bad ones by ``file:line`` and inserts the good ones into ``predictions`` and
``retrievals``. ``LOADERS`` maps a :class:`~memscope.records.BulkSource` loader name to
its function.
"""

from __future__ import annotations

from memscope.store.loaders.memeye import load_memeye_predictions
from memscope.store.loaders.memeye_dataset import load_memeye_dataset, stage_dialog

LOADERS = {"memeye_predictions": load_memeye_predictions}
"""Per-question result files, by ``BulkSource.loader``."""
DATASET_LOADERS = {"memeye_dataset": (stage_dialog, load_memeye_dataset)}
"""Dataset files, by ``DatasetSource.loader``: (stage outside the transaction, load inside)."""
