"""The triage queue as SQL over the store: which questions of a run form a queue, in which
order, and the few rows on screen.

A :class:`QueueQuery` is a queue spec already validated by the use case
(``usecases.labels.queue_window``); :func:`queue_order` runs it in DuckDB and returns the
questions' ``idx`` in queue order, and :func:`queue_page` reads the columns the queue shows
for a handful of them. What changes while the app runs and is small (the annotator's labels,
the sample plan's order, the questions an axis filter keeps) reaches SQL as list
parameters (not Arrow tables: building one imports pandas, seconds on a cold start); the
suggestions are joined from the store's ``suggestions`` table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import duckdb

STRING_SORTS = ("mode", "task", "x", "y", "suggested", "label")
"""Sort keys ordered as text (a missing value is ``""``)."""


def _number(column: str) -> str:
    """``column`` with NaN read as NULL (the store may hold either for a missing score)."""
    return f"CASE WHEN isnan({column}) THEN NULL ELSE {column} END"


def _base_sql(run_param: str, page: bool = False) -> str:
    """One row per question of the run ``run_param`` names (``page``: only those whose idx
    is in ``$page``), with the columns the queue filters and sorts by (text columns with
    ``""`` for missing, scores with NULL)."""
    em, judge, f1 = _number("p.em"), _number("p.judge"), _number("p.f1")
    return (
        "SELECT q.idx, p.qid, q.question_key, coalesce(q.task, '') AS task, "
        "coalesce(q.x, '') AS x, coalesce(q.y, '') AS y, coalesce(p.mode, '') AS mode, "
        "coalesce(q.question, '') AS question, "
        f"{em} AS em, {judge} AS judge, {f1} AS f1 "
        "FROM predictions p JOIN runs r USING (run_id) "
        "JOIN questions q ON q.dataset_id = r.dataset_id AND q.qid = p.qid "
        f"WHERE p.run_id = {run_param}"
        + (" AND q.idx IN (SELECT unnest($page::BIGINT[]))" if page else "")
    )


def _scored_sql(source: str, judge_at: float, f1_at: float) -> str:
    """``source``'s rows with ``correct`` (1, 0, NULL unknown) and ``score``, as
    ``analysis.answers.correctness`` and ``answer_score`` compute them."""
    open_em = (
        f"coalesce(em, CASE WHEN f1 IS NULL THEN NULL WHEN f1 >= {f1_at} THEN 1.0 ELSE 0.0 END)"
    )
    correct = (
        "CASE WHEN mode = 'mcq' THEN CASE WHEN em IS NULL THEN NULL WHEN em >= 1.0 THEN 1.0 ELSE 0.0 END "
        f"WHEN judge IS NOT NULL THEN CASE WHEN judge >= {judge_at} THEN 1.0 ELSE 0.0 END "
        f"WHEN {open_em} IS NULL THEN NULL WHEN {open_em} >= 1.0 THEN 1.0 ELSE 0.0 END"
    )
    score = "CASE WHEN mode = 'mcq' THEN em ELSE coalesce(judge, em, f1) END"
    return f"SELECT *, ({correct})::DOUBLE AS correct, ({score})::DOUBLE AS score FROM ({source})"


QID_PARTS_SQL = (
    "list_transform(regexp_extract_all(s.qid, '\\d+|\\D+'), lambda part: CASE "
    "WHEN regexp_full_match(part, '\\d+') THEN {'kind': 1, 'num': TRY_CAST(part AS HUGEINT), 'txt': ''} "
    "ELSE {'kind': 0, 'num': 0::HUGEINT, 'txt': lower(part)} END)"
)
"""A numeric-aware sort key of the qid (``usecases.runs.qid_order``: q2 before q10): its
digit runs compared as numbers, the rest as lower-cased text."""


@dataclass(frozen=True)
class QueueQuery:
    """A validated queue for one run (the use case checked every value).

    ``fields`` holds the filter terms the SQL applies (``cell``, ``task``, ``x``, ``y``,
    ``mode``, ``code``, ``label``, ``correct``, ``labelled``, ``other``; yes/no as
    ``"yes"``/``"no"``); ``words`` must all occur in ``qid question`` (lower-cased);
    ``keep`` (idx values) restricts the queue to the questions a filter computed outside SQL
    kept (a benchmark axis); ``sample`` is the sample plan's qids in plan order.
    """

    run_id: str
    kind: str = "failing"
    cell: str | None = None
    fields: dict[str, str] = field(default_factory=dict)
    words: tuple[str, ...] = ()
    sort: str = "idx"
    descending: bool = False
    labels: dict[str, str] = field(default_factory=dict)
    """qid -> its label's codes joined by spaces (labelled questions only)."""
    with_suggestions: bool = True
    """Join the stored suggestions (False while they are being computed: none shown)."""
    other_run_id: str | None = None
    sample: list[str] | None = None
    sample_has_passes: bool = False
    keep: np.ndarray | None = None
    judge_at: float = 0.5
    f1_at: float = 0.5


