"""Bulk import of label exports in SQL: read each file, check and normalise every row at
once, and insert the new events with ``INSERT … SELECT``, in the caller's transaction.

A file is read by DuckDB (``store.label_files``) in one pass; each value gets a kind (text,
number, list, object, …: a csv cell is text, a parquet column has its type, a jsonl value
is JSON), so one set of checks serves every format. ``import_rows`` then holds one
normalised row per event with the first ``problem`` of its row, or NULL. Nothing here
loops over rows in Python; only the stable ids of rows that carry none are computed by
the caller (they are a hash the export defines in Python).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscope.errors import InputError, StoreError
from memscope.store.label_files import label_file_source
from memscope.store.sql import one_row, rows, scalar
from memscope.textsafe import FORMULA_STARTS

if TYPE_CHECKING:
    import duckdb

ACTIONS = ("set", "clear", "undo")
SOURCES = ("human", "rule", "import")
SHOWN = 40
"""Characters of a bad value quoted in its row's problem."""

IMPORT_ROWS = """
CREATE OR REPLACE TEMP TABLE import_rows (
    file_no INTEGER, row_no BIGINT, run_id VARCHAR, run_hash VARCHAR, qid VARCHAR,
    question_key VARCHAR, action VARCHAR, codes VARCHAR[], primary_code VARCHAR,
    note VARCHAR, annotator VARCHAR, source VARCHAR, taxonomy_version VARCHAR, params JSON,
    created_at TIMESTAMP, original_event_id BIGINT, event_uid VARCHAR, problem VARCHAR,
    local_run VARCHAR, outcome VARCHAR, seq BIGINT
)
"""


@dataclass(frozen=True)
class StagedFile:
    """A label file about to be read: its columns and how to read it."""

    path: Path
    columns: tuple[str, ...]
    kind: str
    """``jsonl``, ``csv`` or ``parquet``."""
    empty: bool
    """The file holds nothing (no row to import, no columns to check)."""
    types: dict[str, str]
    """Each column's DuckDB type."""
    reader: str
    """The DuckDB table function reading it, and its parameters."""
    params: list[Any]


def start(con: duckdb.DuckDBPyConnection) -> None:
    """Create the (empty) temp tables every file's rows (and verdicts) are normalised into."""
    con.execute(IMPORT_ROWS)
    con.execute(VERDICT_ROWS)


def _unreadable(exc: Exception, path: Path) -> InputError:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return InputError(
        f"cannot read the label file: {first}",
        where=str(path),
        fix="Pass a file written by `memscope export-labels`.",
    )


def stage(con: duckdb.DuckDBPyConnection, path: Path) -> StagedFile:
    """Look at one label file: its columns and their types (DuckDB reads a sample).

    Raises:
        InputError: an unknown extension, or a file DuckDB cannot read.
    """
    import duckdb

    kind, reader, params = label_file_source(path)
    if path.stat().st_size == 0:
        return StagedFile(path, (), kind, True, {}, reader, params)
    try:
        described = [
            (str(row[0]), str(row[1]))
            for row in rows(con, f"DESCRIBE SELECT * FROM {reader}", params)
        ]
    except duckdb.Error as exc:
        raise _unreadable(exc, path) from None
    columns = tuple(name for name, _ in described)
    if kind == "jsonl":  # read again with only the fields memscope uses, declared as JSON
        used = tuple(name for name in (*_FIELDS, *_VERDICT_FIELDS) if name in columns)
        kind, reader, params = label_file_source(path, used)
        described = [(name, "JSON") for name in used]
    return StagedFile(path, columns, kind, False, dict(described), reader, params)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


_FIELDS = (
    "run_id",
    "run_hash",
    "qid",
    "question_key",
    "action",
    "codes",
    "primary_code",
    "note",
    "annotator",
    "source",
    "taxonomy_version",
    "params",
    "accepted_from",
    "accepted_suggestion",
    "created_at",
    "labelled_at",
    "event_id",
    "event_uid",
    "verdict",
    "event_kind",
)
_VERDICT_FIELDS = ("verdict_note", "verdict_at")
"""Read only for the verdicts (``stage_verdicts``); ``verdict`` itself is in ``_FIELDS``."""
_JSON_FIELDS = ("codes", "params", "accepted_suggestion")
"""Fields read as JSON values (a list or an object, or their JSON text)."""
_TIME_FIELDS = ("created_at", "labelled_at")
_ABSENT = {
    "kind": "'NULL'",
    "text": "NULL::VARCHAR",
    "raw": "NULL::VARCHAR",
    "json": "NULL::JSON",
    "instant": "NULL::TIMESTAMPTZ",
}


