"""Bulk-loads MemEye ``predictions.jsonl`` (and a memscope ``retrieval.jsonl`` sidecar).

Rows are staged with DuckDB's newline-delimited JSON reader, every field read as JSON so
that a wrongly typed value never hides a row. Each row is then checked in SQL (required
``idx``, field types, value ranges, duplicates, idx beyond the dataset); bad rows are
reported as ``file:line`` and skipped, or refused with ``strict``. Retrieval provenance
comes from ``method_runtime`` (docs/formats.md §1.2): ``seed_round_ids`` is the ranking,
``top_candidates`` scores its first five; gen_agents' ``retrieved_round_ids`` is an
unranked set lagged by one row.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from memscope.errors import DatasetError, RunDirError
from memscope.records import BulkSource, Notice
from memscope.store.literal_files import literal_file
from memscope.store.loaders.finite import null_non_finite
from memscope.store.loaders.lines import NESTED_TOO_DEEPLY, explain_bad_line, lines_of_records
from memscope.store.sql import one_row, rows, scalar

if TYPE_CHECKING:
    import duckdb

INTEGER_TYPES = "('UBIGINT', 'BIGINT')"
NUMBER_TYPES = "('UBIGINT', 'BIGINT', 'DOUBLE', 'BOOLEAN', 'NULL')"
STRING_FIELDS = ("mode", "question", "gt", "pred", "choice", "judge_reasoning")
NUMBER_FIELDS = ("em", "judge", "f1", "bleu_1", "latency_ms")
UNIT_FIELDS = ("em", "judge")  # values must lie in [0, 1]
ARRAY_FIELDS = ("point", "clue_rounds", "source_sessions", "rotations")
OBJECT_FIELDS = ("position_bias",)
BOOL_FIELDS = ("exact_match",)
CHECKED_FIELDS = (
    "idx",
    *STRING_FIELDS,
    *NUMBER_FIELDS,
    *ARRAY_FIELDS,
    *OBJECT_FIELDS,
    *BOOL_FIELDS,
)
# method_runtime is large; DuckDB parses only the parts memscope uses, straight into typed
# structs (a value of the wrong shape becomes NULL instead of dropping the row).
RUNTIME_TYPE = (
    "STRUCT(seed_round_ids VARCHAR[], selected_round_ids VARCHAR[], retrieved_round_ids VARCHAR[], "
    "top_candidates STRUCT(round_id VARCHAR, score DOUBLE, text_dense_score DOUBLE, "
    "image_dense_score DOUBLE, semantic_score DOUBLE)[])"
)
TYPED_FIELDS = {"method_runtime": RUNTIME_TYPE, "usage": "STRUCT(total_tokens BIGINT)"}
DATASET_CHECK_SAMPLE = 2000
MAX_LISTED_LINES = 10
MISMATCH_REFUSE_SHARE = 0.5
CANDIDATE_SHAPE = (
    '[{"round_id": "VARCHAR", "score": "DOUBLE", "text_dense_score": "DOUBLE", '
    '"image_dense_score": "DOUBLE", "semantic_score": "DOUBLE"}]'
)
SIDECAR_POOL_SHAPE = (
    '[{"rank": "INTEGER", "round_id": "VARCHAR", "score": "DOUBLE", "text_score": "DOUBLE", '
    '"image_score": "DOUBLE"}]'
)


def columns_literal() -> str:
    """The ``columns`` argument of ``read_json`` that stages predictions rows."""
    columns = {name: "JSON" for name in CHECKED_FIELDS} | TYPED_FIELDS
    return "{" + ", ".join(f"'{name}': '{kind}'" for name, kind in columns.items()) + "}"


def row_problem_sql() -> str:
    """A CASE expression naming the first problem of a staged row (NULL when fine)."""
    all_null = " AND ".join(f"{name} IS NULL" for name in (*CHECKED_FIELDS, *TYPED_FIELDS))
    cases = [f"WHEN {all_null} THEN 'unreadable'"]
    cases.append("WHEN idx IS NULL THEN 'missing required field \"idx\"'")
    # TRY_CAST is NULL for an integer beyond BIGINT (18446744073709551615 is a UBIGINT to
    # json_type): that is a bad row too, never a cast error for the whole file later.
    cases.append(
        f"WHEN json_type(idx) NOT IN {INTEGER_TYPES} OR TRY_CAST(idx AS BIGINT) IS NULL "
        "OR TRY_CAST(idx AS BIGINT) < 1 "
        "THEN 'field \"idx\" must be a positive integer (at most 9223372036854775807), got ' "
        "|| left(idx::VARCHAR, 40)"
    )
    for name in NUMBER_FIELDS:
        cases.append(
            f"WHEN {name} IS NOT NULL AND json_type({name}) NOT IN {NUMBER_TYPES} "
            f"THEN 'field \"{name}\" must be a number, got ' || left({name}::VARCHAR, 40)"
        )
        cases.append(
            f"WHEN json_type({name}) = 'DOUBLE' AND NOT isfinite(TRY_CAST({name} AS DOUBLE)) "
            f"THEN 'field \"{name}\" must be a finite number, got ' || {name}::VARCHAR"
        )
    for name in UNIT_FIELDS:
        cases.append(
            f"WHEN TRY_CAST({name} AS DOUBLE) NOT BETWEEN 0 AND 1 "
            f"THEN 'field \"{name}\" must lie in [0, 1], got ' || {name}::VARCHAR"
        )
    for name in STRING_FIELDS:
        cases.append(
            f"WHEN json_type({name}) IN ('ARRAY', 'OBJECT') "
            f"THEN 'field \"{name}\" must be a string, got ' || lower(json_type({name}))"
        )
    for name in ARRAY_FIELDS:
        cases.append(
            f"WHEN json_type({name}) NOT IN ('ARRAY', 'NULL') "
            f"THEN 'field \"{name}\" must be a list, got ' || lower(json_type({name}))"
        )
    for name in OBJECT_FIELDS:
        cases.append(
            f"WHEN json_type({name}) NOT IN ('OBJECT', 'NULL') "
            f"THEN 'field \"{name}\" must be an object, got ' || lower(json_type({name}))"
        )
    for name in BOOL_FIELDS:
        cases.append(
            f"WHEN json_type({name}) NOT IN ('BOOLEAN', 'NULL', 'UBIGINT', 'BIGINT') "
            f"THEN 'field \"{name}\" must be true or false'"
        )
    return "CASE " + " ".join(cases) + " END"


KNOWN_IDX = "(SELECT qid AS known_qid, idx AS known_idx FROM questions WHERE dataset_id = $dataset)"
"""The dataset's questions' idx by qid, named apart from a staged row's own columns."""