def _joined_sql(query: QueueQuery, page: bool = False) -> tuple[str, dict[str, Any]]:
    """Every question of the run (``page``: those in ``$page``) with the queue's columns,
    the label, the suggestion, the sample rank and the compared run's correctness (SQL,
    parameters)."""
    # A compared run's questions are matched by their occurrence over the whole run, so
    # then the page is cut from every question (the caller's filter), not at the source.
    page = page and query.other_run_id is None
    base = _scored_sql(_base_sql("$run", page), query.judge_at, query.f1_at)
    params: dict[str, Any] = {
        "run": query.run_id,
        "label_qids": list(query.labels),
        "label_codes": list(query.labels.values()),
    }
    # The primary suggestion (rank 1) of each question; none while they are being computed.
    suggestions = (
        "SELECT qid, code FROM suggestions WHERE run_id = $run AND rank = 1"
        if query.with_suggestions
        else "SELECT NULL::VARCHAR AS qid, NULL::VARCHAR AS code WHERE false"
    )
    labels = (
        "SELECT unnest($label_qids::VARCHAR[]) AS qid, unnest($label_codes::VARCHAR[]) AS codes"
    )
    select = (
        "s.idx, s.qid, s.task, s.x, s.y, s.mode, s.question, s.em, s.correct, s.score, "
        "coalesce(g.code, '') AS suggested, coalesce(l.codes, '') AS label, "
        "coalesce(l.codes, '') <> '' AS labelled, "
        + ("sm.rank AS sample_rank" if query.sample is not None else "NULL::BIGINT AS sample_rank")
    )
    joins = (
        f"FROM ({base}) s LEFT JOIN ({suggestions}) g ON g.qid = s.qid "
        f"LEFT JOIN ({labels}) l ON l.qid = s.qid "
    )
    if query.sample is not None:
        params["sample"] = query.sample
        joins += (
            "LEFT JOIN (SELECT unnest($sample::VARCHAR[]) AS qid, "
            "unnest(range(len($sample::VARCHAR[]))) AS rank) sm ON sm.qid = s.qid "
        )
    if query.other_run_id is not None:
        # The n-th occurrence of a question key in one run is matched with its n-th in the
        # other (``usecases.compare.pairs.match_questions``).
        other = _scored_sql(_base_sql("$other"), query.judge_at, query.f1_at)
        numbered = "row_number() OVER (PARTITION BY question_key ORDER BY idx)"
        joins = joins.replace(
            f"FROM ({base}) s",
            f"FROM (SELECT *, {numbered} AS occurrence FROM ({base})) s",
        )
        joins += (
            f"LEFT JOIN (SELECT question_key, {numbered} AS occurrence, correct FROM ({other})) o "
            "ON o.question_key = s.question_key AND o.occurrence = s.occurrence "
        )
        select += ", o.correct AS other_correct"
        params["other"] = query.other_run_id
    else:
        select += ", NULL::DOUBLE AS other_correct"
    return f"SELECT {select} {joins}", params


def _where(query: QueueQuery, params: dict[str, Any]) -> str:
    failing = "correct = 0.0"
    if query.kind == "failing":
        terms = [failing]
    elif query.kind == "unlabelled":
        terms = [failing, "NOT labelled"]
    elif query.kind == "sample":
        if query.sample is None:
            terms = [failing]
        elif query.sample_has_passes:
            terms = ["sample_rank IS NOT NULL"]
        else:
            terms = [failing, "sample_rank IS NOT NULL"]
    else:
        terms = []
    cells = [query.cell] if query.cell else []
    if "cell" in query.fields:
        cells.append(query.fields["cell"])
    for number, cell in enumerate(cells):
        params[f"cell{number}"] = cell
        terms.append(f"x <> '' AND y <> '' AND x || '_' || y = $cell{number}")
    for name, value in query.fields.items():
        if name in ("cell", "labelled"):
            if name == "labelled":
                terms.append("labelled" if value == "yes" else "NOT labelled")
            continue
        params[f"f_{name}"] = value
        if name == "task":
            terms.append(f"lower(task) = lower($f_{name})")
        elif name in ("x", "y"):
            terms.append(f"{name} = $f_{name}")
        elif name == "mode":
            terms.append(f"mode = lower($f_{name})")
        elif name == "code":
            terms.append(f"suggested = upper($f_{name})")
        elif name == "label":
            terms.append(f"list_contains(string_split(label, ' '), upper($f_{name}))")
        elif name in ("correct", "other"):
            column = "correct" if name == "correct" else "other_correct"
            params[f"f_{name}"] = 1.0 if value == "yes" else 0.0
            terms.append(f"{column} = $f_{name}")
        else:
            raise ValueError(f"not a queue filter field: {name}")  # the use case validates
    for number, word in enumerate(query.words):
        params[f"word{number}"] = word
        terms.append(f"contains(lower(qid || ' ' || question), $word{number})")
    if query.keep is not None:
        params["keep"] = query.keep.astype(np.int64).tolist()
        terms.append("idx IN (SELECT unnest($keep::BIGINT[]))")
    return " AND ".join(f"({term})" for term in terms) or "true"


