"""Bulk-loads a declared JSON-lines file of one row per question (and a memscope
``retrieval.jsonl`` sidecar).

The benchmark declares the file (:class:`~memscope.record_formats.LinesFormat`: its fields,
their kinds, which field fills which column, where the ranking is); ``lines_sql`` turns that
into SQL. Rows are staged with DuckDB's newline-delimited JSON reader, every checked field
read as JSON so that a wrongly typed value never hides a row. Each row is then checked in
SQL (the required key, field types, value ranges, duplicates, keys beyond the dataset); bad
rows are reported as ``file:line`` and skipped, or refused with ``strict``. Retrievals come
from the declared ranking (``ranked``: ids in rank order, the candidates scoring the first
ranks; ``unranked``: a set, possibly logged rows late) unless a sidecar holds the full
ranked pool.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from memscope.errors import DatasetError, RunDirError, StoreError
from memscope.record_formats import LinesFormat
from memscope.records import BulkSource, Notice
from memscope.store.literal_files import literal_file
from memscope.store.loaders.finite import null_non_finite
from memscope.store.loaders.lines import NESTED_TOO_DEEPLY, explain_bad_line, lines_of_records
from memscope.store.loaders.lines_sql import (
    candidate_members,
    check_format,
    columns_literal,
    prediction_values,
    qid_sql,
    quoted,
    ranked_retrievals_sql,
    realigned_scores_sql,
    row_problem_sql,
    unaligned,
    unranked_retrievals_sql,
)
from memscope.store.sql import one_row, rows, scalar

if TYPE_CHECKING:
    import duckdb

DATASET_CHECK_SAMPLE = 2000
MAX_LISTED_LINES = 10
MISMATCH_REFUSE_SHARE = 0.5
SIDECAR_POOL_SHAPE = (
    '[{"rank": "INTEGER", "round_id": "VARCHAR", "score": "DOUBLE", "text_score": "DOUBLE", '
    '"image_score": "DOUBLE"}]'
)
KNOWN_IDX = "(SELECT qid AS known_qid, idx AS known_idx FROM questions WHERE dataset_id = $dataset)"
"""The dataset's questions' idx by qid, named apart from a staged row's own columns."""
STAGED_ROWS = "lines_rows r JOIN lines_good g USING (ord)"
"""The rows kept, with their question ids."""


