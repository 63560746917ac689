"""Reading label exports (jsonl, csv, parquet) with DuckDB, for ``import-labels``.

:func:`label_file_source` is the one place a label file's path reaches a DuckDB reader;
``store.label_import`` stages the file through it and checks its rows in SQL. The path is
given as a pattern that matches only itself (``store.literal_files.escape_pattern``), so
``labels[1].jsonl`` is never read as ``labels1.jsonl``; the reader runs in several
statements, so an open descriptor would have to outlive them all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memscope.errors import InputError
from memscope.file_kinds import not_regular
from memscope.store.literal_files import escape_pattern

# maximum_depth 1 keeps nested values (codes, params) as JSON text, exactly as written,
# instead of one struct type unified over every row's params.
_JSONL = "read_json(?, format = 'newline_delimited', maximum_depth = 1)"
READERS = {
    ".jsonl": ("jsonl", _JSONL),
    ".json": ("jsonl", _JSONL),
    ".ndjson": ("jsonl", _JSONL),
    # allow_quoted_nulls = false: an empty quoted cell ("", an empty note) stays empty.
    ".csv": ("csv", "read_csv(?, header = true, all_varchar = true, allow_quoted_nulls = false)"),
    ".parquet": ("parquet", "read_parquet(?)"),
}


def label_file_source(path: Path, json_columns: tuple[str, ...] = ()) -> tuple[str, str, list[Any]]:
    """How to read a label export: its kind (``jsonl``, ``csv``, ``parquet``), the DuckDB
    table function (SQL) and its parameters.

    ``json_columns``: read just these columns of a jsonl file, each as JSON (about twice as
    fast as detecting them); without, every column is read as JSON text.

    Raises:
        InputError: a path that is not a regular file (saying what it is), or an extension
            that is not a label export's.
    """
    if not path.exists() and not path.is_symlink():
        raise InputError(
            "the label file does not exist",
            where=str(path),
            fix="Check the path; label files are written by `memscope export-labels`.",
        )
    kind_of_path = not_regular(path)
    if kind_of_path is not None:
        raise InputError(
            f"the label file is {kind_of_path}, not a regular file",
            where=str(path),
            fix="Pass a file written by `memscope export-labels`.",
        )
    found = READERS.get(path.suffix.lower())
    if found is None:
        raise InputError(
            f"cannot tell the format of {path.name} from its extension",
            where=str(path),
            fix="Label exports end in .jsonl, .csv or .parquet.",
        )
    kind, reader = found
    if kind == "jsonl" and json_columns:
        declared = ", ".join("'" + name.replace("'", "''") + "': 'JSON'" for name in json_columns)
        reader = f"read_json(?, format = 'newline_delimited', columns = {{{declared}}})"
    return kind, reader, [escape_pattern(str(path))]