def _kind_of(sql_type: str) -> str:
    """What a value of a typed (parquet) column is: a kind as JSON names them."""
    if sql_type.startswith("TIMESTAMP") or sql_type == "DATE":
        return "TIMESTAMP"
    if sql_type.endswith("[]"):
        return "ARRAY"
    if sql_type.startswith(("STRUCT", "MAP")):
        return "OBJECT"
    if sql_type == "BOOLEAN":
        return "BOOLEAN"
    if (
        sql_type.endswith("INT")
        or sql_type in ("FLOAT", "DOUBLE")
        or sql_type.startswith("DECIMAL")
    ):
        return "NUMBER"
    return sql_type


def _json_kind(raw: str) -> str:
    """The kind of a JSON value from its first character: the reader writes every value
    minified, and a character is far cheaper than ``json_type`` (a parse) on every field."""
    return (
        f"CASE WHEN {raw} IS NULL THEN 'NULL' ELSE CASE left({raw}, 1) WHEN '\"' THEN 'VARCHAR' "
        "WHEN '[' THEN 'ARRAY' WHEN '{' THEN 'OBJECT' WHEN 't' THEN 'BOOLEAN' "
        "WHEN 'f' THEN 'BOOLEAN' WHEN 'n' THEN 'NULL' ELSE 'NUMBER' END END"
    )


def _accessors(staged: StagedFile, name: str) -> dict[str, str]:
    """SQL over the file's rows for one field: its ``kind`` (VARCHAR, NUMBER, ARRAY, OBJECT,
    BOOLEAN, TIMESTAMP or NULL, also when absent), its ``text`` (the string, when it is
    one), its ``raw`` value (cast to text only for a message), its ``json`` value and its
    ``instant`` (TIMESTAMPTZ, for a time)."""
    if name not in staged.columns:
        return _ABSENT
    column = _quoted(name)
    sql_type = staged.types[name]
    if sql_type == "JSON":
        raw = f"({column}::VARCHAR)"
        # A string without escapes is its text between the quotes; only one with a
        # backslash needs the JSON parser to unescape it.
        text = (
            f"CASE WHEN left({raw}, 1) = '\"' THEN CASE WHEN contains({raw}, '\\') "
            f"THEN {column} ->> '$' ELSE substr({raw}, 2, length({raw}) - 2) END END"
        )
        return {
            "kind": _json_kind(raw),
            "text": text,
            "raw": column,
            "json": column,
            "instant": f"TRY_CAST({text} AS TIMESTAMPTZ)",
        }
    if sql_type == "VARCHAR":
        if staged.kind == "csv":  # export-labels defused formula-like cells with a leading '
            starts = ", ".join(_literal(start) for start in FORMULA_STARTS)
            column = (
                f"CASE WHEN left({column}, 1) = {_literal(chr(39))} "
                f"AND substr({column}, 2, 1) IN ({starts}) "
                f"THEN substr({column}, 2) ELSE {column} END"
            )
        return {
            "kind": f"CASE WHEN {column} IS NULL THEN 'NULL' ELSE 'VARCHAR' END",
            "text": column,
            "raw": column,
            "json": f"to_json({column})",
            "instant": f"TRY_CAST({column} AS TIMESTAMPTZ)",
        }
    kind = _kind_of(sql_type)
    return {
        "kind": f"CASE WHEN {column} IS NULL THEN 'NULL' ELSE {_literal(kind)} END",
        "text": "NULL::VARCHAR",
        "raw": column,
        "json": f"to_json({column})",
        # A parquet timestamp without a zone is UTC, as memscope wrote them before.
        "instant": f"{column}::TIMESTAMPTZ" if kind == "TIMESTAMP" else "NULL::TIMESTAMPTZ",
    }