def load_lines(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    dataset_id: str,
    source: BulkSource,
    *,
    strict: bool,
    notices: list[Notice],
) -> int:
    """Stage, check and insert one declared per-question file inside the caller's transaction.

    Args:
        con: A write connection with an open transaction.
        run_id: The run the rows belong to (its old rows are already deleted).
        dataset_id: The run's dataset, already in the store.
        source: The file, its format (``source.loader``) and its options.
        strict: Refuse the whole file on any bad line instead of skipping it.
        notices: Receives a warning per skipped line (``file:line``) and per oddity.

    ``source.options``: ``retrieval_kind`` (``ranked``: the format's ranking is read;
    ``unranked``: its set of ids) and ``sidecar`` (a memscope ``retrieval.jsonl`` with the
    full ranked pool, which wins).

    Returns:
        The number of predictions inserted.

    Raises:
        RunDirError: with ``strict`` on any bad line, or when no row is usable.
        DatasetError: when the rows do not match the dataset's questions.
        StoreError: when the format cannot be read (see ``lines_sql.check_format``).
    """
    fmt = source.loader
    if not isinstance(fmt, LinesFormat):
        raise StoreError(f"no loader for {fmt!r}", where=str(source.path))
    check_format(fmt)
    path = Path(source.path)
    with literal_file(path, error=RunDirError, what=fmt.file_name) as reader:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE lines_rows AS "
            "SELECT ordinality::BIGINT AS ord, * FROM read_json(?, format = 'newline_delimited', "
            f"columns = {columns_literal(fmt)}, ignore_errors = true, maximum_object_size = 268435456) "
            "WITH ORDINALITY",
            [reader.name],
        )
    # The row count and every row's problem in one statement (each costs milliseconds, and
    # a sweep ingests hundreds of small runs).
    total, bad_ords, bad_reasons = one_row(
        con,
        "SELECT count(*), list(ord ORDER BY ord) FILTER (WHERE problem IS NOT NULL), "
        "list(problem ORDER BY ord) FILTER (WHERE problem IS NOT NULL) "
        f"FROM (SELECT ord, {row_problem_sql(fmt)} AS problem FROM lines_rows)",
    )
    if total == 0:
        raise RunDirError(
            f"{fmt.file_name} has no rows",
            where=str(path),
            fix="Re-run the benchmark or restore the file.",
        )
    problems = dict(zip(bad_ords or [], bad_reasons or [], strict=True))
    kept = "TRUE"
    if problems:
        _report_bad_rows(fmt, path, problems, total, strict, notices)
        con.execute("CREATE OR REPLACE TEMP TABLE lines_bad (ord BIGINT)")
        con.executemany("INSERT INTO lines_bad VALUES (?)", [[ordinal] for ordinal in problems])
        kept = "ord NOT IN (SELECT ord FROM lines_bad)"

    # lines_good holds only the keys of the rows kept; the inserts join back to lines_rows.
    key = f"CAST({quoted(fmt.key)} AS BIGINT)"
    con.execute(
        "CREATE OR REPLACE TEMP TABLE lines_good AS "
        f"SELECT ord, {qid_sql(fmt, key)} AS qid, "
        f"row_number() OVER (PARTITION BY {key} ORDER BY ord) AS copy "
        f"FROM lines_rows WHERE {kept}"
    )
    # Duplicates and rows without a question, found in one statement: a duplicate is
    # dropped as such first, then the unknown ones among the rest.
    known = "(SELECT qid FROM questions WHERE dataset_id = $dataset)"
    flagged = rows(
        con,
        f"SELECT ord, copy > 1 FROM lines_good WHERE copy > 1 OR qid NOT IN {known} ORDER BY ord",
        {"dataset": dataset_id},
    )
    duplicates = [ordinal for ordinal, duplicate in flagged if duplicate]
    unknown = [ordinal for ordinal, duplicate in flagged if not duplicate]
    _drop_and_report(
        con,
        duplicates,
        "copy > 1",
        f"duplicate {fmt.key}: a later row repeats an earlier question; the first row is kept",
        path,
        notices,
        strict,
    )
    _drop_and_report(
        con,
        unknown,
        f"qid NOT IN {known}",
        f"{fmt.key} has no question in the dataset; row skipped",
        path,
        notices,
        strict,
        {"dataset": dataset_id},
    )
    if fmt.question_field is not None:
        _check_dataset_match(con, fmt, dataset_id, path, notices)
    inserted = total - len(problems) - len(duplicates) - len(unknown)
    if inserted == 0:
        raise RunDirError(
            f"{fmt.file_name} has no usable rows",
            where=str(path),
            fix="See the warnings above; the file may be truncated or from another benchmark.",
        )
    con.execute(
        f"INSERT INTO predictions SELECT {prediction_values(fmt, '$run', 'g.qid', 'k.known_idx')} "
        f"FROM {STAGED_ROWS} LEFT JOIN {KNOWN_IDX} k "
        "ON k.known_qid = g.qid ORDER BY r.ord",
        {"run": run_id, "dataset": dataset_id},
    )
    sidecar = source.options.get("sidecar")
    retrieval_kind = source.options.get("retrieval_kind")
    if sidecar:
        _insert_sidecar_retrievals(con, fmt, run_id, Path(sidecar), notices)
    elif retrieval_kind == "unranked" and fmt.unranked_ids is not None:
        con.execute(
            "INSERT INTO retrievals " + unranked_retrievals_sql(fmt, "?", "g.qid", STAGED_ROWS),
            [run_id],
        )
    elif retrieval_kind == "ranked" and fmt.ranked is not None:
        _insert_ranked_retrievals(con, fmt, run_id, path, notices)
    null_non_finite(con, run_id, str(sidecar or path), notices)
    con.execute("; ".join(f"DROP TABLE IF EXISTS {table}" for table in _STAGED))
    return inserted


