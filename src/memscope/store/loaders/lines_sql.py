"""The SQL of a declared JSON-lines format: how the store stages, checks and stores its rows.

A benchmark describes its per-question file as a :class:`~memscope.record_formats.LinesFormat`
(data, no SQL); this module turns the description into the fragments both the per-run
loader (``loaders/json_lines.py``) and the batched ingest of a sweep (``store/ingest_batch.py``)
execute, so the two store the same rows. Every name a format gives is checked to be a plain
identifier and quoted, so a description can never inject SQL.
"""

from __future__ import annotations

import re

from memscope.errors import StoreError
from memscope.record_formats import LinesFormat, Shape

INTEGER_TYPES = "('UBIGINT', 'BIGINT')"
NUMBER_TYPES = "('UBIGINT', 'BIGINT', 'DOUBLE', 'BOOLEAN', 'NULL')"
PREDICTION_COLUMNS = (
    "mode",
    "question",
    "gold",
    "pred",
    "choice",
    "em",
    "exact_match",
    "judge",
    "judge_reasoning",
    "f1",
    "bleu_1",
    "rotations",
    "position_bias",
    "latency_ms",
    "total_tokens",
    "context_rounds",
)
"""The ``predictions`` columns a format may fill, in table order (after ``line_no``)."""
INTEGER_COLUMNS = ("latency_ms", "total_tokens")
# Columns the staging tables add beside a row's own fields: a field may not take their names.
RESERVED = frozenset({"ord", "qid", "run_id", "dataset_id", "kind", "problem", "filename"})
RESERVED |= {"ordinality", "copy", "known_qid", "known_idx", "known_dataset"}
RESERVED |= set("bcgikqrsu")  # the aliases of the staging queries' tables
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LEAF_TYPES = {"text": "VARCHAR", "number": "DOUBLE", "integer": "BIGINT"}
# Kinds in the order their checks run (the first problem found names the row's).
_KIND_ORDER = (("text",), ("number", "unit"), ("list",), ("object",), ("flag",))


def check_format(fmt: LinesFormat) -> None:
    """Refuse a description the store cannot read safely (a name that is not a plain
    identifier or is one of the staging tables' own, a column or path that names nothing).

    Raises:
        StoreError: naming the file format and the name.
    """
    if _checked.get(id(fmt)) is fmt:
        return  # a sweep asks once per run of the same format

    def refuse(what: str) -> StoreError:
        return StoreError(f"the format of {fmt.file_name} is not usable: {what}")

    names = [fmt.key, *fmt.fields, *fmt.shapes]
    for name in names:
        if not _IDENTIFIER.fullmatch(name) or name.lower() in RESERVED:
            raise refuse(f"{name!r} is not a usable field name")
    if len({name.lower() for name in names}) != len(names):
        raise refuse("a field is declared twice")
    for column, source in fmt.columns.items():
        if column not in PREDICTION_COLUMNS:
            raise refuse(f"no predictions column {column!r}")
        _check_path(fmt, source, refuse)
    for path in (fmt.unranked_ids, *(_ranked_paths(fmt))):
        if path is not None:
            _check_path(fmt, path, refuse)
    for name in fmt.mcq_when:
        _check_path(fmt, name, refuse)
    members = (fmt.ranked.candidate_id, *candidate_members(fmt)) if fmt.ranked else ()
    for name in members:
        if not _IDENTIFIER.fullmatch(name):
            raise refuse(f"candidate member {name!r} is not a plain name")
    if fmt.question_field is not None and fmt.question_field not in fmt.fields:
        raise refuse(f"no field {fmt.question_field!r}")
    _checked[id(fmt)] = fmt


_checked: dict[int, LinesFormat] = {}
"""Formats found usable, by identity (held, so that an id is never reused)."""


def _ranked_paths(fmt: LinesFormat) -> list[str | None]:
    return [fmt.ranked.ids, fmt.ranked.candidates] if fmt.ranked else []


def _check_path(fmt: LinesFormat, path: str, refuse) -> None:  # type: ignore[no-untyped-def]
    head, *rest = path.split(".")
    if head not in fmt.fields and head not in fmt.shapes:
        raise refuse(f"{path!r} names no declared field")
    if rest and head not in fmt.shapes:
        raise refuse(f"{path!r} reads into {head!r}, which has no shape")
    if not all(_IDENTIFIER.fullmatch(part) for part in rest):
        raise refuse(f"{path!r} is not a dotted path of plain names")