def normalise(
    con: duckdb.DuckDBPyConnection, staged: StagedFile, file_no: int, *, history: bool
) -> None:
    """Append the staged file's rows to ``import_rows``, each with its first problem.

    ``history``: the file has one row per event (``action``, ``created_at``); otherwise one
    per current label (a ``set`` at ``labelled_at``). A row without an annotator (a
    suggestion-only row of ``--include-suggestions``) is left out.

    One statement in three passes: the inner one reads each field once (its kind, text,
    JSON value, instant), the middle one takes each text and the codes list once, and the
    outer ones check and normalise from those.
    """
    time_field = "created_at" if history else "labelled_at"
    inner = ["ordinality::BIGINT AS row_no"]
    for name in _FIELDS:
        if name in _TIME_FIELDS and name != time_field:
            continue
        field = "time" if name == time_field else name
        access = _accessors(staged, name)
        inner += [
            f"{access['kind']} AS {field}_k",
            f"{access['text']} AS {field}_t",
            f"{access['raw']} AS {field}_r",
        ]
        if name in _JSON_FIELDS:
            inner.append(f"{access['json']} AS {field}_j")
        if field == "time":
            inner.append(f"{access['instant']} AS time_i")
    late_problem = (
        "CASE WHEN action = 'set' AND len(codes) = 0 THEN 'a label needs at least one code' "
        "WHEN action = 'set' AND primary_given IS NOT NULL AND NOT list_contains(codes, primary_given) "
        f"THEN 'the primary code ' || left(primary_given, {SHOWN}) || ' is not among the codes' "
        "WHEN created_at IS NULL THEN 'unreadable time ' || "
        f"coalesce('\"' || left(time_t, {SHOWN}) || '\"', left(time_r::VARCHAR, {SHOWN}), 'null') "
        "|| ' (ISO 8601 expected, e.g. 2026-05-01T09:30:00Z)' "
        "WHEN NOT year(created_at) BETWEEN 1 AND 9999 "
        f"THEN 'time out of range: ' || left(coalesce(time_t, time_r::VARCHAR), {SHOWN}) END"
    )
    import duckdb

    if staged.empty:
        return
    # Rows are numbered across files (``seq``): a new event's id is the import's first id
    # plus that number, so no sort is needed to hand ids out.
    offset = int(scalar(con, "SELECT coalesce(max(seq), 0) FROM import_rows") or 0)
    try:
        con.execute(
            "INSERT INTO import_rows SELECT ?, row_no, run_id, run_hash, qid, question_key, "
            "action, codes, primary_code, note, annotator, source, taxonomy_version, params, "
            "created_at, original_event_id, event_uid, "
            f"coalesce(problem, {late_problem}), NULL, NULL, ? + row_no FROM ("
            f"SELECT *, {_outer_columns(history)} FROM (SELECT *, {_middle_columns()} FROM "
            f"(SELECT {', '.join(inner)} FROM {staged.reader} WITH ORDINALITY)) "
            # A row without an annotator is a suggestion nobody labelled (--include-suggestions);
            # one with a verdict and no codes is a verdict alone (import_verdicts reads it).
            "WHERE annotator_k <> 'NULL' AND coalesce(annotator_t, 'x') <> '' "
            f"AND NOT ({_VERDICT_ONLY}) "
            # A verdict event of a --history export is a verdict's, not a label's.
            "AND coalesce(event_kind_s, 'label') <> 'verdict')",
            [file_no, offset, *staged.params],
        )
    except duckdb.Error as exc:
        raise _unreadable(exc, staged.path) from None


_VERDICT_ONLY = (
    "verdict_s IS NOT NULL AND (codes_k = 'NULL' OR (codes_k = 'VARCHAR' AND trim(codes_t) IN "
    "('', '[]')) OR (codes_k = 'ARRAY' AND codes_r::VARCHAR = '[]'))"
)
"""A row that carries a verdict and no failure codes: no label event."""
VERDICTS = ("correct", "wrong", "unsure")

VERDICT_ROWS = """
CREATE OR REPLACE TEMP TABLE verdict_import_rows (
    file_no INTEGER, row_no BIGINT, run_id VARCHAR, run_hash VARCHAR, qid VARCHAR,
    question_key VARCHAR, verdict VARCHAR, note VARCHAR, annotator VARCHAR, given_at TIMESTAMP,
    action VARCHAR
)
"""


def stage_verdicts(con: duckdb.DuckDBPyConnection, staged: StagedFile, file_no: int) -> None:
    """Append the file's rows that carry a verdict to ``verdict_import_rows`` (none when the
    file has no ``verdict`` column, as files of memscope before verdicts): a current-label
    export's verdicts as ``set`` events at ``verdict_at``; a ``--history`` export's verdict
    events (``event_kind`` verdict) with their own action (set, clear, undo) and time."""
    if staged.empty or "verdict" not in staged.columns:
        return
    if "event_kind" in staged.columns:
        _stage_verdict_events(con, staged, file_no)
        return
    parts = {
        name: _accessors(staged, name)
        for name in (
            "run_id",
            "run_hash",
            "qid",
            "question_key",
            "verdict",
            "verdict_note",
            "annotator",
            "verdict_at",
        )
    }
    verdict = f"lower(trim({parts['verdict']['text']}))"
    con.execute(
        "INSERT INTO verdict_import_rows SELECT ?, ordinality::BIGINT, "
        f"{parts['run_id']['text']}, {parts['run_hash']['text']}, {parts['qid']['text']}, "
        f"{parts['question_key']['text']}, {verdict}, "
        f"nullif({parts['verdict_note']['text']}, ''), {parts['annotator']['text']}, "
        f"make_timestamp(epoch_us({parts['verdict_at']['instant']})), 'set' "
        f"FROM {staged.reader} WITH ORDINALITY WHERE coalesce({verdict}, '') <> ''",
        [file_no, *staged.params],
    )