def prediction_values(run_id: str, qid: str, question_idx: str) -> str:
    """The select list of a ``predictions`` row from a staged row ``r`` (``run_id``,
    ``qid`` and ``question_idx``: the SQL of the run's id, the row's question id and that
    question's ``idx``)."""
    return (
        f"{run_id}, {qid}, r.ord::INTEGER, "
        "coalesce(mode ->> '$', CASE WHEN rotations IS NOT NULL OR choice IS NOT NULL THEN 'mcq' ELSE 'open' END), "
        "question ->> '$', gt ->> '$', pred ->> '$', choice ->> '$', "
        f"{_number('em')}, TRY_CAST(exact_match AS BOOLEAN), {_number('judge')}, judge_reasoning ->> '$', "
        f"{_number('f1')}, {_number('bleu_1')}, rotations, position_bias, "
        "TRY_CAST(latency_ms AS BIGINT), usage.total_tokens, method_runtime.selected_round_ids, NULL, "
        f"{question_idx}"
    )


def ranked_retrievals_sql(run_id: str, qid: str, source: str) -> str:
    """The ``retrievals`` rows of ranked runs, from staged rows ``r`` in ``source``.

    MemEye writes top_candidates in seed order, so the two lists are unnested side by side
    (DuckDB zips unnests, padding the shorter with NULL) and a score is taken only where
    the ids agree; questions whose candidates are in another order (:data:`UNALIGNED`) are
    fixed up afterwards by id.
    """
    return (
        "WITH pairs AS ("
        f"  SELECT {run_id} AS run_id, {qid} AS qid,"
        "         unnest(list_transform(r.method_runtime.seed_round_ids, lambda i: trim(i))) AS round_id,"
        "         generate_subscripts(r.method_runtime.seed_round_ids, 1) AS rank,"
        "         unnest(r.method_runtime.top_candidates) AS c"
        f"  FROM {source})"
        " SELECT run_id, qid, rank, round_id,"
        "        CASE WHEN trim(c.round_id) = round_id THEN c.score END,"
        "        CASE WHEN trim(c.round_id) = round_id THEN coalesce(c.text_dense_score, c.semantic_score) END,"
        "        CASE WHEN trim(c.round_id) = round_id THEN c.image_dense_score END, 'logged'"
        " FROM pairs WHERE round_id IS NOT NULL"
    )


