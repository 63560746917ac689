"""A staged dataset file's session list as Python values, for the benchmark's ``build_rounds``.

DuckDB reads any nesting depth; Python does not. When the whole list does not decode, each
session and then each round is decoded alone (the members a
:class:`~memscope.record_formats.DatasetFormat` names), so one hostile round costs only
itself, and is named in a notice.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from memscope.record_formats import DatasetFormat
from memscope.records import DatasetSource, Notice
from memscope.store.loaders.lines import SkippedRecords
from memscope.store.sql import one_row, rows

if TYPE_CHECKING:
    import duckdb

MAX_EXAMPLES = 3


def _loads(text: str) -> tuple[bool, Any]:
    """``(True, value)``, or ``(False, None)`` when Python cannot hold the JSON text.

    orjson refuses nesting beyond 1024 levels and integers beyond 64 bits; the standard
    library takes such integers and stops at the recursion limit.
    """
    import orjson

    try:
        return True, orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    try:
        return True, json.loads(text)
    except (RecursionError, ValueError):
        return False, None


def decode_sessions(
    con: duckdb.DuckDBPyConnection,
    fmt: DatasetFormat,
    source: DatasetSource,
    notices: list[Notice],
) -> Any:
    """The session list as Python values; a round Python cannot hold is skipped and named.

    DuckDB reads any nesting depth; Python does not. When the whole list does not decode,
    each session and then each round is decoded alone, so one hostile round costs only
    itself.
    """
    rounds_path = "$." + json.dumps(fmt.session_rounds)
    whole = one_row(con, "SELECT dataset_sessions::VARCHAR FROM dataset_file")[0]
    decoded, value = _loads(whole)
    if decoded:
        return value
    sessions: list[Any] = []
    skipped: list[str] = []
    session_texts = rows(
        con,
        "SELECT unnest(json_extract(dataset_sessions, '$[*]'))::VARCHAR FROM dataset_file",
    )
    for order, (text,) in enumerate(session_texts, start=1):
        decoded, session = _loads(text)
        if decoded:
            sessions.append(session)
            continue
        fields = rows(
            con,
            "SELECT k, json_extract(j, '$.\"' || k || '\"')::VARCHAR FROM "
            "(SELECT ?::JSON AS j) s, unnest(json_keys(j)) t(k)",
            [text],
        )
        session = {}
        for key, field_text in fields:
            if key == fmt.session_rounds:
                continue
            ok, field = _loads(field_text)
            if ok:
                session[key] = field
        session_name = str(session.get(fmt.session_name) or f"S{order}")
        dialogues: list[Any] = []
        round_texts = rows(
            con, "SELECT unnest(json_extract(?::JSON, ? || '[*]'))::VARCHAR", [text, rounds_path]
        )
        for position, (round_text,) in enumerate(round_texts, start=1):
            ok, turn = _loads(round_text)
            if ok:
                dialogues.append(turn)
                continue
            round_name = one_row(
                con,
                "SELECT json_extract_string(?::JSON, ?)",
                [round_text, "$." + json.dumps(fmt.round_name)],
            )[0]
            skipped.append(f"round {round_name or position} of session {session_name}")
            dialogues.append(None)  # keeps the positions of the rounds after it
        session[fmt.session_rounds] = dialogues
        sessions.append(session)
    if skipped:
        notices.append(
            SkippedRecords(
                f"{len(skipped)} round(s) skipped: nested too deeply or holding numbers too large to read",
                source.source_path,
                tuple(skipped[:MAX_EXAMPLES]),
            )
        )
    return sessions