def quoted(path: str, prefix: str = "") -> str:
    """A dotted path as quoted SQL identifiers (``r."runtime"."ids"``), after ``prefix``."""
    return prefix + ".".join(f'"{part}"' for part in path.split("."))


def sql_text(text: str) -> str:
    """A SQL string literal of ``text``."""
    return "'" + text.replace("'", "''") + "'"


def struct_type(shape: Shape) -> str:
    """The DuckDB type a shape is parsed into."""
    if isinstance(shape, str):
        return _LEAF_TYPES[shape]
    if isinstance(shape, list):
        return f"{struct_type(shape[0])}[]"
    return (
        "STRUCT(" + ", ".join(f'"{name}" {struct_type(kind)}' for name, kind in shape.items()) + ")"
    )


def checked_fields(fmt: LinesFormat) -> list[str]:
    """The key and the checked fields, in the order of their checks."""
    return [fmt.key] + [name for kinds in _KIND_ORDER for name in _of_kind(fmt, *kinds)]


def _of_kind(fmt: LinesFormat, *kinds: str) -> list[str]:
    return [name for name, kind in fmt.fields.items() if kind in kinds]


def columns_literal(fmt: LinesFormat) -> str:
    """The ``columns`` argument of ``read_json`` that stages the rows: every checked field
    as JSON (so that a wrongly typed value never hides a row), every shape typed."""
    columns = {name: "JSON" for name in checked_fields(fmt)}
    columns |= {name: struct_type(shape) for name, shape in fmt.shapes.items()}
    return "{" + ", ".join(f"'{name}': {sql_text(kind)}" for name, kind in columns.items()) + "}"


def row_problem_sql(fmt: LinesFormat, prefix: str = "") -> str:
    """A CASE expression naming the first problem of a staged row (NULL when fine)."""

    def col(name: str) -> str:
        return quoted(name, prefix)

    key, label = col(fmt.key), fmt.key
    every = [*checked_fields(fmt), *fmt.shapes]
    all_null = " AND ".join(f"{col(name)} IS NULL" for name in every)
    cases = [f"WHEN {all_null} THEN 'unreadable'"]
    cases.append(f"WHEN {key} IS NULL THEN 'missing required field \"{label}\"'")
    # TRY_CAST is NULL for an integer beyond BIGINT (18446744073709551615 is a UBIGINT to
    # json_type): that is a bad row too, never a cast error for the whole file later.
    cases.append(
        f"WHEN json_type({key}) NOT IN {INTEGER_TYPES} OR TRY_CAST({key} AS BIGINT) IS NULL "
        f"OR TRY_CAST({key} AS BIGINT) < 1 "
        f"THEN 'field \"{label}\" must be a positive integer (at most 9223372036854775807), got ' "
        f"|| left({key}::VARCHAR, 40)"
    )
    for name in _of_kind(fmt, "number", "unit"):
        cases.append(
            f"WHEN {col(name)} IS NOT NULL AND json_type({col(name)}) NOT IN {NUMBER_TYPES} "
            f"THEN 'field \"{name}\" must be a number, got ' || left({col(name)}::VARCHAR, 40)"
        )
        cases.append(
            f"WHEN json_type({col(name)}) = 'DOUBLE' AND NOT isfinite(TRY_CAST({col(name)} AS DOUBLE)) "
            f"THEN 'field \"{name}\" must be a finite number, got ' || {col(name)}::VARCHAR"
        )
    for name in _of_kind(fmt, "unit"):
        cases.append(
            f"WHEN TRY_CAST({col(name)} AS DOUBLE) NOT BETWEEN 0 AND 1 "
            f"THEN 'field \"{name}\" must lie in [0, 1], got ' || {col(name)}::VARCHAR"
        )
    for name in _of_kind(fmt, "text"):
        cases.append(
            f"WHEN json_type({col(name)}) IN ('ARRAY', 'OBJECT') "
            f"THEN 'field \"{name}\" must be a string, got ' || lower(json_type({col(name)}))"
        )
    for name in _of_kind(fmt, "list"):
        cases.append(
            f"WHEN json_type({col(name)}) NOT IN ('ARRAY', 'NULL') "
            f"THEN 'field \"{name}\" must be a list, got ' || lower(json_type({col(name)}))"
        )
    for name in _of_kind(fmt, "object"):
        cases.append(
            f"WHEN json_type({col(name)}) NOT IN ('OBJECT', 'NULL') "
            f"THEN 'field \"{name}\" must be an object, got ' || lower(json_type({col(name)}))"
        )
    for name in _of_kind(fmt, "flag"):
        cases.append(
            f"WHEN json_type({col(name)}) NOT IN ('BOOLEAN', 'NULL', 'UBIGINT', 'BIGINT') "
            f"THEN 'field \"{name}\" must be true or false'"
        )
    return "CASE " + " ".join(cases) + " END"


