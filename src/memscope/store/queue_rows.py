"""The triage queue as SQL over the store: which questions of a run form a queue, in which
order, and the few rows on screen.

A :class:`QueueQuery` is a queue spec already validated by the use case
(``usecases.labels.queue_window``); :func:`queue_order` runs it in DuckDB and returns the
questions' ``idx`` in queue order, :func:`queue_page` reads the columns the queue shows
for a handful of them, and :func:`queue_head` the first screenful of a queue in the run's
order without computing the rest (what the app draws first). What changes while the app runs and is small (the annotator's labels,
the sample plan's order, the questions an axis filter keeps) reaches SQL as list
parameters (not Arrow tables: building one imports pandas, seconds on a cold start); the
suggestions are joined from the store's ``suggestions`` table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import duckdb

STRING_SORTS = ("mode", "task", "x", "y", "suggested", "label")
"""Sort keys ordered as text (a missing value is ``""``)."""


def _number(column: str) -> str:
    """``column`` with NaN read as NULL (the store may hold either for a missing score)."""
    return f"CASE WHEN isnan({column}) THEN NULL ELSE {column} END"


Within = Callable[[str], str]
"""Which questions a read is about: the SQL condition on a question's idx, given the
column that holds it (``q.idx`` of a question, ``question_idx`` of its prediction or
suggestion)."""


def in_idx_range(column: str) -> str:
    """The questions whose idx is in ``[$from_idx, $to_idx)``."""
    return f"{column} >= $from_idx AND {column} < $to_idx"


def in_idx_list(column: str) -> str:
    """The questions whose idx is in the list ``$page``."""
    return f"{column} IN (SELECT unnest($page::BIGINT[]))"


def _base_sql(run_param: str, within: Within | None = None) -> str:
    """One row per question of the run ``run_param`` names (``within``: only the questions
    it keeps, e.g. an idx list or range), with the columns the queue filters and sorts by
    (text columns with ``""`` for missing, scores with NULL)."""
    em, judge, f1 = _number("p.em"), _number("p.judge"), _number("p.f1")
    columns = (
        "SELECT q.idx, p.qid, q.question_key, coalesce(q.task, '') AS task, "
        "coalesce(q.x, '') AS x, coalesce(q.y, '') AS y, coalesce(p.mode, '') AS mode, "
        "coalesce(q.question, '') AS question, "
        f"{em} AS em, {judge} AS judge, {f1} AS f1, "
        "coalesce(json_array_length(p.rotations), 0)::INTEGER AS n_rotations "
    )
    if within is None:
        return (
            columns + "FROM predictions p JOIN runs r USING (run_id) "
            "JOIN questions q ON q.dataset_id = r.dataset_id AND q.qid = p.qid "
            f"WHERE p.run_id = {run_param}"
        )
    # A few questions: they and their predictions are found by idx, each on its own table
    # (zone maps skip the rest of a large run), then joined.
    return (
        columns
        + f"FROM (SELECT * FROM questions q WHERE q.dataset_id = $dataset AND ({within('q.idx')})) q "
        f"JOIN (SELECT * FROM predictions WHERE run_id = {run_param} "
        f"AND ({within('question_idx')})) p ON p.qid = q.qid"
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
    dataset_id: str | None = None
    """The run's dataset: reading a few questions by idx needs it (:func:`queue_page`)."""
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


