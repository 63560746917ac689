"""Reading label exports (jsonl, csv, parquet) back with DuckDB, for ``import-labels``.

Rows come back as plain dicts; the caller normalises lists, JSON and times (a csv file
holds them as text).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscope.errors import InputError
from memscope.store.connection import connect_offline
from memscope.store.literal_files import literal_file
from memscope.store.sql import insert_json_rows

if TYPE_CHECKING:
    import duckdb

# maximum_depth 1 keeps nested values (codes, params) as JSON text, exactly as written,
# instead of one struct type unified over every row's params.
_JSONL = "read_json(?, format = 'newline_delimited', maximum_depth = 1)"
READERS = {
    ".jsonl": _JSONL,
    ".json": _JSONL,
    ".ndjson": _JSONL,
    # allow_quoted_nulls = false: an empty quoted cell ("", an empty note) stays empty.
    ".csv": "read_csv(?, header = true, all_varchar = true, allow_quoted_nulls = false)",
    ".parquet": "read_parquet(?)",
}


def read_label_file(path: Path) -> list[dict[str, Any]]:
    """Every row of a label export, keyed by column name.

    Raises:
        InputError: a path that is not a regular file (saying what it is), an unknown
            extension, or a file DuckDB cannot read.
    """
    import duckdb

    failure: str | None = None
    with literal_file(path, what="the label file") as literal:
        reader = READERS.get(path.suffix.lower())
        if reader is None:
            raise InputError(
                f"cannot tell the format of {path.name} from its extension",
                where=str(path),
                fix="Label exports end in .jsonl, .csv or .parquet.",
            )
        con = connect_offline(":memory:")
        try:
            result = con.execute(f"SELECT * FROM {reader}", [literal.name])
            names = [column[0] for column in result.description]
            found = [dict(zip(names, row, strict=True)) for row in result.fetchall()]
        except duckdb.Error as exc:
            text = str(exc).strip()
            failure = literal.explain(text.splitlines()[0]) if text else type(exc).__name__
        finally:
            con.close()
    if failure is not None:
        raise InputError(
            f"cannot read the label file: {failure}",
            where=str(path),
            fix="Pass a file written by `memscope export-labels`.",
        )
    if reader == _JSONL:  # every value is JSON text at maximum_depth 1
        found = [
            {
                name: json.loads(value) if isinstance(value, str) else value
                for name, value in row.items()
            }
            for row in found
        ]
    return found


def record_imports(con: duckdb.DuckDBPyConnection, imported: list[dict[str, Any]]) -> None:
    """Note which events came from which file (table ``label_imports``), in the caller's transaction."""
    from datetime import UTC, datetime

    now = datetime.now(UTC).replace(tzinfo=None)
    insert_json_rows(con, "label_imports", [{**row, "imported_at": now} for row in imported])
