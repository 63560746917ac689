"""Bulk-loads a dataset file declared as a :class:`~memscope.record_formats.DatasetFormat`.

The file is staged once with DuckDB's JSON reader. The session list is small and needs the
file system (images are resolved by the benchmark's ``build_rounds``); the question list can
hold tens of thousands of entries, so each question's columns are derived in SQL as the
format declares them: qid from the list position, mode "mcq" when the options are a
non-empty object or list, the highest label of each axis as the coordinate, evidence ids
kept as written and resolved against the dataset's rounds, source sessions from the
declared evidence sessions (else the evidence rounds' sessions, in evidence order).
tests/unit/test_identity.py holds this SQL equal to the same rules written out in Python.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from memscope.errors import DatasetError, StoreError
from memscope.identity import KEY_LENGTH, KEY_SEPARATOR, WHITESPACE_PATTERN
from memscope.record_formats import DatasetFormat
from memscope.records import DatasetSource, Notice, RoundRecord, SessionRecord
from memscope.store.literal_files import literal_file
from memscope.store.loaders.json_sessions import decode_sessions
from memscope.store.loaders.lines_sql import sql_text
from memscope.store.sql import one, one_row, rows

if TYPE_CHECKING:
    import duckdb

MAX_EXAMPLES = 3
_STAGED = ("dataset_file", "dataset_questions")


def dataset_format(source: DatasetSource) -> DatasetFormat:
    """The source's declared format, checked: names the SQL below can quote safely.

    Raises:
        StoreError: a loader name (the store has none of its own) or an unusable name.
    """
    fmt = source.loader
    if not isinstance(fmt, DatasetFormat):
        raise StoreError(f"no dataset loader for {fmt!r}", where=source.source_path)
    for name in (fmt.sessions, *fmt.questions, *_question_fields(fmt)):
        if not name or any(char in name for char in "\"'\\") or not name.isprintable():
            raise StoreError(
                f"the format of {fmt.file_name} is not usable: {name!r} is not a usable name",
                where=source.source_path,
            )
    if not all(axis.isalpha() and len(axis) == 1 for axis in fmt.axes):
        raise StoreError(f"the format of {fmt.file_name} is not usable: axes {fmt.axes!r}")
    return fmt


def _question_fields(fmt: DatasetFormat) -> list[str]:
    """The members of a question entry the store reads, each once."""
    named = (fmt.question, fmt.gold, fmt.labels, fmt.evidence, fmt.evidence_sessions)
    return list(dict.fromkeys(name for name in (*named, fmt.options, *fmt.images) if name))


def _q(name: str) -> str:
    return f'"{name}"'


def _strings_sql(column: str | None) -> str:
    """SQL for ``strings()`` of a member: a string or a list of them, stripped, non-empty."""
    if column is None:
        return "[]::VARCHAR[]"
    column = f"f.{_q(column)}"
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


def stage_dataset(con: duckdb.DuckDBPyConnection, source: DatasetSource) -> None:
    """Stage the dataset file as one row; raise DatasetError when it is not of its format.

    Call it outside a transaction: the typed read may fail (and is then retried untyped),
    and a failed statement would abort the caller's transaction.
    """
    import duckdb

    fmt = dataset_format(source)
    fields = _question_fields(fmt)
    # The question list is parsed straight into structs of the members memscope reads.
    # DuckDB refuses a list holding a non-object entry under that type; such files are
    # staged as raw JSON and converted entry by entry (a non-object becomes NULL: a
    # question without labels).
    entry_type = "STRUCT(" + ", ".join(f"{_q(name)} JSON" for name in fields) + ")[]"
    entry_shape = json.dumps({name: "JSON" for name in fields})
    failure: str | None = None

    def read(list_type: str) -> str:
        columns = (
            f"{{{sql_text(fmt.sessions)}: 'JSON', "
            + ", ".join(f"{sql_text(name)}: {sql_text(list_type)}" for name in fmt.questions)
            + "}"
        )
        return (
            "SELECT * FROM read_json(?, format = 'unstructured', records = 'true', "
            f"columns = {columns}, maximum_object_size = 2147483647)"
        )

    with literal_file(source.source_path, error=DatasetError, what=fmt.file_name) as reader:
        try:
            try:
                con.execute(
                    f"CREATE OR REPLACE TEMP TABLE dataset_file AS SELECT {_q(fmt.sessions)} AS "
                    f"dataset_sessions, {', '.join(map(_q, fmt.questions))} FROM ({read(entry_type)})",
                    [reader.name],
                )
            except duckdb.InvalidInputException as exc:
                if "transform error" not in str(exc):
                    raise
                converted = ", ".join(
                    f"list_transform({_q(name)}, lambda q: json_transform(q, {sql_text(entry_shape)})) AS {_q(name)}"
                    for name in fmt.questions
                )
                con.execute(
                    f"CREATE OR REPLACE TEMP TABLE dataset_file AS SELECT {_q(fmt.sessions)} AS dataset_sessions, "
                    f"{converted} "
                    f"FROM ({read('JSON[]')})",
                    [reader.name],
                )
        except duckdb.Error as exc:
            failure = reader.explain(str(exc).splitlines()[0])
    if failure is not None:
        raise DatasetError(
            f"{fmt.file_name} is not valid JSON: {failure}",
            where=source.source_path,
            fix="Fix or restore the file, or pass the right one with --dataset PATH.",
        ) from None
    staged = one(
        con,
        "SELECT count(*), count(*) FILTER (WHERE dataset_sessions IS NOT NULL) FROM dataset_file",
    )
    if not staged or staged[0] != 1 or staged[1] != 1:
        raise DatasetError(
            f"{fmt.file_name} has no '{fmt.sessions}' list",
            where=source.source_path,
            fix=fmt.fix,
        )


def load_dataset(
    con: duckdb.DuckDBPyConnection,
    source: DatasetSource,
    insert_rounds: Callable[[list[SessionRecord], list[RoundRecord]], None],
    notices: list[Notice],
) -> int:
    """Insert the sessions, rounds and questions of a file staged by ``stage_dataset``.

    Returns:
        The number of questions.

    Raises:
        DatasetError: when the file has no question list.
    """
    fmt = dataset_format(source)
    raw_sessions = decode_sessions(con, dataset_format(source), source, notices)
    sessions, rounds, round_notices = source.build_rounds(raw_sessions)
    notices += round_notices
    insert_rounds(sessions, rounds)
    question_list = "coalesce(" + ", ".join(map(_q, fmt.questions)) + ")"
    if one_row(con, f"SELECT {question_list} IS NULL FROM dataset_file")[0]:
        raise DatasetError(
            f"{fmt.file_name} has no {fmt.question_list} ('{fmt.questions[0]}')",
            where=source.source_path,
            fix=fmt.fix,
        )
    con.execute(_questions_sql(fmt, question_list), {"dataset": source.dataset_id})
    x_axis, y_axis = fmt.axes
    con.execute(
        f"""
        INSERT INTO questions
        SELECT $dataset, $prefix || idx, idx,
               substr(sha1($task || $sep || mode || $sep || CASE
                   -- only text with whitespace other than single inner spaces needs collapsing
                   WHEN regexp_matches(question, '[^!-~ ]|  |^ | $') THEN trim(regexp_replace(question, $space, ' ', 'g'))
                   ELSE question END), 1, $key_length),
               $task, question, gold, mode,
               {_coordinate_sql("x_labels", x_axis)}, {_coordinate_sql("y_labels", y_axis)},
               x_labels, y_labels, options, clue_ids, clue_rounds,
               CASE WHEN len(session_ids) > 0 THEN session_ids
                    ELSE list_filter(clue_sessions, lambda s, i: list_position(clue_sessions, s) = i) END,
               question_images, NULL
        FROM dataset_questions
        ORDER BY idx
        """,
        {
            "dataset": source.dataset_id,
            "prefix": fmt.qid_prefix,
            "task": source.task,
            "sep": KEY_SEPARATOR,
            "space": WHITESPACE_PATTERN,
            "key_length": KEY_LENGTH,
        },
    )
    _report_questions(con, fmt, source, notices)
    count = one_row(con, "SELECT count(*) FROM dataset_questions")[0]
    con.execute("; ".join(f"DROP TABLE IF EXISTS {table}" for table in _STAGED))
    return int(count)


def _questions_sql(fmt: DatasetFormat, question_list: str) -> str:
    """The statement staging every question's columns as ``dataset_questions``."""

    def member(name: str | None) -> str:
        return f"f.{_q(name)}" if name else "NULL::JSON"

    labels, options = member(fmt.labels), member(fmt.options)
    images = [_strings_sql(name) for name in fmt.images] or ["[]::VARCHAR[]"]
    digits = int(fmt.max_level_digits)
    x_axis, y_axis = fmt.axes
    point_ok = (
        "is_object AND (labels IS NOT NULL) AND (json_array_length(point) = 0 OR len(labels) > 0)"
        if fmt.labels
        else "is_object"
    )
    return f"""
        CREATE OR REPLACE TEMP TABLE dataset_questions AS
        WITH parsed AS (
            SELECT unnest(l) AS f, generate_subscripts(l, 1) AS idx
            FROM (SELECT {question_list} AS l FROM dataset_file)
        ),
        fields AS (
            SELECT idx, f IS NOT NULL AS is_object,
                   coalesce({member(fmt.question)} ->> '$', '') AS question,
                   {member(fmt.gold)} ->> '$' AS gold,
                   {labels} AS point,
                   CASE WHEN json_type({options}) = 'ARRAY' AND json_array_length({options}) > 0 THEN {options}
                        WHEN json_type({options}) = 'OBJECT' AND len(json_keys({options})) > 0 THEN {options}
                   END AS options,
                   {_strings_sql(fmt.evidence)} AS clue_ids,
                   {_strings_sql(fmt.evidence_sessions)} AS session_ids,
                   list_concat({", ".join(images)}) AS question_images,
                   CASE WHEN json_type({labels}) = 'ARRAY'
                        THEN list_transform(json_extract_string({labels}, '$[*][*]'), lambda l: trim(l)) END AS labels
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
               list_filter(coalesce(labels, []), lambda l: regexp_full_match(l, '{x_axis}[0-9]{{1,{digits}}}')) AS x_labels,
               list_filter(coalesce(labels, []), lambda l: regexp_full_match(l, '{y_axis}[0-9]{{1,{digits}}}')) AS y_labels,
               len(list_filter(coalesce(labels, []), lambda l: regexp_full_match(l, '[{x_axis}{y_axis}][0-9]{{{digits + 1},}}'))) > 0 AS oversized,
               {point_ok} AS point_ok
        FROM fields LEFT JOIN resolved USING (idx)
        """