def unranked_retrievals_sql(run_id: str, qid: str, source: str, partition: str = "") -> str:
    """The ``retrievals`` rows of unranked runs, from staged rows ``r`` in ``source``.

    The runtime a row carries was captured before the row's own answer() ran, so the ids
    of question i are in the next row of the same run (docs/formats.md §1.2).
    """
    return (
        "WITH shifted AS ("
        f"  SELECT {run_id} AS run_id, {qid} AS qid,"
        "         lead(list_transform(r.method_runtime.retrieved_round_ids, lambda i: trim(i)))"
        f"         OVER ({partition} ORDER BY r.ord) AS ids"
        f"  FROM {source})"
        " SELECT DISTINCT run_id, qid, NULL::INTEGER, unnest(ids), NULL::DOUBLE, NULL::DOUBLE, NULL::DOUBLE, 'logged'"
        " FROM shifted WHERE ids IS NOT NULL"
    )


UNALIGNED = (
    "list_transform(r.method_runtime.top_candidates, lambda c: trim(c.round_id)) "
    "<> list_transform(r.method_runtime.seed_round_ids[1:len(r.method_runtime.top_candidates)], lambda i: trim(i))"
)
"""A staged row ``r`` whose top candidates are not in seed order (scored by id instead)."""


def _number(name: str) -> str:
    return (
        f"CASE json_type({name}) WHEN 'BOOLEAN' THEN CAST({name}::BOOLEAN AS DOUBLE) "
        f"ELSE TRY_CAST({name} AS DOUBLE) END"
    )


def load_memeye_predictions(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    dataset_id: str,
    source: BulkSource,
    *,
    strict: bool,
    notices: list[Notice],
) -> int:
    """Stage, check and insert one MemEye predictions file inside the caller's transaction.

    Args:
        con: A write connection with an open transaction.
        run_id: The run the rows belong to (its old rows are already deleted).
        dataset_id: The run's dataset, already in the store.
        source: The predictions file and its options (``lagged_runtime``, ``sidecar``).
        strict: Refuse the whole file on any bad line instead of skipping it.
        notices: Receives a warning per skipped line (``file:line``) and per oddity.

    ``source.options``: ``retrieval_kind`` (how the run logged retrievals: ranked rows carry
    ``seed_round_ids``; an unranked run's rows carry gen_agents' ``retrieved_round_ids``,
    lagged by one row because agentic methods snapshot their runtime before answering) and
    ``sidecar`` (a memscope ``retrieval.jsonl`` with the full ranked pool, which wins).

    Returns:
        The number of predictions inserted.

    Raises:
        RunDirError: with ``strict`` on any bad line, or when no row is usable.
        DatasetError: when the rows do not match the dataset's questions.
    """
    path = Path(source.path)
    with literal_file(path, error=RunDirError, what="predictions.jsonl") as reader:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE memeye_rows AS "
            "SELECT ordinality::BIGINT AS ord, * FROM read_json(?, format = 'newline_delimited', "
            f"columns = {columns_literal()}, ignore_errors = true, maximum_object_size = 268435456) "
            "WITH ORDINALITY",
            [reader.name],
        )
    # The row count and every row's problem in one statement (each costs milliseconds, and
    # a sweep ingests hundreds of small runs).
    total, bad_ords, bad_reasons = one_row(
        con,
        "SELECT count(*), list(ord ORDER BY ord) FILTER (WHERE problem IS NOT NULL), "
        "list(problem ORDER BY ord) FILTER (WHERE problem IS NOT NULL) "
        f"FROM (SELECT ord, {row_problem_sql()} AS problem FROM memeye_rows)",
    )
    if total == 0:
        raise RunDirError(
            "predictions.jsonl has no rows",
            where=str(path),
            fix="Re-run the benchmark or restore the file.",
        )
    problems = dict(zip(bad_ords or [], bad_reasons or [], strict=True))
    kept = "TRUE"
    if problems:
        _report_bad_rows(path, problems, total, strict, notices)
        con.execute("CREATE OR REPLACE TEMP TABLE memeye_bad (ord BIGINT)")
        con.executemany("INSERT INTO memeye_bad VALUES (?)", [[ordinal] for ordinal in problems])
        kept = "ord NOT IN (SELECT ord FROM memeye_bad)"

    # memeye_good holds only the keys of the rows kept; the inserts join back to memeye_rows.
    con.execute(
        "CREATE OR REPLACE TEMP TABLE memeye_good AS "
        "SELECT ord, 'q' || CAST(idx AS BIGINT) AS qid, "
        "row_number() OVER (PARTITION BY CAST(idx AS BIGINT) ORDER BY ord) AS copy "
        f"FROM memeye_rows WHERE {kept}"
    )
    # Duplicates and rows without a question, found in one statement: a duplicate is
    # dropped as such first, then the unknown ones among the rest.
    known = "(SELECT qid FROM questions WHERE dataset_id = $dataset)"
    flagged = rows(
        con,
        f"SELECT ord, copy > 1 FROM memeye_good WHERE copy > 1 OR qid NOT IN {known} ORDER BY ord",
        {"dataset": dataset_id},
    )
    duplicates = [ordinal for ordinal, duplicate in flagged if duplicate]
    unknown = [ordinal for ordinal, duplicate in flagged if not duplicate]
    _drop_and_report(
        con,
        duplicates,
        "copy > 1",
        "duplicate idx: a later row repeats an earlier question; the first row is kept",
        path,
        notices,
        strict,
    )
    _drop_and_report(
        con,
        unknown,
        f"qid NOT IN {known}",
        "idx has no question in the dataset; row skipped",
        path,
        notices,
        strict,
        {"dataset": dataset_id},
    )
    _check_dataset_match(con, dataset_id, path, notices)
    inserted = total - len(problems) - len(duplicates) - len(unknown)
    if inserted == 0:
        raise RunDirError(
            "predictions.jsonl has no usable rows",
            where=str(path),
            fix="See the warnings above; the file may be truncated or from another benchmark.",
        )
    con.execute(
        f"INSERT INTO predictions SELECT {prediction_values('$run', 'g.qid', 'k.known_idx')} "
        f"FROM memeye_rows r JOIN memeye_good g USING (ord) LEFT JOIN {KNOWN_IDX} k "
        "ON k.known_qid = g.qid ORDER BY r.ord",
        {"run": run_id, "dataset": dataset_id},
    )
    sidecar = source.options.get("sidecar")
    retrieval_kind = source.options.get("retrieval_kind")
    if sidecar:
        _insert_sidecar_retrievals(con, run_id, Path(sidecar), notices)
    elif retrieval_kind == "unranked":
        _insert_unranked_retrievals(con, run_id)
    elif retrieval_kind == "ranked":
        _insert_ranked_retrievals(con, run_id, path, notices)
    null_non_finite(con, run_id, str(sidecar or path), notices)
    con.execute(
        "; ".join(
            f"DROP TABLE IF EXISTS {table}"
            for table in ("memeye_rows", "memeye_bad", "memeye_good", "memeye_known")
        )
    )
    return inserted