def _stage_verdict_events(con: duckdb.DuckDBPyConnection, staged: StagedFile, file_no: int) -> None:
    """A ``--history`` export's verdict events: every row whose ``event_kind`` is verdict."""
    parts = {
        name: _accessors(staged, name)
        for name in (
            "run_id",
            "run_hash",
            "qid",
            "question_key",
            "verdict",
            "verdict_note",
            "annotator",
            "created_at",
            "action",
            "event_kind",
        )
    }
    verdict = f"nullif(lower(trim({parts['verdict']['text']})), '')"
    con.execute(
        "INSERT INTO verdict_import_rows SELECT ?, ordinality::BIGINT, "
        f"{parts['run_id']['text']}, {parts['run_hash']['text']}, {parts['qid']['text']}, "
        f"{parts['question_key']['text']}, {verdict}, "
        f"nullif({parts['verdict_note']['text']}, ''), {parts['annotator']['text']}, "
        f"make_timestamp(epoch_us({parts['created_at']['instant']})), "
        f"lower(trim({parts['action']['text']})) "
        f"FROM {staged.reader} WITH ORDINALITY WHERE {parts['event_kind']['text']} = 'verdict'",
        [file_no, *staged.params],
    )


_VERDICT_PROBLEM = (
    "CASE WHEN coalesce(action, '') NOT IN ('set', 'clear', 'undo') "
    f"THEN 'unknown verdict action ' || coalesce(left(action, {SHOWN}), 'null') "
    "|| ' (known: set, clear, undo)' "
    "WHEN action = 'set' AND verdict IS NULL THEN 'a verdict set needs its verdict' "
    "WHEN verdict NOT IN ('correct', 'wrong', 'unsure') "
    f"THEN 'unknown verdict ' || left(verdict, {SHOWN}) || ' (known: correct, wrong, unsure)' "
    "WHEN coalesce(run_id, '') = '' OR coalesce(qid, '') = '' OR coalesce(annotator, '') = '' "
    "THEN 'a verdict needs run_id, qid and annotator' "
    "WHEN given_at IS NULL THEN 'a verdict needs its time (verdict_at, or created_at in a "
    "--history export; ISO 8601)' END"
)


def bad_verdicts(con: duckdb.DuckDBPyConnection, limit: int) -> list[tuple[int, int, str]]:
    """(file, row, problem) of the first ``limit`` verdict rows that cannot be imported."""
    return [
        (int(row[0]), int(row[1]), str(row[2]))
        for row in rows(
            con,
            f"SELECT file_no, row_no, problem FROM (SELECT *, {_VERDICT_PROBLEM} AS problem "
            "FROM verdict_import_rows) WHERE problem IS NOT NULL ORDER BY file_no, row_no LIMIT ?",
            [limit],
        )
    ]


def insert_verdicts(
    con: duckdb.DuckDBPyConnection, local_runs: dict[tuple[int, str], str]
) -> tuple[int, int]:
    """Insert the staged verdict events (``set``, and a history's ``clear`` and ``undo``) of
    the local runs in time order (keeping annotator, note and time: replaying them gives the
    same current verdicts), skipping one already present (same run, question, annotator,
    action, verdict and time) and one on a question the local run lacks. Returns (inserted,
    present)."""
    con.execute(
        "CREATE OR REPLACE TEMP TABLE verdict_local_runs (file_no INTEGER, run_id VARCHAR, local VARCHAR)"
    )
    if local_runs:
        con.executemany(
            "INSERT INTO verdict_local_runs VALUES (?, ?, ?)",
            [[file_no, run_id, local] for (file_no, run_id), local in local_runs.items()],
        )
    staged = (
        "SELECT DISTINCT coalesce(l.local, v.run_id) AS local, v.* FROM verdict_import_rows v "
        "LEFT JOIN verdict_local_runs l ON l.file_no = v.file_no AND l.run_id = v.run_id"
    )
    known = "EXISTS (SELECT 1 FROM predictions p WHERE p.run_id = s.local AND p.qid = s.qid)"
    present_clause = (
        "EXISTS (SELECT 1 FROM verdict_events e WHERE e.run_id = s.local AND e.qid = s.qid "
        "AND e.annotator = s.annotator AND e.action = s.action "
        "AND e.verdict IS NOT DISTINCT FROM s.verdict "
        "AND e.created_at = s.given_at)"
    )
    present = int(
        scalar(con, f"SELECT count(*) FROM ({staged}) s WHERE {known} AND {present_clause}") or 0
    )
    inserted = int(
        scalar(con, f"SELECT count(*) FROM ({staged}) s WHERE {known} AND NOT {present_clause}")
        or 0
    )
    con.execute(
        # The hash the verdict was made on is kept (another version's, with
        # --allow-changed-run), as a label's is; a row without one gets the local run's.
        "INSERT INTO verdict_events SELECT nextval('verdict_event_ids'), s.local, "
        "coalesce(s.run_hash, (SELECT content_hash FROM runs WHERE run_id = s.local)), s.qid, "
        "s.question_key, s.action, "
        "s.verdict, s.note, s.annotator, 'human', s.given_at, NULL "
        f"FROM ({staged}) s WHERE {known} AND NOT {present_clause} "
        "ORDER BY s.given_at, s.file_no, s.row_no"
    )
    return inserted, present