def _report_questions(
    con: duckdb.DuckDBPyConnection,
    fmt: DatasetFormat,
    source: DatasetSource,
    notices: list[Notice],
) -> None:
    unknown_count = one_row(
        con, "SELECT coalesce(sum(len(clue_ids) - len(clue_rounds)), 0) FROM dataset_questions"
    )[0]
    if unknown_count:
        examples: list[str] = []
        first_rows = rows(
            con,
            "SELECT idx, clue_ids, clue_rounds FROM dataset_questions "
            "WHERE len(clue_ids) > len(clue_rounds) ORDER BY idx LIMIT ?",
            [MAX_EXAMPLES],
        )
        for idx, clue_ids, clue_rounds in first_rows:
            examples += [
                f"{fmt.qid_prefix}{idx}:{clue}" for clue in clue_ids if clue not in clue_rounds
            ]
        notices.append(
            Notice(
                f"{int(unknown_count)} {fmt.evidence_name}(s) name no round in the dataset; "
                "they are ignored by the retrieval metrics",
                source.source_path,
                tuple(examples[:MAX_EXAMPLES]),
            )
        )
    axes = "/".join(fmt.axes)
    oversized = rows(
        con, "SELECT ? || idx FROM dataset_questions WHERE oversized ORDER BY idx", [fmt.qid_prefix]
    )
    if oversized:
        notices.append(
            Notice(
                f"{len(oversized)} question(s) have an {axes} label with more than "
                f"{fmt.max_level_digits} digits; the label is ignored",
                source.source_path,
                tuple(row[0] for row in oversized[:MAX_EXAMPLES]),
            )
        )
    bad = rows(
        con,
        "SELECT ? || idx FROM dataset_questions WHERE NOT point_ok ORDER BY idx",
        [fmt.qid_prefix],
    )
    if bad:
        notices.append(
            Notice(
                f"{len(bad)} question(s) have no usable '{fmt.labels or 'labels'}' ({axes} labels); "
                "they appear outside the matrix",
                source.source_path,
                tuple(row[0] for row in bad[:MAX_EXAMPLES]),
            )
        )
