"""Tiny helpers that run one parameterised statement and read its result completely.

DuckDB refuses new work on a connection while a result is only partly fetched, so
reading "the first row" must still drain the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb


def rows(con: duckdb.DuckDBPyConnection, query: str, params: Any = None) -> list[tuple[Any, ...]]:
    """All rows of a query."""
    result = con.execute(query, params) if params is not None else con.execute(query)
    return result.fetchall()


def one(con: duckdb.DuckDBPyConnection, query: str, params: Any = None) -> tuple[Any, ...] | None:
    """The first row of a query, or None."""
    result = rows(con, query, params)
    return result[0] if result else None


def scalar(con: duckdb.DuckDBPyConnection, query: str, params: Any = None) -> Any:
    """The first column of the first row, or None."""
    row = one(con, query, params)
    return row[0] if row else None
