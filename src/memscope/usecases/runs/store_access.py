"""The store as the front ends reach it: open it, build read options, take the app's lease.

The CLI and the app never import ``memscope.store`` or ``memscope.adapters`` themselves
(the import-linter contract in pyproject.toml); they get the handles they pass to the use
cases from here.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from memscope.adapters.base import ReadOptions, read_options
from memscope.adapters.spec import ReadOption
from memscope.paths import resolve_store_path
from memscope.store import Store
from memscope.store.connection import load_driver
from memscope.store.ingest import IngestOutcome
from memscope.store.lease import WriterLease

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "IngestOutcome",
    "ReadOptions",
    "Store",
    "WriterLease",
    "declared_read_options",
    "json_objects",
    "list_runs",
    "load_driver",
    "open_store",
    "read_options",
]


def open_store(db: str | os.PathLike[str] | None) -> Store:
    """The store the user chose (``--db``, else $MEMSCOPE_DB, else the nearest .memscope/)."""
    return Store(resolve_store_path(db))


def declared_read_options(*, plugins: bool = True) -> list[tuple[str, ReadOption]]:
    """Every read option an installed benchmark declares, with the benchmark's title, in
    registry order (the front ends offer them without naming any benchmark); without
    ``plugins``, only memscope's own benchmarks' (no plugin is imported)."""
    from memscope.adapters.registry import benchmarks, built_ins

    specs = benchmarks() if plugins else built_ins()
    return [(spec.title, option) for spec in specs for option in spec.read_options]


def list_runs(store: Store) -> list[dict[str, Any]]:
    """Every ingested run with its headline answer scores, oldest ingest first."""
    from memscope.store import queries

    with store.read() as con:
        return queries.list_runs(con)


def json_objects(table: pa.Table) -> list[bytes]:
    """One compact JSON object per row of ``table`` (written by DuckDB, not a Python loop)."""
    from memscope.store.json_rows import json_objects as encode

    return encode(table)
