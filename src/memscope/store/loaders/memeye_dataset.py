"""Bulk-loads a MemEye dialog JSON: sessions and rounds via the adapter, questions in SQL.

The file is staged once with DuckDB's JSON reader. The session list is small and needs the
file system (images are resolved by the adapter's ``build_rounds``); the QA list can hold
tens of thousands of entries, so each question's columns are derived in SQL with the same
rules as the tests' Python oracle (tests/memeye_oracle.py): qid from the list position, mode
"mcq" when ``options`` is a non-empty object or list, the highest X / Y label as the
coordinate, clue ids kept as written and resolved against the dataset's rounds, source
sessions from ``session_id`` (else the clue rounds' sessions, in clue order).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memscope.adapters.memeye.dataset import MAX_LEVEL_DIGITS, oversized_label_notice
from memscope.errors import DatasetError
from memscope.identity import KEY_LENGTH, KEY_SEPARATOR, WHITESPACE_PATTERN
from memscope.records import DatasetSource, Notice, RoundRecord, SessionRecord
from memscope.store.literal_files import literal_file
from memscope.store.loaders.lines import SkippedRecords
from memscope.store.sql import one, one_row, rows

if TYPE_CHECKING:
    import duckdb

QA_LIST_COLUMNS = ('"human-annotated QAs"', "human_annotated_qas", "qas")
QA_FIELDS = (
    "question",
    "answer",
    "point",
    "clue",
    "session_id",
    "options",
    "question_image",
    "question_images",
)
# The QA list is parsed straight into structs of the fields memscope reads. DuckDB refuses a
# list holding a non-object entry under that type; such files are staged as raw JSON and
# converted entry by entry (a non-object becomes NULL: a QA without a point).
QA_TYPE = "STRUCT(" + ", ".join(f"{name} JSON" for name in QA_FIELDS) + ")[]"
QA_SHAPE = "{" + ", ".join(f'"{name}": "JSON"' for name in QA_FIELDS) + "}"
MAX_EXAMPLES = 3


def _strings_sql(column: str) -> str:
    """SQL for the adapter's ``strings()``: a string or a list of them, stripped, non-empty."""
    return (
        f"CASE json_type({column}) "
        f"WHEN 'VARCHAR' THEN list_filter([trim({column} ->> '$')], lambda c: c <> '') "
        f"WHEN 'ARRAY' THEN list_filter(list_transform(json_extract_string({column}, '$[*]'), lambda c: trim(c)), "
        "lambda c: c IS NOT NULL AND c <> '') "
        "ELSE []::VARCHAR[] END"
    )


def _coordinate_sql(labels: str, axis: str) -> str:
    return (
        f"CASE WHEN len({labels}) > 0 THEN '{axis}' || "
        f"list_max(list_transform({labels}, lambda l: CAST(l[2:] AS INTEGER)))::VARCHAR END"
    )


def stage_dialog(con: duckdb.DuckDBPyConnection, source: DatasetSource) -> None:
    """Stage the dialog file as one row; raise DatasetError when it is not a MemEye dialog.

    Call it outside a transaction: the typed read may fail (and is then retried untyped),
    and a failed statement would abort the caller's transaction.
    """
    import duckdb

    failure: str | None = None

    def read(qa_type: str) -> str:
        columns = (
            "{'multi_session_dialogues': 'JSON', "
            + ", ".join(f"'{name.strip(chr(34))}': '{qa_type}'" for name in QA_LIST_COLUMNS)
            + "}"
        )
        return (
            "SELECT * FROM read_json(?, format = 'unstructured', records = 'true', "
            f"columns = {columns}, maximum_object_size = 2147483647)"
        )

    with literal_file(source.source_path, error=DatasetError, what="dialog JSON") as reader:
        try:
            try:
                con.execute(
                    f"CREATE OR REPLACE TEMP TABLE memeye_dialog AS {read(QA_TYPE)}",
                    [reader.name],
                )
            except duckdb.InvalidInputException as exc:
                if "transform error" not in str(exc):
                    raise
                converted = ", ".join(
                    f"list_transform({name}, lambda q: json_transform(q, '{QA_SHAPE}')) AS {name}"
                    for name in QA_LIST_COLUMNS
                )
                con.execute(
                    f"CREATE OR REPLACE TEMP TABLE memeye_dialog AS SELECT multi_session_dialogues, {converted} "
                    f"FROM ({read('JSON[]')})",
                    [reader.name],
                )
        except duckdb.Error as exc:
            failure = reader.explain(str(exc).splitlines()[0])
    if failure is not None:
        raise DatasetError(
            f"dialog JSON is not valid JSON: {failure}",
            where=source.source_path,
            fix="Fix or restore the file, or pass the right one with --dataset PATH.",
        ) from None
    staged = one(
        con,
        "SELECT count(*), count(*) FILTER (WHERE multi_session_dialogues IS NOT NULL) FROM memeye_dialog",
    )
    if not staged or staged[0] != 1 or staged[1] != 1:
        raise DatasetError(
            "dialog JSON has no 'multi_session_dialogues' list",
            where=source.source_path,
            fix="Pass the MemEye dialog file with --dataset PATH.",
        )