def verdict_run_groups(con: duckdb.DuckDBPyConnection) -> list[tuple[int, str, list[str]]]:
    """Per file and run id its verdict rows name: the run hashes they carry (as :func:`run_groups`)."""
    return [
        (int(file_no), str(run_id), sorted(hashes or []))
        for file_no, run_id, hashes in rows(
            con,
            "SELECT file_no, run_id, list(DISTINCT run_hash) FILTER (WHERE run_hash IS NOT NULL) "
            "FROM verdict_import_rows GROUP BY file_no, run_id ORDER BY file_no, min(row_no)",
        )
    ]


_VERDICT_QUESTION = (
    "SELECT q.question_key FROM predictions p JOIN runs r USING (run_id) "
    "JOIN questions q ON q.dataset_id = r.dataset_id AND q.qid = p.qid "
    "WHERE p.run_id = ? AND p.qid = v.qid"
)


def changed_verdict_questions(
    con: duckdb.DuckDBPyConnection, file_no: int, run_id: str, local: str
) -> list[str]:
    """The qids of a file's verdict rows for ``run_id`` that the local run lacks or whose
    question text changed (as :func:`changed_questions` for labels)."""
    return [
        str(row[0])
        for row in rows(
            con,
            "SELECT DISTINCT v.qid FROM verdict_import_rows v WHERE v.file_no = ? AND v.run_id = ? "
            f"AND (NOT EXISTS ({_VERDICT_QUESTION}) OR (v.question_key IS NOT NULL AND "
            f"v.question_key IS DISTINCT FROM ({_VERDICT_QUESTION} LIMIT 1)))",
            [file_no, run_id, local, local],
        )
    ]


def missing_verdict_questions(
    con: duckdb.DuckDBPyConnection, local_runs: dict[tuple[int, str], str]
) -> list[str]:
    """``run:qid`` of every verdict row whose question its local run lacks (not imported,
    reported as a label's is), in file order."""
    found: list[str] = []
    for (file_no, run_id), local in local_runs.items():
        found += [
            f"{local}:{row[0]}"
            for row in rows(
                con,
                "SELECT qid FROM verdict_import_rows v WHERE file_no = ? AND run_id = ? AND NOT "
                "EXISTS (SELECT 1 FROM predictions p WHERE p.run_id = ? AND p.qid = v.qid) "
                "ORDER BY row_no",
                [file_no, run_id, local],
            )
        ]
    return found


_TEXT_FIELDS = tuple(
    name for name in _FIELDS if name not in _JSON_FIELDS and name not in _TIME_FIELDS
)


def _middle_columns() -> str:
    """Each text field's text (``<field>_s``) and the codes as a JSON list (``codes_l``),
    computed once per row for the checks and columns that use them."""
    texts = [
        f"nullif(CASE WHEN {name}_k = 'VARCHAR' THEN {name}_t END, '') AS {name}_s"
        for name in _TEXT_FIELDS
    ]
    # The codes as a JSON list when they are one (a list, or text holding a JSON list).
    codes_list = (
        "CASE codes_k WHEN 'ARRAY' THEN codes_j "
        "WHEN 'VARCHAR' THEN CASE WHEN starts_with(ltrim(codes_t), '[') AND json_valid(codes_t) "
        "AND json_type(json(codes_t)) = 'ARRAY' THEN json(codes_t) END END AS codes_l"
    )
    return ", ".join([*texts, codes_list])


def _text(field: str) -> str:
    """A field's text, NULL when it is not a string or is empty (from the middle pass)."""
    return f"{field}_s"


def _codes_list() -> str:
    return "codes_l"


