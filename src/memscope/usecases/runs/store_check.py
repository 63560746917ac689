"""``memscope store check``: is the store sound, and if not, what can be saved from it.

The look itself is ``memscope.store.check`` (read-only, never migrating); here it becomes
the steps a user takes: save the labels, restore or re-ingest, import the labels back.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from memscope.store.check import StoreHealth, check_store, save_label_events
from memscope.store.migrations import shipped_names

__all__ = [
    "StoreHealth",
    "check_store",
    "health_record",
    "next_steps",
    "save_label_events",
    "shipped_names",
]


def next_steps(health: StoreHealth, *, labels_saved_to: Path | None = None) -> list[str]:
    """What to do about a store with problems, in order (nothing for a sound store)."""
    if health.sound:
        return []
    db = shlex.quote(str(health.path))
    labels = shlex.quote(str(labels_saved_to)) if labels_saved_to else "labels.jsonl"
    steps = []
    if labels_saved_to is not None and health.label_events:
        steps.append(f"the labels are saved in {labels_saved_to}")
    elif health.labels_readable and health.label_events:
        steps.append(
            f"save the labels ({health.label_events} events): "
            f"memscope store check --db {db} --save-labels {labels}"
        )
    elif health.opened and health.label_events == 0:
        steps.append("the store holds no labels: nothing to save")
    else:
        steps.append("the labels cannot be read from this file: a backup is the only source")
    steps.append(
        "restore the store from a backup, or re-ingest the runs into a new one: "
        "memscope ingest RUN_DIR... --db NEW.duckdb"
    )
    if health.label_events:
        steps.append(f"import the labels there: memscope import-labels {labels} --db NEW.duckdb")
    return steps


def health_record(health: StoreHealth) -> dict[str, Any]:
    """The check as plain data (``--format json``)."""
    return {
        "store": str(health.path),
        "size_bytes": health.size,
        "sound": health.sound,
        "opened": health.opened,
        "schema_versions": health.versions,
        "latest_version": health.latest_version,
        "tables": [
            {"name": table.name, "rows": table.rows, "error": table.error}
            for table in health.tables
        ],
        "missing_tables": health.missing_tables,
        "missing_columns": health.missing_columns,
        "unrecorded_tables": health.unrecorded_tables,
        "label_events": health.label_events,
        "problems": health.problems,
        "next_steps": next_steps(health),
    }