def _report_bad_rows(
    path: Path, problems: dict[int, str], total: int, strict: bool, notices: list[Notice]
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
            f"{len(messages)} bad line(s) in predictions.jsonl; nothing was ingested (--strict):\n    {listed}{more}",
            where=str(path),
            fix="Fix the lines, or drop --strict to ingest the good rows.",
        )
    if len(messages) == total:
        raise RunDirError(
            f"no line of predictions.jsonl is usable; first problem: {messages[0]}",
            where=str(path),
            fix="Is this a MemEye predictions file? Re-run the benchmark or restore the file.",
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
    """Report the rows ``dropped`` (ordinals, in order) and delete them from memeye_good
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
    con.execute(f"DELETE FROM memeye_good WHERE {condition}", params)


def _check_dataset_match(
    con: duckdb.DuckDBPyConnection, dataset_id: str, path: Path, notices: list[Notice]
) -> None:
    """Refuse a dataset whose questions are not the run's (a wrong --dataset).

    The first rows suffice to recognise a wrong dataset, so only a sample is compared.
    """
    normalized = "regexp_replace(trim({}), '\\s+', ' ', 'g')"
    row_text = normalized.format("g.question ->> '$'")
    dataset_text = normalized.format("q.question")
    compared, mismatched, example = one_row(
        con,
        f"SELECT count(*), count(*) FILTER (WHERE NOT starts_with({row_text}, {dataset_text})), "
        f"min(g.qid || ': run asks \"' || left({row_text}, 60) || '\", dataset has \"' || left({dataset_text}, 60) || '\"') "
        f"FILTER (WHERE NOT starts_with({row_text}, {dataset_text})) "
        "FROM (SELECT g.qid, r.question FROM memeye_rows r JOIN memeye_good g USING (ord) "
        "      WHERE r.question IS NOT NULL ORDER BY r.ord LIMIT ?) g "
        "JOIN questions q ON q.dataset_id = ? AND q.qid = g.qid",
        [DATASET_CHECK_SAMPLE, dataset_id],
    )
    if not mismatched:
        return
    if compared and mismatched / compared > MISMATCH_REFUSE_SHARE:
        raise DatasetError(
            f"the dataset does not match this run: {mismatched} of {compared} questions differ ({example})",
            where=str(path.parent),
            fix="Pass the dialog JSON this run was made from with --dataset PATH.",
        )
    notices.append(
        Notice(f"{mismatched} question(s) differ from the dataset's text", str(path), (example,))
    )


def _insert_ranked_retrievals(
    con: duckdb.DuckDBPyConnection, run_id: str, path: Path, notices: list[Notice]
) -> None:
    con.execute(
        "INSERT INTO retrievals "
        + ranked_retrievals_sql("?", "g.qid", "memeye_rows r JOIN memeye_good g USING (ord)"),
        [run_id],
    )
    # Whether any question needs the fix-up, and how many rows carry no ranking, at once.
    n_unaligned, missing = one_row(
        con,
        f"SELECT count(*) FILTER (WHERE {UNALIGNED}), "
        "count(*) FILTER (WHERE r.method_runtime.seed_round_ids IS NULL) "
        "FROM memeye_rows r JOIN memeye_good g USING (ord)",
    )
    # Nothing to fix up (the usual case): no scan of every run's retrievals.
    if n_unaligned:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE memeye_unaligned AS "
            "SELECT g.qid, unnest(r.method_runtime.top_candidates, recursive := true) "
            f"FROM memeye_rows r JOIN memeye_good g USING (ord) WHERE {UNALIGNED}"
        )
        con.execute(
            "UPDATE retrievals SET score = u.score, text_score = coalesce(u.text_dense_score, u.semantic_score),"
            " image_score = u.image_dense_score "
            "FROM (SELECT qid, trim(round_id) AS round_id, any_value(score) AS score, any_value(text_dense_score) AS text_dense_score,"
            "      any_value(semantic_score) AS semantic_score, any_value(image_dense_score) AS image_dense_score"
            "      FROM memeye_unaligned GROUP BY qid, trim(round_id)) u "
            "WHERE retrievals.run_id = ? AND retrievals.qid = u.qid AND retrievals.round_id = u.round_id",
            [run_id],
        )
        con.execute("DROP TABLE memeye_unaligned")
    if missing:
        notices.append(
            Notice(
                f"{missing} row(s) of this retrieval run carry no seed_round_ids; those questions have no retrievals",
                str(path),
            )
        )


def _insert_unranked_retrievals(con: duckdb.DuckDBPyConnection, run_id: str) -> None:
    con.execute(
        "INSERT INTO retrievals "
        + unranked_retrievals_sql("?", "g.qid", "memeye_rows r JOIN memeye_good g USING (ord)"),
        [run_id],
    )


def _insert_sidecar_retrievals(
    con: duckdb.DuckDBPyConnection, run_id: str, sidecar: Path, notices: list[Notice]
) -> None:
    """Load the full ranked pool a memscope-native run wrote to ``retrieval.jsonl``."""
    with literal_file(sidecar, error=RunDirError, what="retrieval.jsonl") as reader:
        con.execute(
            "INSERT INTO retrievals "
            "WITH pools AS ("
            "  SELECT 'q' || TRY_CAST(idx AS BIGINT) AS qid,"
            f"        json_transform(pool, '{SIDECAR_POOL_SHAPE}') AS pool"
            "  FROM read_json(?, format = 'newline_delimited', columns = {'idx': 'JSON', 'pool': 'JSON'},"
            "                 ignore_errors = true, maximum_object_size = 268435456)),"
            " items AS (SELECT qid, unnest(pool, recursive := true) FROM pools WHERE qid IS NOT NULL)"
            " SELECT ?, qid, rank, trim(round_id), score, text_score, image_score, 'logged' FROM items"
            " WHERE qid IN (SELECT qid FROM memeye_good) AND round_id IS NOT NULL",
            [reader.name, run_id],
        )
    if not scalar(con, "SELECT count(*) FROM retrievals WHERE run_id = ?", [run_id]):
        notices.append(
            Notice("retrieval.jsonl has no usable pools; the run has no retrievals", str(sidecar))
        )
