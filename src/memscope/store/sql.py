"""Tiny helpers that run one parameterised statement and read its result completely.

DuckDB refuses new work on a connection while a result is only partly fetched, so
reading "the first row" must still drain the result. ``insert_json_rows`` is the bulk
insert for rows built in Python (one statement; ``executemany`` runs one per row).
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


def one_row(con: duckdb.DuckDBPyConnection, query: str, params: Any = None) -> tuple[Any, ...]:
    """The first row of a query that always returns one (an aggregate, a bare SELECT)."""
    row = one(con, query, params)
    if row is None:  # pragma: no cover - DuckDB returns a row for every aggregate
        raise AssertionError(f"no row from {query!r}")
    return row


def scalar(con: duckdb.DuckDBPyConnection, query: str, params: Any = None) -> Any:
    """The first column of the first row, or None."""
    row = one(con, query, params)
    return row[0] if row else None


JSON_SHAPES = {
    "VARCHAR": '"VARCHAR"',
    "INTEGER": '"INTEGER"',
    "BIGINT": '"BIGINT"',
    "DOUBLE": '"DOUBLE"',
    "BOOLEAN": '"BOOLEAN"',
    "JSON": '"JSON"',
    "VARCHAR[]": '["VARCHAR"]',
    "TIMESTAMP": '"TIMESTAMP"',
}
"""How a column type is named in a json_transform structure."""


def insert_json_rows(
    con: duckdb.DuckDBPyConnection,
    table: str,
    records: list[dict[str, Any]],
    fixed: dict[str, Any] | None = None,
) -> None:
    """Insert many rows in one statement: serialised with orjson, parsed by DuckDB.

    Args:
        table: The table (a name from code, never from input).
        records: One dict per row, keyed by column name; missing columns are NULL. A JSON
            column takes the Python value itself (dict, list), not its serialised text.
        fixed: Values shared by every row (e.g. ``{"run_id": ...}``), bound as parameters.
    """
    import orjson

    if not records:
        return
    fixed = fixed or {}
    columns = [(row[0], row[1]) for row in rows(con, f"DESCRIBE {table}") if row[0] not in fixed]
    shape = "{" + ", ".join(f'"{name}": {JSON_SHAPES[kind]}' for name, kind in columns) + "}"
    names = [name for name, _ in columns]
    payload = orjson.dumps(
        [{name: record.get(name) for name in names} for record in records], default=str
    )
    fixed_sql = "".join(f"? AS {name}, " for name in fixed)
    con.execute(
        f"INSERT INTO {table} BY NAME SELECT {fixed_sql}unnest(json_transform(?::JSON, '[{shape}]'), recursive := true)",
        [*fixed.values(), payload.decode()],
    )
