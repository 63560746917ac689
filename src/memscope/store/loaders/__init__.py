"""Bulk loaders: files the store reads with DuckDB itself.

A loader stages a file with DuckDB's readers (no Python row loop), checks every row,
reports bad ones by ``file:line`` and inserts the good ones. A run's per-question file is
read as its benchmark declares it (``json_lines``: a
:class:`~memscope.records.BulkSource` carries the format).
"""

from __future__ import annotations

from memscope.store.loaders.memeye_dataset import load_memeye_dataset, stage_dialog

DATASET_LOADERS = {"memeye_dataset": (stage_dialog, load_memeye_dataset)}
"""Dataset files, by ``DatasetSource.loader``: (stage outside the transaction, load inside)."""