def _outer_columns(history: bool) -> str:
    """The normalised columns of ``import_rows`` from the inner pass's per-field values."""
    action = f"coalesce({_text('action')}, 'set')" if history else "'set'"
    codes_list = _codes_list()
    # Text that is not a JSON list is code names joined with ';' (how csv exports write them).
    codes = (
        f"CASE WHEN {action} <> 'set' THEN []::VARCHAR[] "
        f"WHEN ({codes_list}) IS NOT NULL THEN json_extract_string({codes_list}, '$[*]') "
        "WHEN codes_k = 'VARCHAR' THEN list_filter(string_split(codes_t, ';'), lambda c: c <> '') "
        "ELSE []::VARCHAR[] END"
    )
    params = (
        "CASE params_k WHEN 'NULL' THEN NULL WHEN 'OBJECT' THEN params_j "
        "WHEN 'VARCHAR' THEN CASE WHEN params_t = '' THEN NULL "
        "WHEN json_valid(params_t) AND json_type(json(params_t)) = 'OBJECT' THEN json(params_t) "
        "WHEN json_valid(params_t) THEN json_object('imported_params', json(params_t)) "
        "ELSE json_object('imported_params', params_t) END "
        "ELSE json_object('imported_params', params_j) END"
    )
    # The provenance of an accepted suggestion travels in its own columns (export-labels
    # splits it from the view's params): it goes back where the store keeps it.
    suggestion = (
        "CASE accepted_suggestion_k WHEN 'OBJECT' THEN accepted_suggestion_j "
        "WHEN 'VARCHAR' THEN CASE WHEN json_valid(accepted_suggestion_t) "
        "AND json_type(json(accepted_suggestion_t)) = 'OBJECT' THEN json(accepted_suggestion_t) "
        "END END"
    )
    accepted = _text("accepted_from")
    provenance = (
        f"CASE WHEN {accepted} IS NULL AND ({suggestion}) IS NULL THEN {params} "
        f"ELSE json_merge_patch(coalesce({params}, '{{}}'::JSON), json_object("
        f"'accepted_from', {accepted}, 'suggestion', {suggestion})) END"
    )
    original_event_id = (
        "CASE WHEN event_id_k = 'NUMBER' THEN TRY_CAST(event_id_r AS BIGINT) "
        "WHEN event_id_k = 'VARCHAR' THEN TRY_CAST(event_id_t AS BIGINT) END"
    )
    primary = f"CASE WHEN {action} = 'set' THEN coalesce({_text('primary_code')}, ({codes})[1]) END"
    return ", ".join(
        [
            f"{_text('run_id')} AS run_id",
            f"{_text('run_hash')} AS run_hash",
            f"{_text('qid')} AS qid",
            f"{_text('question_key')} AS question_key",
            f"{action} AS action",
            f"{codes} AS codes",
            f"{_text('primary_code')} AS primary_given",
            f"{primary} AS primary_code",
            f"{_text('note')} AS note",
            f"{_text('annotator')} AS annotator",
            f"coalesce({_text('source')}, 'import') AS source",
            f"coalesce({_text('taxonomy_version')}, 'unknown') AS taxonomy_version",
            f"{provenance} AS params",
            # epoch_us: the instant in UTC whatever offset the text had (none: UTC).
            "CASE WHEN isfinite(time_i) THEN make_timestamp(epoch_us(time_i)) END AS created_at",
            f"{original_event_id} AS original_event_id",
            f"{_text('event_uid')} AS event_uid",
            f"{_row_problem(history, codes_list)} AS problem",
        ]
    )


def _not_text(field: str) -> str:
    return (
        f"WHEN {field}_k NOT IN ('VARCHAR', 'NULL') "
        f"THEN 'field \"{field}\" must be text, got ' || lower({field}_k) "
        f"|| ' ' || left({field}_r::VARCHAR, {SHOWN})"
    )


def _row_problem(history: bool, codes_list: str) -> str:
    """A CASE naming the first problem of a row that its values show (NULL: none)."""
    cases = []
    for name in ("run_id", "qid", "annotator"):
        cases.append(_not_text(name))
        if name != "annotator":
            cases.append(f"WHEN {_text(name)} IS NULL THEN 'field \"{name}\" is empty'")
    for name in (
        "run_hash",
        "question_key",
        "primary_code",
        "note",
        "source",
        "taxonomy_version",
        "event_uid",
        "accepted_from",
    ):
        cases.append(_not_text(name))
    if history:
        cases.append(_not_text("action"))
        action = f"coalesce({_text('action')}, 'set')"
        cases.append(
            f"WHEN {action} NOT IN ({', '.join(map(_literal, ACTIONS))}) "
            f"THEN 'unknown action ' || left({action}, {SHOWN}) || ' (known: {', '.join(ACTIONS)})'"
        )
    source = f"coalesce({_text('source')}, 'import')"
    cases.append(
        f"WHEN {source} NOT IN ({', '.join(map(_literal, SOURCES))}) "
        f"THEN 'unknown source ' || left({source}, {SHOWN}) || ' (known: {', '.join(SOURCES)})'"
    )
    cases.append(
        "WHEN codes_k NOT IN ('ARRAY', 'VARCHAR', 'NULL') "
        'THEN \'field "codes" must be a list of code names (or names joined with ";"), got \' '
        f"|| lower(codes_k) || ' ' || left(codes_r::VARCHAR, {SHOWN})"
    )
    cases.append(
        f"WHEN ({codes_list}) IS NOT NULL AND (list_filter(json_type({codes_list}, '$[*]'), "
        "lambda t: t <> 'VARCHAR') <> [] "
        f"OR list_contains(json_extract_string({codes_list}, '$[*]'), '')) "
        f"THEN 'field \"codes\" must hold code names (text), got ' || left(codes_r::VARCHAR, {SHOWN})"
    )
    cases.append(
        "WHEN time_k NOT IN ('VARCHAR', 'TIMESTAMP', 'NULL') "
        f"THEN 'the time must be ISO 8601 text, got ' || lower(time_k) || ' ' || left(time_r::VARCHAR, {SHOWN})"
    )
    return f"CASE {' '.join(cases)} END"


def row_count(con: duckdb.DuckDBPyConnection) -> int:
    """Rows read so far (suggestion-only rows left out)."""
    return int(scalar(con, "SELECT count(*) FROM import_rows") or 0)


