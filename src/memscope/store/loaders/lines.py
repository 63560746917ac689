"""Maps the record numbers DuckDB's JSON reader gives to file lines, and explains bad lines.

Only used when a file has problems, so it may read the file in Python: clean files never
pay for it.
"""

from __future__ import annotations

import json
from pathlib import Path

from memscope.errors import RunDirError
from memscope.records import Notice

NESTED_TOO_DEEPLY = "JSON nested too deeply to read"


class SkippedRecords(Notice):
    """A notice that records of an input file were skipped (``--strict`` refuses the run)."""


def refuse_skips_when_strict(notices: list[Notice], strict: bool) -> None:
    """Under ``--strict``, turn the first skipped-records notice into the run's refusal."""
    skipped = next((n for n in notices if isinstance(n, SkippedRecords)), None)
    if strict and skipped is not None:
        raise RunDirError(
            f"{skipped.what}; nothing was ingested (--strict)",
            where=skipped.where,
            fix="Fix the file, or drop --strict to ingest the rest.",
        )


def lines_of_records(path: Path, ordinals: set[int]) -> dict[int, tuple[int, bytes]]:
    """Return ``{ordinal: (line number, raw line)}`` for the given 1-based record ordinals.

    DuckDB's newline-delimited reader skips blank lines, so record ``n`` is the ``n``-th
    non-blank line.
    """
    wanted = dict.fromkeys(ordinals)
    found: dict[int, tuple[int, bytes]] = {}
    ordinal = 0
    with path.open("rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            ordinal += 1
            if ordinal in wanted:
                found[ordinal] = (line_no, raw)
                if len(found) == len(wanted):
                    break
    return found


def explain_bad_line(raw: bytes) -> str | None:
    """Why a raw line is not a JSON object, or None if it is one."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not valid UTF-8 (byte {exc.start + 1})"
    try:
        value = json.loads(text)
    except RecursionError:
        return NESTED_TOO_DEEPLY
    except json.JSONDecodeError as exc:
        truncated = "truncated? " if exc.pos >= len(text.rstrip()) - 1 else ""
        return f"not valid JSON ({truncated}{exc.msg} at column {exc.colno})"
    if not isinstance(value, dict):
        return f"not a JSON object (a {type(value).__name__})"
    return None