def qid_sql(fmt: LinesFormat, key: str) -> str:
    """The question id of a row whose key (an integer expression) is ``key``."""
    return f"{sql_text(fmt.qid_prefix)} || {key}"


def column_value(fmt: LinesFormat, column: str, prefix: str = "") -> str:
    """The stored value of ``predictions`` column ``column`` from a staged row (its fields
    after ``prefix``, e.g. ``r.``)."""
    source = fmt.columns.get(column)
    if column == "mode":
        given = f"{quoted(source, prefix)} ->> '$'" if source else None
        if fmt.mcq_when:
            present = " OR ".join(f"{quoted(name, prefix)} IS NOT NULL" for name in fmt.mcq_when)
            default = f"CASE WHEN {present} THEN 'mcq' ELSE 'open' END"
        else:
            default = "'open'"
        return f"coalesce({given}, {default})" if given else default
    if source is None:
        return "NULL"
    value = quoted(source, prefix)
    kind = fmt.fields.get(source) if "." not in source else None
    if kind == "text":
        return f"{value} ->> '$'"
    if kind in ("number", "unit"):
        if column in INTEGER_COLUMNS:
            return f"TRY_CAST({value} AS BIGINT)"
        return (
            f"CASE json_type({value}) WHEN 'BOOLEAN' THEN CAST({value}::BOOLEAN AS DOUBLE) "
            f"ELSE TRY_CAST({value} AS DOUBLE) END"
        )
    if kind == "flag":
        return f"TRY_CAST({value} AS BOOLEAN)"
    return value  # a list or an object (JSON), or a typed path into a shape


def prediction_values(fmt: LinesFormat, run_id: str, qid: str, question_idx: str) -> str:
    """The select list of a ``predictions`` row from a staged row ``r`` (``run_id``,
    ``qid`` and ``question_idx``: the SQL of the run's id, the row's question id and that
    question's ``idx``)."""
    values = ", ".join(column_value(fmt, column) for column in PREDICTION_COLUMNS)
    return f"{run_id}, {qid}, r.ord::INTEGER, {values}, NULL, {question_idx}"


def _first(members: tuple[str, ...], alias: str) -> str:
    """The first non-null of a candidate's ``members`` (NULL when none is named)."""
    if not members:
        return "NULL"
    if len(members) == 1:
        return quoted(members[0], f"{alias}.")
    return "coalesce(" + ", ".join(quoted(name, f"{alias}.") for name in members) + ")"


def candidate_members(fmt: LinesFormat) -> tuple[str, ...]:
    """The score members of a ranked format's candidates (none without candidates)."""
    ranked = fmt.ranked
    if ranked is None or ranked.candidates is None:
        return ()
    return (*ranked.score, *ranked.text_score, *ranked.image_score)


