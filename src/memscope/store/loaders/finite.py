"""Non-finite numbers (NaN, ±Infinity) in loaded rows: decided per field, after any loader.

JSON readers accept ``NaN`` and ``Infinity`` literals, and an Arrow table an adapter built
may carry them. memscope's decision, per field:

- retrieval scores (``retrievals.score``, ``text_score``, ``image_score``): a score that is
  not a finite number carries no ranking information, so it is treated as missing (NULL),
  with one notice; the ranking itself (the ranks) is kept.
- answer metrics (``predictions.em``, ``judge``, ``f1``, ``bleu_1``): the JSON-lines
  loader refuses the line (``file:line``) like any wrongly typed value; for other loaders the value
  is treated as missing here, with one notice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memscope.records import Notice
from memscope.store.sql import one_row

if TYPE_CHECKING:
    import duckdb

SCORE_COLUMNS = ("score", "text_score", "image_score")
METRIC_COLUMNS = ("em", "judge", "f1", "bleu_1")


def _not_finite(column: str) -> str:
    return f"({column} IS NOT NULL AND NOT isfinite({column}))"


def null_non_finite(
    con: duckdb.DuckDBPyConnection, run_id: str, where: str, notices: list[Notice]
) -> None:
    """Set every non-finite score and metric of ``run_id`` to NULL, with one notice per table.

    Both tables are counted in one statement (a run of a sweep usually has nothing to fix,
    and each statement costs milliseconds); only a table with something to fix is updated.
    """
    checked = (
        ("retrievals", SCORE_COLUMNS, "retrieval score(s)"),
        ("predictions", METRIC_COLUMNS, "answer metric value(s)"),
    )
    counts = one_row(
        con,
        "SELECT "
        + ", ".join(
            "(SELECT coalesce(sum("
            + " + ".join(f"{_not_finite(column)}::INTEGER" for column in columns)
            + f"), 0) FROM {table} WHERE run_id = $run AND ({_any_not_finite(columns)}))"
            for table, columns, _ in checked
        ),
        {"run": run_id},
    )
    for (table, columns, what), count in zip(checked, counts, strict=True):
        if not count:
            continue
        assignments = ", ".join(
            f"{column} = CASE WHEN {_not_finite(column)} THEN NULL ELSE {column} END"
            for column in columns
        )
        con.execute(
            f"UPDATE {table} SET {assignments} WHERE run_id = ? AND ({_any_not_finite(columns)})",
            [run_id],
        )
        notices.append(
            Notice(
                f"{int(count)} {what} are not finite numbers (NaN/Infinity); treated as missing",
                where,
            )
        )


def _any_not_finite(columns: tuple[str, ...]) -> str:
    return " OR ".join(_not_finite(column) for column in columns)