_STAGED = ("lines_rows", "lines_bad", "lines_good")


def _report_bad_rows(
    fmt: LinesFormat,
    path: Path,
    problems: dict[int, str],
    total: int,
    strict: bool,
    notices: list[Notice],
) -> None:
    located = lines_of_records(path, set(problems))
    messages: list[str] = []
    for ordinal, problem in sorted(problems.items()):
        line_no, raw = located.get(ordinal, (None, b""))
        # DuckDB cannot tell a malformed line from a non-object one; Python can.
        detail = explain_bad_line(raw) if raw else None
        if detail == NESTED_TOO_DEEPLY and problem != "unreadable":
            detail = None  # DuckDB read the line; its reason (which field) says more
        reason = detail or ("unreadable line" if problem == "unreadable" else problem)
        where = f"{path}:{line_no}" if line_no else f"{path} (record {ordinal})"
        messages.append(f"{where}: {reason}")
    if strict:
        listed = "\n    ".join(messages[:MAX_LISTED_LINES])
        more = (
            f"\n    … and {len(messages) - MAX_LISTED_LINES} more"
            if len(messages) > MAX_LISTED_LINES
            else ""
        )
        raise RunDirError(
            f"{len(messages)} bad line(s) in {fmt.file_name}; nothing was ingested (--strict):\n    {listed}{more}",
            where=str(path),
            fix="Fix the lines, or drop --strict to ingest the good rows.",
        )
    if len(messages) == total:
        raise RunDirError(
            f"no line of {fmt.file_name} is usable; first problem: {messages[0]}",
            where=str(path),
            fix=f"Is this {fmt.described}? Re-run the benchmark or restore the file.",
        )
    for message in messages[:MAX_LISTED_LINES]:
        where, _, reason = message.partition(": ")
        notices.append(Notice(f"{reason}; line skipped", where))
    if len(messages) > MAX_LISTED_LINES:
        notices.append(
            Notice(f"{len(messages) - MAX_LISTED_LINES} more bad line(s) skipped", str(path))
        )


def _drop_and_report(
    con: duckdb.DuckDBPyConnection,
    dropped: list[int],
    condition: str,
    what: str,
    path: Path,
    notices: list[Notice],
    strict: bool,
    params: dict[str, str] | None = None,
) -> None:
    """Report the rows ``dropped`` (ordinals, in order) and delete them from lines_good
    (``condition``, with ``params``, selects exactly them)."""
    if not dropped:
        return
    located = lines_of_records(path, set(dropped[:MAX_LISTED_LINES]))
    lines = [str(located[o][0]) for o in dropped[:MAX_LISTED_LINES] if o in located]
    if strict:
        raise RunDirError(
            f"{len(dropped)} row(s): {what} (lines {', '.join(lines)}); nothing was ingested (--strict)",
            where=str(path),
        )
    notices.append(
        Notice(
            f"{len(dropped)} row(s): {what}",
            f"{path}:{lines[0]}" if lines else str(path),
            tuple(f"line {line}" for line in lines[1:4]),
        )
    )
    con.execute(f"DELETE FROM lines_good WHERE {condition}", params)


