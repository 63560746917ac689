"""A new store's schema is copied from one made by the migrations once per process
(``migrations.migrate``); the copy must be exactly what applying every step makes."""

from __future__ import annotations

from pathlib import Path

import duckdb

from memscope.store import Store, attached
from memscope.store.migrations import _migrate_step_by_step, all_migrations
from memscope.store.sql import rows

CATALOG = {
    "tables": "SELECT table_name, sql FROM duckdb_tables() WHERE database_name = $db",
    "constraints": "SELECT table_name, constraint_type, constraint_text, expression, "
    "constraint_column_names FROM duckdb_constraints() WHERE database_name = $db",
    "sequences": "SELECT sequence_name, start_value, min_value, max_value, increment_by, "
    "cycle, last_value FROM duckdb_sequences() WHERE database_name = $db",
    "indexes": "SELECT index_name, table_name, sql FROM duckdb_indexes() WHERE database_name = $db",
    "views": "SELECT view_name, sql FROM duckdb_views() WHERE database_name = $db AND NOT internal",
    "columns": "SELECT table_name, column_name, column_default, is_nullable, data_type "
    "FROM duckdb_columns() WHERE database_name = $db",
}


def catalog(con: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[object, ...]]]:
    (database,) = rows(con, "SELECT current_database()")[0]
    return {
        name: sorted(rows(con, sql, {"db": database}), key=repr) for name, sql in CATALOG.items()
    }


def test_a_new_store_has_the_schema_every_migration_makes(tmp_path: Path) -> None:
    stepwise = attached.open_memory()
    try:
        _migrate_step_by_step(stepwise.connection)
        expected = catalog(stepwise.connection)
        expected_versions = rows(stepwise.connection, "SELECT version, name FROM schema_migrations")
    finally:
        stepwise.connection.close()
        stepwise.give_back()
    for store in (Store(tmp_path / "first.duckdb"), Store(tmp_path / "second.duckdb")):
        with store.write() as con:
            assert catalog(con) == expected
            assert sorted(rows(con, "SELECT version, name FROM schema_migrations")) == sorted(
                expected_versions
            )
            newest = rows(con, "SELECT max(applied_at) <= now()::TIMESTAMP FROM schema_migrations")
            assert newest == [(True,)]
    assert len(expected["tables"]) > len(all_migrations())  # a real schema was compared


def test_a_new_store_records_when_it_was_made(tmp_path: Path) -> None:
    first, second = Store(tmp_path / "first.duckdb"), Store(tmp_path / "second.duckdb")
    with first.write():
        pass
    with first.read() as con:
        (made_first,) = rows(con, "SELECT max(applied_at) FROM schema_migrations")[0]
    with second.write() as con:
        (made_second,) = rows(con, "SELECT min(applied_at) FROM schema_migrations")[0]
    assert made_second > made_first  # stamped when made, not when the template was
