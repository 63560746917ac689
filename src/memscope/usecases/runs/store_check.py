"""``memscope store check``: is the store sound, and if not, what can be saved from it.

The look itself is ``memscope.store.check`` (read-only, never migrating); here it becomes
the steps a user takes: save what people made (labels with their notes, verdicts, sample
plans), restore or re-ingest, import the labels and verdicts back.

``--save-labels PATH`` writes as every ``--out`` does (``usecases.output_files``): a
regular file is replaced whole (a temp file beside it, renamed) only when it is new, empty
or a file an earlier ``--save-labels`` wrote; a terminal, a FIFO with a reader or a device
is written straight through, never renamed over.
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscope.store.check import HUMAN_TABLES, StoreHealth, check_store
from memscope.store.migrations import shipped_names

if TYPE_CHECKING:
    from memscope.store import Store

__all__ = [
    "HUMAN_TABLES",
    "SavedInput",
    "StoreHealth",
    "check_store",
    "health_record",
    "next_steps",
    "save_human_input",
    "shipped_names",
]
IMPORTED_BACK = ("label_events", "verdict_events")
"""What ``import-labels`` reads back from a saved file (the sample rows it passes over)."""


@dataclass
class SavedInput:
    """What ``--save-labels`` wrote: rows per human table, and the tables it could not read."""

    path: Path
    rows: dict[str, int] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """``2 label event(s), 1 verdict event(s)`` (the label count always, others when any)."""
        parts = [
            f"{count} {HUMAN_TABLES[table]}"
            for table, count in self.rows.items()
            if count or table == "label_events"
        ]
        return ", ".join(parts) or "nothing"


def save_human_input(store: Store, health: StoreHealth, out: Path) -> SavedInput:
    """Save every human table ``health`` could read to ``out`` (see the module docstring).

    Raises:
        InputError: ``out`` is the store, a folder, a missing folder's file, a FIFO no
            process reads, or a file memscope did not write as saved labels.
        StoreError: the tables cannot be read after all.
        MemscopeError: ``out`` cannot be written.
    """
    from memscope.store.check import check_save_target
    from memscope.store.check import save_human_input as copy_tables
    from memscope.usecases.output_files import (
        SAVED_INPUT,
        cannot_write,
        plan_output,
        store_files,
        stream_writer,
        user_file_mode,
    )

    given = check_save_target(store, out)
    target = plan_output(given, SAVED_INPUT, store_files(store), option="--save-labels")
    readable = [table for table in HUMAN_TABLES if health.human_rows.get(table) is not None]
    saved = SavedInput(
        given,
        unreadable=[
            table
            for table in HUMAN_TABLES
            if table in health.human_rows and health.human_rows[table] is None
        ],
    )
    folder = target.file.parent if target.file is not None else Path(tempfile.gettempdir())
    handle, name = tempfile.mkstemp(dir=folder, prefix=f".{given.name}.", suffix=".tmp")
    os.close(handle)
    temp = Path(name)
    try:
        saved.rows = copy_tables(store, readable, temp)
        os.chmod(temp, user_file_mode())
        if target.file is None:  # a terminal, FIFO or device: written through, never replaced
            with temp.open("rb") as source, stream_writer(target) as sink:
                shutil.copyfileobj(source, sink)
        else:
            if target.file.exists() and not os.access(target.file, os.W_OK):
                raise PermissionError(13, "Permission denied", str(target.file))
            os.replace(temp, target.file)
    except OSError as exc:
        raise cannot_write(exc, given, "labels", option="--save-labels") from None
    finally:
        temp.unlink(missing_ok=True)
    return saved


def next_steps(health: StoreHealth, *, saved: SavedInput | None = None) -> list[str]:
    """What to do about a store with problems, in order (nothing for a sound store)."""
    if health.sound:
        return []
    db = shlex.quote(str(health.path))
    if health.upgrade_unwritable and len(health.problems) == 1:  # whole, only older
        return [
            f"copy it somewhere writable (cp {db} COPY.duckdb) and use --db COPY.duckdb: "
            "memscope upgrades the copy on first use; the original stays as it is"
        ]
    labels = shlex.quote(str(saved.path)) if saved is not None else "labels.jsonl"
    held = {table: rows for table, rows in health.human_rows.items() if rows}
    steps = []
    if saved is not None and any(saved.rows.values()):
        steps.append(f"saved in {saved.path}: {saved.summary()}")
    elif held:
        what = ", ".join(f"{rows} {HUMAN_TABLES[table]}" for table, rows in held.items())
        steps.append(
            f"save what people made ({what}): memscope store check --db {db} --save-labels {labels}"
        )
    elif health.opened and health.label_events is not None:
        steps.append("the store holds no labels, notes, verdicts or sample plans: nothing to save")
    else:
        steps.append("the labels cannot be read from this file: a backup is the only source")
    unreadable = [table for table, rows in health.human_rows.items() if rows is None]
    if health.opened and unreadable:
        steps.append(
            "these cannot be read and are lost unless a backup has them: "
            + ", ".join(HUMAN_TABLES[table].removesuffix("(s)") + "s" for table in unreadable)
        )
    steps.append(
        "restore the store from a backup, or re-ingest the runs into a new one: "
        "memscope ingest RUN_DIR... --db NEW.duckdb"
    )
    back = [table for table in IMPORTED_BACK if held.get(table)]
    if back:
        what = " and ".join("labels" if table == "label_events" else "verdicts" for table in back)
        steps.append(f"import the {what} there: memscope import-labels {labels} --db NEW.duckdb")
    if held.get("sample_plans") or held.get("verdict_sample_items"):
        steps.append(
            f"the sample plans are in {labels} (event_kind sample_plan, sample_item, "
            "verdict_sample_item: seed, strata, order); import-labels does not read them: draw "
            "them again with memscope sample RUN (the same seed and size)"
        )
    return steps


def health_record(health: StoreHealth, saved: SavedInput | None = None) -> dict[str, Any]:
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
        "human_input": dict(health.human_rows),
        "saved": None if saved is None else {"file": str(saved.path), "rows": saved.rows},
        "problems": health.problems,
        "next_steps": next_steps(health, saved=saved),
    }