def _check_dataset_match(
    con: duckdb.DuckDBPyConnection,
    fmt: LinesFormat,
    dataset_id: str,
    path: Path,
    notices: list[Notice],
) -> None:
    """Refuse a dataset whose questions are not the run's (a wrong --dataset).

    The first rows suffice to recognise a wrong dataset, so only a sample is compared.
    """
    assert fmt.question_field is not None
    asked = quoted(fmt.question_field, "r.")
    normalized = "regexp_replace(trim({}), '\\s+', ' ', 'g')"
    row_text = normalized.format("g.asked ->> '$'")
    dataset_text = normalized.format("q.question")
    compared, mismatched, example = one_row(
        con,
        f"SELECT count(*), count(*) FILTER (WHERE NOT starts_with({row_text}, {dataset_text})), "
        f"min(g.qid || ': run asks \"' || left({row_text}, 60) || '\", dataset has \"' || left({dataset_text}, 60) || '\"') "
        f"FILTER (WHERE NOT starts_with({row_text}, {dataset_text})) "
        f"FROM (SELECT g.qid, {asked} AS asked FROM {STAGED_ROWS} "
        f"      WHERE {asked} IS NOT NULL ORDER BY r.ord LIMIT ?) g "
        "JOIN questions q ON q.dataset_id = ? AND q.qid = g.qid",
        [DATASET_CHECK_SAMPLE, dataset_id],
    )
    if not mismatched:
        return
    if compared and mismatched / compared > MISMATCH_REFUSE_SHARE:
        raise DatasetError(
            f"the dataset does not match this run: {mismatched} of {compared} questions differ ({example})",
            where=str(path.parent),
            fix=fmt.dataset_fix,
        )
    notices.append(
        Notice(f"{mismatched} question(s) differ from the dataset's text", str(path), (example,))
    )


def _insert_ranked_retrievals(
    con: duckdb.DuckDBPyConnection,
    fmt: LinesFormat,
    run_id: str,
    path: Path,
    notices: list[Notice],
) -> None:
    assert fmt.ranked is not None
    con.execute(
        "INSERT INTO retrievals " + ranked_retrievals_sql(fmt, "?", "g.qid", STAGED_ROWS),
        [run_id],
    )
    out_of_order = unaligned(fmt)
    ids = quoted(fmt.ranked.ids, "r.")
    # Whether any question needs the fix-up, and how many rows carry no ranking, at once.
    n_unaligned, missing = one_row(
        con,
        f"SELECT count(*) FILTER (WHERE {out_of_order}), count(*) FILTER (WHERE {ids} IS NULL) "
        f"FROM {STAGED_ROWS}",
    )
    # Nothing to fix up (the usual case): no scan of every run's retrievals.
    if n_unaligned and candidate_members(fmt):
        candidates, assignments = realigned_scores_sql(fmt, f"{STAGED_ROWS} WHERE {out_of_order}")
        con.execute(
            f"UPDATE retrievals SET {assignments} FROM ({candidates}) u "
            "WHERE retrievals.run_id = ? AND retrievals.qid = u.qid AND retrievals.round_id = u.round_id",
            [run_id],
        )
    if missing:
        named = fmt.ranked.ids.rpartition(".")[2]
        notices.append(
            Notice(
                f"{missing} row(s) of this retrieval run carry no {named}; those questions have no retrievals",
                str(path),
            )
        )


def _insert_sidecar_retrievals(
    con: duckdb.DuckDBPyConnection,
    fmt: LinesFormat,
    run_id: str,
    sidecar: Path,
    notices: list[Notice],
) -> None:
    """Load the full ranked pool a memscope-native run wrote to ``retrieval.jsonl``."""
    with literal_file(sidecar, error=RunDirError, what="retrieval.jsonl") as reader:
        con.execute(
            "INSERT INTO retrievals "
            "WITH pools AS ("
            f"  SELECT {qid_sql(fmt, 'TRY_CAST(idx AS BIGINT)')} AS qid,"
            f"        json_transform(pool, '{SIDECAR_POOL_SHAPE}') AS pool"
            "  FROM read_json(?, format = 'newline_delimited', columns = {'idx': 'JSON', 'pool': 'JSON'},"
            "                 ignore_errors = true, maximum_object_size = 268435456)),"
            " items AS (SELECT qid, unnest(pool, recursive := true) FROM pools WHERE qid IS NOT NULL)"
            " SELECT ?, qid, rank, trim(round_id), score, text_score, image_score, 'logged' FROM items"
            " WHERE qid IN (SELECT qid FROM lines_good) AND round_id IS NOT NULL",
            [reader.name, run_id],
        )
    if not scalar(con, "SELECT count(*) FROM retrievals WHERE run_id = ?", [run_id]):
        notices.append(
            Notice("retrieval.jsonl has no usable pools; the run has no retrievals", str(sidecar))
        )
