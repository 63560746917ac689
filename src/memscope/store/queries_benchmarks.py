"""Reads for a benchmark's own views of a question: the question with its answer, its rows
in the benchmark's detail tables (by the table's declared name: no benchmark is named here)
and the rounds they refer to. The app reaches them through ``usecases/runs/panel_reads.py``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from memscope.store.sql import one, rows

if TYPE_CHECKING:
    import duckdb


def run_question(con: duckdb.DuckDBPyConnection, run_id: str, qid: str) -> dict[str, Any] | None:
    """One question of a run with its prediction: text, gold, pred, em, and both extras."""
    row = one(
        con,
        "SELECT r.dataset_id, q.question, coalesce(q.gold, p.gold), p.pred, p.em, q.extra, p.extra "
        "FROM predictions p JOIN runs r USING (run_id) JOIN questions q ON q.dataset_id = r.dataset_id AND q.qid = p.qid "
        "WHERE p.run_id = ? AND p.qid = ?",
        [run_id, qid],
    )
    if row is None:
        return None
    dataset_id, question, gold, pred, em, question_extra, prediction_extra = row
    return {
        "dataset_id": dataset_id,
        "question": question,
        "gold": gold,
        "pred": pred,
        "em": em,
        "extra": json.loads(question_extra) if question_extra else {},
        "prediction_extra": json.loads(prediction_extra) if prediction_extra else {},
    }


def detail_rows(
    con: duckdb.DuckDBPyConnection, table: str, run_id: str, qid: str
) -> list[dict[str, Any]]:
    """A question's rows of a run in one of a benchmark's detail tables (``run_id`` left
    out), as written. ``table`` must be a declared detail table's name (the caller checks:
    it is spliced into the SQL, quoted); the table has a ``qid`` column."""
    import duckdb

    if not table.isidentifier():
        raise ValueError(f"not a detail table name: {table!r}")
    try:
        cursor = con.execute(
            f'SELECT * EXCLUDE (run_id) FROM "{table}" WHERE run_id = ? AND qid = ?',
            [run_id, qid],
        )
    except duckdb.CatalogException:
        return []  # created on first use: no run has written one yet
    names = [column[0] for column in cursor.description or ()]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def rounds_by_id(
    con: duckdb.DuckDBPyConnection, dataset_id: str, round_ids: list[str]
) -> dict[str, dict[str, Any]]:
    """The named rounds of a dataset (text, media, extra), by round id."""
    if not round_ids:
        return {}
    found = rows(
        con,
        "SELECT round_id, session_id, position, user_text, assistant_text, image_refs, image_files, image_captions, "
        "audio_refs, audio_files, audio_captions, audio_ids, background_audio, extra "
        "FROM rounds WHERE dataset_id = ? AND list_contains(?, round_id)",
        [dataset_id, list(dict.fromkeys(round_ids))],
    )
    names = (
        "round_id",
        "session_id",
        "position",
        "user_text",
        "assistant_text",
        "image_refs",
        "image_files",
        "image_captions",
        "audio_refs",
        "audio_files",
        "audio_captions",
        "audio_ids",
        "background_audio",
        "extra",
    )
    result = {}
    for row in found:
        entry = dict(zip(names, row, strict=True))
        entry["extra"] = json.loads(entry["extra"]) if entry["extra"] else {}
        result[entry["round_id"]] = entry
    return result