def _joined_sql(query: QueueQuery, within: Within | None = None) -> tuple[str, dict[str, Any]]:
    """Every question of the run (``within``: those it keeps) with the queue's columns, the
    label, the suggestion, the sample rank and the compared run's correctness (SQL,
    parameters)."""
    # A compared run's questions are matched by their occurrence over the whole run, so
    # then the page is cut from every question (the caller's filter), not at the source.
    if query.other_run_id is not None:
        within = None
    base = _scored_sql(_base_sql("$run", within), query.judge_at, query.f1_at)
    params: dict[str, Any] = {
        "run": query.run_id,
        "label_qids": list(query.labels),
        "label_codes": list(query.labels.values()),
    }
    if within is not None:
        params["dataset"] = query.dataset_id
    # The primary suggestion (rank 1) of each question; none while they are being computed.
    if not query.with_suggestions:
        suggestions = "SELECT NULL::VARCHAR AS qid, NULL::VARCHAR AS code WHERE false"
    elif within is None:
        suggestions = "SELECT qid, code FROM suggestions WHERE run_id = $run AND rank = 1"
    else:
        suggestions = (
            "SELECT qid, code FROM suggestions WHERE run_id = $run AND rank = 1 "
            f"AND ({within('question_idx')})"
        )
    labels = (
        "SELECT unnest($label_qids::VARCHAR[]) AS qid, unnest($label_codes::VARCHAR[]) AS codes"
    )
    select = (
        "s.idx, s.qid, s.task, s.x, s.y, s.mode, s.question, s.em, s.correct, s.score, "
        "s.n_rotations, "
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
    if "code" not in query.fields and query.sort != "suggested":
        # The suggestions neither filter nor order this queue: not joined (a third of the
        # time of a million-question run's queue).
        query = replace(query, with_suggestions=False)
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
    joined, params = _joined_sql(query, in_idx_list if query.dataset_id else None)
    params["page"] = np.asarray(idx, dtype=np.int64).tolist()
    return _page_rows(con, joined, "idx IN (SELECT unnest($page::BIGINT[]))", params)


def _page_rows(
    con: duckdb.DuckDBPyConnection,
    joined: str,
    where: str,
    params: dict[str, Any],
    order: str = "",
) -> list[dict[str, Any]]:
    """:data:`PAGE_COLUMNS` and ``n_rotations`` of the rows of ``joined`` that ``where``
    keeps (``order``: an ``ORDER BY … LIMIT …`` tail)."""
    sql = f"SELECT {', '.join(PAGE_COLUMNS)}, n_rotations FROM ({joined}) WHERE {where} {order}"
    result = con.execute(sql, params)
    names = [column[0] for column in result.description]
    return [dict(zip(names, row, strict=True)) for row in result.fetchall()]


def queue_head(
    con: duckdb.DuckDBPyConnection, query: QueueQuery, count: int, start: int | None = None
) -> list[dict[str, Any]] | None:
    """The first ``count`` rows of the queue (as :func:`queue_page` gives them, in queue
    order), read without computing the whole queue; None when that is not possible
    cheaply (a sort other than the run's order, a sample, a compared run: then
    :func:`queue_order` it is). ``start``: the first ``count`` rows from the question of
    that idx on (in the queue's direction), rather than from the queue's top.

    The questions are taken in idx ranges that grow until ``count`` rows are found (or
    the dataset's questions run out): a screenful of a million-question run costs a few
    reads of a few thousand questions each, not the whole run.
    """
    if (
        query.sort != "idx"
        or query.sample is not None
        or query.other_run_id is not None
        or query.dataset_id is None
    ):
        return None
    bounds = con.execute(
        "SELECT min(idx), max(idx) FROM questions WHERE dataset_id = ?", [query.dataset_id]
    ).fetchone()
    if bounds is None or bounds[0] is None:
        return []
    low, high = int(bounds[0]), int(bounds[1])
    if start is not None:  # the ranges begin at ``start``, in the queue's direction
        low, high = (low, min(high, start)) if query.descending else (max(low, start), high)
    joined, params = _joined_sql(query, within=in_idx_range)
    kept = f"SELECT * FROM ({joined}) WHERE {_where(query, params)}"
    direction = " DESC" if query.descending else ""
    span = max(1, 4 * count)
    found: list[dict[str, Any]] = []
    start, end = low, high + 1  # the ranges not read yet: [start, end)
    for _ in range(HEAD_STEPS):
        if start >= end:
            return found
        if query.descending:
            params["from_idx"], params["to_idx"] = max(start, end - span), end
            end = params["from_idx"]
        else:
            params["from_idx"], params["to_idx"] = start, min(end, start + span)
            start = params["to_idx"]
        found += _page_rows(
            con, kept, "true", params, f"ORDER BY idx{direction} LIMIT {count - len(found)}"
        )
        if len(found) >= count:
            return found
        span *= 4
    return found if start >= end else None


HEAD_STEPS = 3
"""How many growing idx ranges :func:`queue_head` reads before it leaves the queue's head to
:func:`queue_order` (a sparse filter over a large run)."""


def queue_shape(con: duckdb.DuckDBPyConnection, run_id: str) -> tuple[int, bool]:
    """(the longest qid's length, whether the run mixes tasks) over its questions."""
    # Joined by the question's idx (integers, where the qids are strings), each side
    # filtered first: a third of the time of the join through ``runs`` by qid.
    row = con.execute(
        "SELECT coalesce(max(length(q.qid)), 0), count(DISTINCT coalesce(q.task, '')) > 1 "
        "FROM questions q JOIN predictions p ON p.question_idx = q.idx AND p.run_id = $run "
        "WHERE q.dataset_id = (SELECT dataset_id FROM runs WHERE run_id = $run)",
        {"run": run_id},
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