def bad_rows(con: duckdb.DuckDBPyConnection, limit: int) -> tuple[int, list[tuple[int, int, str]]]:
    """How many rows have a problem, and the first ``limit`` as (file_no, row_no, problem)."""
    count = int(scalar(con, "SELECT count(*) FROM import_rows WHERE problem IS NOT NULL") or 0)
    first = rows(
        con,
        "SELECT file_no, row_no, problem FROM import_rows WHERE problem IS NOT NULL "
        "ORDER BY file_no, row_no LIMIT ?",
        [limit],
    )
    return count, [(int(f), int(r), str(p)) for f, r, p in first]


def rows_without_uid(con: duckdb.DuckDBPyConnection) -> list[tuple[Any, ...]]:
    """(file_no, row_no, run_hash, qid, annotator, action, created_at, codes) of every row
    that carries no stable id (plain rows: few, and pyarrow stays unloaded)."""
    return rows(
        con,
        "SELECT file_no, row_no, run_hash, qid, annotator, action, created_at, codes "
        "FROM import_rows WHERE event_uid IS NULL",
    )


def set_uids(
    con: duckdb.DuckDBPyConnection, file_nos: list[int], row_nos: list[int], uids: list[str]
) -> None:
    """Fill in stable ids computed by the caller, by (file_no, row_no)."""
    # Lists as parameters, not a registered Arrow table: registering imports pandas (~1 s).
    con.execute(
        "UPDATE import_rows SET event_uid = u.event_uid FROM (SELECT unnest(?::INTEGER[]) AS file_no, "
        "unnest(?::BIGINT[]) AS row_no, unnest(?::VARCHAR[]) AS event_uid) u "
        "WHERE import_rows.file_no = u.file_no AND import_rows.row_no = u.row_no",
        [file_nos, row_nos, uids],
    )


def run_groups(con: duckdb.DuckDBPyConnection) -> list[tuple[int, str, list[str]]]:
    """Per file and run id named in it: the run hashes its rows carry, in file order."""
    return [
        (int(file_no), str(run_id), sorted(hashes or []))
        for file_no, run_id, hashes in rows(
            con,
            "SELECT file_no, run_id, list(DISTINCT run_hash) FILTER (WHERE run_hash IS NOT NULL) "
            "FROM import_rows GROUP BY file_no, run_id ORDER BY file_no, min(row_no)",
        )
    ]


def assign_run(con: duckdb.DuckDBPyConnection, file_no: int, run_id: str, local: str) -> None:
    """The rows of ``run_id`` in file ``file_no`` go to the store's run ``local``."""
    con.execute(
        "UPDATE import_rows SET local_run = ? WHERE file_no = ? AND run_id = ?",
        [local, file_no, run_id],
    )


def load_local_questions(con: duckdb.DuckDBPyConnection) -> None:
    """The questions of every run the rows go to (temp table ``import_questions``)."""
    con.execute(
        "CREATE OR REPLACE TEMP TABLE import_questions AS "
        "SELECT p.run_id, p.qid, q.question_key FROM predictions p JOIN runs r USING (run_id) "
        "JOIN questions q ON q.dataset_id = r.dataset_id AND q.qid = p.qid "
        "WHERE p.run_id IN (SELECT DISTINCT local_run FROM import_rows)"
    )


def changed_questions(con: duckdb.DuckDBPyConnection, file_no: int, run_id: str) -> list[str]:
    """The qids of a file's run whose question the store lacks or whose text changed."""
    return [
        str(row[0])
        for row in rows(
            con,
            "SELECT DISTINCT i.qid FROM import_rows i LEFT JOIN import_questions q "
            "ON q.run_id = i.local_run AND q.qid = i.qid "
            "WHERE i.file_no = ? AND i.run_id = ? AND (q.qid IS NULL OR "
            "(i.question_key IS NOT NULL AND q.question_key <> i.question_key))",
            [file_no, run_id],
        )
    ]


def local_events_to_hash(con: duckdb.DuckDBPyConnection) -> list[tuple[Any, ...]]:
    """(run_hash, qid, annotator, action, created_at, codes) of the target runs' events that
    were not imported (made here): the caller computes their stable ids; an imported event
    keeps the id it came with."""
    return rows(
        con,
        "SELECT run_hash, qid, annotator, action, created_at, codes FROM label_events e "
        "WHERE run_id IN (SELECT DISTINCT local_run FROM import_rows) "
        "AND NOT EXISTS (SELECT 1 FROM label_imports i WHERE i.event_id = e.event_id)",
    )