def _order(query: QueueQuery) -> str:
    direction = " DESC" if query.descending else ""
    if query.kind == "sample" and query.sample is not None and query.sort == "idx":
        keys = ["sample_rank"]
    elif query.sort == "idx":
        keys = []
    elif query.sort in ("correct", "score"):
        keys = [f"coalesce({query.sort}, 'inf'::DOUBLE)"]
    elif query.sort == "qid":
        keys = [QID_PARTS_SQL.replace("s.qid", "qid")]
    elif query.sort in STRING_SORTS:
        keys = [query.sort]
    else:
        raise ValueError(f"not a queue sort key: {query.sort}")  # the use case validates
    return ", ".join(f"{key}{direction}" for key in [*keys, "idx"])


def queue_order(con: duckdb.DuckDBPyConnection, query: QueueQuery) -> np.ndarray:
    """The ``idx`` of the questions in the queue, in queue order (int64)."""
    joined, params = _joined_sql(query)
    where = _where(query, params)
    sql = f"SELECT idx FROM ({joined}) WHERE {where} ORDER BY {_order(query)}"
    found = con.execute(sql, params).fetchnumpy()["idx"]
    return np.asarray(found, dtype=np.int64)


PAGE_COLUMNS = (
    "idx",
    "qid",
    "task",
    "x",
    "y",
    "mode",
    "question",
    "em",
    "correct",
    "score",
    "suggested",
    "label",
    "other_correct",
)
"""What :func:`queue_page` returns per question (the columns the queue table draws)."""


def queue_page(
    con: duckdb.DuckDBPyConnection, query: QueueQuery, idx: np.ndarray
) -> list[dict[str, Any]]:
    """The queue's columns (:data:`PAGE_COLUMNS`, with ``n_rotations``) of the questions
    ``idx``, in no particular order."""
    joined, params = _joined_sql(query, page=True)
    params["page"] = np.asarray(idx, dtype=np.int64).tolist()
    sql = (
        f"SELECT {', '.join('j.' + name for name in PAGE_COLUMNS)}, "
        f"coalesce(json_array_length(p.rotations), 0)::INTEGER AS n_rotations "
        f"FROM ({joined}) j JOIN predictions p ON p.run_id = $run AND p.qid = j.qid "
        "WHERE j.idx IN (SELECT unnest($page::BIGINT[]))"
    )
    result = con.execute(sql, params)
    names = [column[0] for column in result.description]
    return [dict(zip(names, row, strict=True)) for row in result.fetchall()]


def run_question_idx(con: duckdb.DuckDBPyConnection, run_id: str) -> np.ndarray:
    """The ``idx`` of every question of the run, ascending (row n of the run is the n-th)."""
    found = con.execute(
        "SELECT q.idx FROM predictions p JOIN runs r USING (run_id) "
        "JOIN questions q ON q.dataset_id = r.dataset_id AND q.qid = p.qid "
        "WHERE p.run_id = ? ORDER BY q.idx",
        [run_id],
    ).fetchnumpy()["idx"]
    return np.asarray(found, dtype=np.int64)


def queue_shape(con: duckdb.DuckDBPyConnection, run_id: str) -> tuple[int, bool]:
    """(the longest qid's length, whether the run mixes tasks) over its questions."""
    row = con.execute(
        "SELECT coalesce(max(length(p.qid)), 0), count(DISTINCT coalesce(q.task, '')) > 1 "
        "FROM predictions p JOIN runs r USING (run_id) "
        "JOIN questions q ON q.dataset_id = r.dataset_id AND q.qid = p.qid WHERE p.run_id = ?",
        [run_id],
    ).fetchone()
    return (int(row[0]), bool(row[1])) if row else (0, False)


def qid_idx(con: duckdb.DuckDBPyConnection, run_id: str, qids: list[str]) -> dict[str, int]:
    """qid -> idx of those of ``qids`` that are questions of the run."""
    if not qids:
        return {}
    found = con.execute(
        "SELECT p.qid, q.idx FROM predictions p JOIN runs r USING (run_id) "
        "JOIN questions q ON q.dataset_id = r.dataset_id AND q.qid = p.qid "
        "WHERE p.run_id = ? AND p.qid IN (SELECT unnest(?::VARCHAR[]))",
        [run_id, qids],
    ).fetchall()
    return {str(qid): int(idx) for qid, idx in found}