def ranked_retrievals_sql(fmt: LinesFormat, run_id: str, qid: str, source: str) -> str:
    """The ``retrievals`` rows of ranked runs, from staged rows ``r`` in ``source``.

    Candidates usually come in ranking order, so the two lists are unnested side by side
    (DuckDB zips unnests, padding the shorter with NULL) and a score is taken only where
    the ids agree; questions whose candidates are in another order (:func:`unaligned`) are
    fixed up afterwards by id.
    """
    ranked = fmt.ranked
    assert ranked is not None  # the loaders ask only for a format that ranks
    ids = quoted(ranked.ids, "r.")
    if ranked.candidates is None:
        scores = "NULL::DOUBLE, NULL::DOUBLE, NULL::DOUBLE"
        candidates = ""
    else:
        same = f"trim({quoted(ranked.candidate_id, 'c.')}) = round_id"
        scores = ", ".join(
            f"CASE WHEN {same} THEN {_first(members, 'c')} END"
            for members in (ranked.score, ranked.text_score, ranked.image_score)
        )
        candidates = f", unnest({quoted(ranked.candidates, 'r.')}) AS c"
    return (
        "WITH pairs AS ("
        f"  SELECT {run_id} AS run_id, {qid} AS qid,"
        f"         unnest(list_transform({ids}, lambda i: trim(i))) AS round_id,"
        f"         generate_subscripts({ids}, 1) AS rank{candidates}"
        f"  FROM {source})"
        f" SELECT run_id, qid, rank, round_id, {scores}, 'logged'"
        " FROM pairs WHERE round_id IS NOT NULL"
    )


def unaligned(fmt: LinesFormat) -> str:
    """Whether a staged row ``r``'s candidates are not in ranking order (scored by id
    instead); FALSE for a format without candidates."""
    ranked = fmt.ranked
    if ranked is None or ranked.candidates is None:
        return "FALSE"
    candidates = quoted(ranked.candidates, "r.")
    ids = quoted(ranked.ids, "r.")
    return (
        f"list_transform({candidates}, lambda c: trim({quoted(ranked.candidate_id, 'c.')})) "
        f"<> list_transform({ids}[1:len({candidates})], lambda i: trim(i))"
    )


def realigned_scores_sql(fmt: LinesFormat, source: str) -> tuple[str, str]:
    """For the rows of ``source`` (staged rows ``r`` with their ``qid``) whose candidates
    are out of order: a query of each question's candidates by round id, and the SET list
    of an ``UPDATE retrievals … FROM (that query) u``."""
    ranked = fmt.ranked
    assert ranked is not None and ranked.candidates is not None
    members = list(dict.fromkeys(candidate_members(fmt)))
    # Each member is renamed m_<n>: a member may be called like a column of the query.
    picked = ", ".join(
        f"any_value({quoted(name, 'c.')}) AS m_{n}" for n, name in enumerate(members)
    )
    candidate_id = f"trim({quoted(ranked.candidate_id, 'c.')})"
    query = (
        f"SELECT qid, {candidate_id} AS round_id, {picked} "
        f"FROM (SELECT g.qid, unnest({quoted(ranked.candidates, 'r.')}) AS c FROM {source}) "
        f"GROUP BY qid, {candidate_id}"
    )

    def first(group: tuple[str, ...]) -> str:
        named = [f"u.m_{members.index(name)}" for name in group]
        if not named:
            return "NULL"
        return named[0] if len(named) == 1 else f"coalesce({', '.join(named)})"

    assignments = (
        f"score = {first(ranked.score)}, text_score = {first(ranked.text_score)}, "
        f"image_score = {first(ranked.image_score)}"
    )
    return query, assignments


def unranked_retrievals_sql(
    fmt: LinesFormat, run_id: str, qid: str, source: str, partition: str = ""
) -> str:
    """The ``retrievals`` rows of unranked runs, from staged rows ``r`` in ``source``; the
    ids are :attr:`~memscope.record_formats.LinesFormat.unranked_late` rows late."""
    assert fmt.unranked_ids is not None
    ids = f"list_transform({quoted(fmt.unranked_ids, 'r.')}, lambda i: trim(i))"
    if fmt.unranked_late:
        ids = f"lead({ids}, {int(fmt.unranked_late)}) OVER ({partition} ORDER BY r.ord)"
    return (
        "WITH shifted AS ("
        f"  SELECT {run_id} AS run_id, {qid} AS qid, {ids} AS ids"
        f"  FROM {source})"
        " SELECT DISTINCT run_id, qid, NULL::INTEGER, unnest(ids), NULL::DOUBLE, NULL::DOUBLE, NULL::DOUBLE, 'logged'"
        " FROM shifted WHERE ids IS NOT NULL"
    )