def classify(con: duckdb.DuckDBPyConnection, local_uids: list[str]) -> None:
    """Mark each row's ``outcome``: ``missing`` (the run lacks the question), ``present``
    (its stable id is in the store, or an earlier row of this import has it) or ``new``.

    ``local_uids``: the stable ids of the events made in this store.
    """
    con.execute(
        "CREATE OR REPLACE TEMP TABLE import_present AS "
        "SELECT unnest(?::VARCHAR[]) AS event_uid UNION "
        "SELECT i.event_uid FROM label_imports i JOIN label_events e USING (event_id) "
        "WHERE e.run_id IN (SELECT DISTINCT local_run FROM import_rows)",
        [local_uids],
    )
    con.execute(
        "UPDATE import_rows SET outcome = CASE "
        "WHEN NOT EXISTS (SELECT 1 FROM import_questions q WHERE q.run_id = import_rows.local_run "
        "  AND q.qid = import_rows.qid) THEN 'missing' "
        "WHEN event_uid IN (SELECT event_uid FROM import_present) THEN 'present' ELSE 'new' END"
    )
    repeated = scalar(
        con,
        "SELECT count(*) - count(DISTINCT event_uid) FROM import_rows WHERE outcome = 'new'",
    )
    if repeated:  # of rows sharing a stable id, the first (file order, then time) is imported
        con.execute(
            "UPDATE import_rows SET outcome = 'present' WHERE seq IN (SELECT seq FROM ("
            "  SELECT seq, row_number() OVER (PARTITION BY event_uid "
            "    ORDER BY file_no, created_at, coalesce(original_event_id, 0), row_no) AS copy "
            "  FROM import_rows WHERE outcome = 'new') WHERE copy > 1)"
        )


def outcome_counts(con: duckdb.DuckDBPyConnection) -> list[tuple[int, str, str, str, int]]:
    """(file_no, run id in the file, local run, outcome, rows)."""
    return [
        (int(f), str(r), str(local), str(outcome), int(n))
        for f, r, local, outcome, n in rows(
            con,
            "SELECT file_no, run_id, local_run, outcome, count(*) FROM import_rows "
            "GROUP BY ALL ORDER BY file_no, run_id, outcome",
        )
    ]


def missing_questions(con: duckdb.DuckDBPyConnection) -> list[str]:
    """``run:qid`` of every row whose question the run lacks, in import order."""
    return [
        str(row[0])
        for row in rows(
            con,
            "SELECT local_run || ':' || qid FROM import_rows WHERE outcome = 'missing' "
            "ORDER BY file_no, created_at, coalesce(original_event_id, 0), row_no",
        )
    ]


def new_codes(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every code the new events use, in the order first used."""
    return [
        str(row[0])
        for row in rows(
            con,
            "SELECT code FROM (SELECT unnest(codes) AS code, file_no, row_no FROM import_rows "
            "WHERE outcome = 'new') GROUP BY code ORDER BY min(file_no), min(row_no), code",
        )
    ]


def insert_new(con: duckdb.DuckDBPyConnection, files: list[str]) -> int:
    """Insert the new events and note where they came from (``files``: the file names by
    file_no, for ``label_imports``). Returns the events inserted.

    Their ids follow the files' order (replay orders events by time; an id only breaks ties).
    """
    count = int(scalar(con, "SELECT count(*) FROM import_rows WHERE outcome = 'new'") or 0)
    if not count:
        return 0
    # One block of ids, as many as rows were read: this connection holds the store's write
    # lock, so they are consecutive, and row ``seq`` takes the block's seq-th id (the ids of
    # rows already present are simply not used).
    size = int(scalar(con, "SELECT max(seq) FROM import_rows") or 0)
    first, last = one_row(
        con,
        "SELECT min(id), max(id) FROM (SELECT nextval('label_event_ids') AS id FROM range(?))",
        [size],
    )
    if last - first + 1 != size:  # pragma: no cover - a sequence hands out consecutive ids
        raise StoreError("the label event ids were not handed out in one block; nothing imported")
    event_id = f"({int(first) - 1} + n.seq)"
    con.execute(
        f"INSERT INTO label_events SELECT {event_id}, n.local_run, n.run_hash, n.qid, "
        "coalesce(n.question_key, q.question_key), n.action, n.codes, n.primary_code, n.note, "
        "n.annotator, n.source, n.taxonomy_version, n.params, n.created_at, NULL "
        "FROM import_rows n LEFT JOIN import_questions q ON q.run_id = n.local_run AND q.qid = n.qid "
        "WHERE n.outcome = 'new'"
    )
    con.execute(
        f"INSERT INTO label_imports SELECT {event_id}, n.event_uid, (?::VARCHAR[])[n.file_no + 1], "
        "n.original_event_id, now()::TIMESTAMP FROM import_rows n WHERE n.outcome = 'new'",
        [files],
    )
    return count


def finish(con: duckdb.DuckDBPyConnection) -> None:
    """Drop the import's temp tables."""
    for table in (
        "import_rows",
        "import_questions",
        "import_present",
        "verdict_import_rows",
        "verdict_local_runs",
    ):
        con.execute(f"DROP TABLE IF EXISTS {table}")