def load_memeye_dataset(
    con: duckdb.DuckDBPyConnection,
    source: DatasetSource,
    insert_rounds: Callable[[list[SessionRecord], list[RoundRecord]], None],
    notices: list[Notice],
) -> int:
    """Insert the sessions, rounds and questions of a dialog file staged by ``stage_dialog``.

    Returns:
        The number of questions.

    Raises:
        DatasetError: when the file is not a MemEye dialog JSON.
    """
    raw_sessions = _decode_sessions(con, source, notices)
    sessions, rounds, round_notices = source.build_rounds(raw_sessions)
    notices += round_notices
    insert_rounds(sessions, rounds)
    qa_list = "coalesce(" + ", ".join(QA_LIST_COLUMNS) + ")"
    if one_row(con, f"SELECT {qa_list} IS NULL FROM memeye_dialog")[0]:
        raise DatasetError(
            "dialog JSON has no QA list ('human-annotated QAs')",
            where=source.source_path,
            fix="Pass the MemEye dialog file with --dataset PATH.",
        )
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE memeye_qas AS
        WITH parsed AS (
            SELECT unnest(l) AS f, generate_subscripts(l, 1) AS idx
            FROM (SELECT {qa_list} AS l FROM memeye_dialog)
        ),
        fields AS (
            SELECT idx, f IS NOT NULL AS is_object,
                   coalesce(f.question ->> '$', '') AS question,
                   f.answer ->> '$' AS gold,
                   f.point AS point,
                   CASE WHEN json_type(f.options) = 'ARRAY' AND json_array_length(f.options) > 0 THEN f.options
                        WHEN json_type(f.options) = 'OBJECT' AND len(json_keys(f.options)) > 0 THEN f.options
                   END AS options,
                   {_strings_sql("f.clue")} AS clue_ids,
                   {_strings_sql("f.session_id")} AS session_ids,
                   list_concat({_strings_sql("f.question_image")}, {_strings_sql("f.question_images")}) AS question_images,
                   CASE WHEN json_type(f.point) = 'ARRAY'
                        THEN list_transform(json_extract_string(f.point, '$[*][*]'), lambda l: trim(l)) END AS labels
            FROM parsed
        ),
        clues AS (
            SELECT idx, unnest(clue_ids) AS clue, generate_subscripts(clue_ids, 1) AS position FROM fields
        ),
        resolved AS (
            SELECT c.idx, list(c.clue ORDER BY c.position) AS clue_rounds,
                   list(r.session_id ORDER BY c.position) AS clue_sessions
            FROM clues c JOIN rounds r ON r.dataset_id = $dataset AND r.round_id = c.clue
            GROUP BY c.idx
        )
        SELECT idx, is_object, question, gold, options, clue_ids, session_ids, question_images,
               coalesce(clue_rounds, []::VARCHAR[]) AS clue_rounds,
               coalesce(clue_sessions, []::VARCHAR[]) AS clue_sessions,
               CASE WHEN options IS NULL THEN 'open' ELSE 'mcq' END AS mode,
               list_filter(coalesce(labels, []), lambda l: regexp_full_match(l, 'X[0-9]{{1,{MAX_LEVEL_DIGITS}}}')) AS x_labels,
               list_filter(coalesce(labels, []), lambda l: regexp_full_match(l, 'Y[0-9]{{1,{MAX_LEVEL_DIGITS}}}')) AS y_labels,
               len(list_filter(coalesce(labels, []), lambda l: regexp_full_match(l, '[XY][0-9]{{{MAX_LEVEL_DIGITS + 1},}}'))) > 0 AS oversized,
               is_object AND (labels IS NOT NULL) AND (json_array_length(point) = 0 OR len(labels) > 0) AS point_ok
        FROM fields LEFT JOIN resolved USING (idx)
        """,
        {"dataset": source.dataset_id},
    )
    con.execute(
        f"""
        INSERT INTO questions
        SELECT $dataset, 'q' || idx, idx,
               substr(sha1($task || $sep || mode || $sep || CASE
                   -- only text with whitespace other than single inner spaces needs collapsing
                   WHEN regexp_matches(question, '[^!-~ ]|  |^ | $') THEN trim(regexp_replace(question, $space, ' ', 'g'))
                   ELSE question END), 1, $key_length),
               $task, question, gold, mode,
               {_coordinate_sql("x_labels", "X")}, {_coordinate_sql("y_labels", "Y")},
               x_labels, y_labels, options, clue_ids, clue_rounds,
               CASE WHEN len(session_ids) > 0 THEN session_ids
                    ELSE list_filter(clue_sessions, lambda s, i: list_position(clue_sessions, s) = i) END,
               question_images, NULL
        FROM memeye_qas
        ORDER BY idx
        """,
        {
            "dataset": source.dataset_id,
            "task": source.task,
            "sep": KEY_SEPARATOR,
            "space": WHITESPACE_PATTERN,
            "key_length": KEY_LENGTH,
        },
    )
    _report_questions(con, source, notices)
    count = one_row(con, "SELECT count(*) FROM memeye_qas")[0]
    for table in ("memeye_dialog", "memeye_qas"):
        con.execute(f"DROP TABLE IF EXISTS {table}")
    return int(count)


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


def _decode_sessions(
    con: duckdb.DuckDBPyConnection, source: DatasetSource, notices: list[Notice]
) -> Any:
    """The session list as Python values; a round Python cannot hold is skipped and named.

    DuckDB reads any nesting depth; Python does not. When the whole list does not decode,
    each session and then each round is decoded alone, so one hostile round costs only
    itself.
    """
    whole = one_row(con, "SELECT multi_session_dialogues::VARCHAR FROM memeye_dialog")[0]
    decoded, value = _loads(whole)
    if decoded:
        return value
    sessions: list[Any] = []
    skipped: list[str] = []
    session_texts = rows(
        con,
        "SELECT unnest(json_extract(multi_session_dialogues, '$[*]'))::VARCHAR FROM memeye_dialog",
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
            if key == "dialogues":
                continue
            ok, field = _loads(field_text)
            if ok:
                session[key] = field
        session_name = str(session.get("session_id") or f"S{order}")
        dialogues: list[Any] = []
        round_texts = rows(
            con, "SELECT unnest(json_extract(?::JSON, '$.dialogues[*]'))::VARCHAR", [text]
        )
        for position, (round_text,) in enumerate(round_texts, start=1):
            ok, turn = _loads(round_text)
            if ok:
                dialogues.append(turn)
                continue
            round_name = one_row(
                con, "SELECT json_extract_string(?::JSON, '$.round')", [round_text]
            )[0]
            skipped.append(f"round {round_name or position} of session {session_name}")
            dialogues.append(None)  # keeps the positions of the rounds after it
        session["dialogues"] = dialogues
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


def _report_questions(
    con: duckdb.DuckDBPyConnection, source: DatasetSource, notices: list[Notice]
) -> None:
    unknown_count = one_row(
        con, "SELECT coalesce(sum(len(clue_ids) - len(clue_rounds)), 0) FROM memeye_qas"
    )[0]
    if unknown_count:
        examples: list[str] = []
        first_rows = rows(
            con,
            "SELECT idx, clue_ids, clue_rounds FROM memeye_qas WHERE len(clue_ids) > len(clue_rounds) ORDER BY idx LIMIT ?",
            [MAX_EXAMPLES],
        )
        for idx, clue_ids, clue_rounds in first_rows:
            examples += [f"q{idx}:{clue}" for clue in clue_ids if clue not in clue_rounds]
        notices.append(
            Notice(
                f"{int(unknown_count)} clue id(s) name no round in the dataset; they are ignored by the retrieval metrics",
                source.source_path,
                tuple(examples[:MAX_EXAMPLES]),
            )
        )
    oversized = rows(con, "SELECT 'q' || idx FROM memeye_qas WHERE oversized ORDER BY idx")
    if oversized:
        notices.append(
            oversized_label_notice(
                len(oversized), source.source_path, [row[0] for row in oversized]
            )
        )
    bad = rows(con, "SELECT 'q' || idx FROM memeye_qas WHERE NOT point_ok ORDER BY idx")
    if bad:
        notices.append(
            Notice(
                f"{len(bad)} question(s) have no usable 'point' (X/Y labels); they appear outside the matrix",
                source.source_path,
                tuple(row[0] for row in bad[:MAX_EXAMPLES]),
            )
        )
