"""Every store file is opened through one DuckDB instance per process (store/attached.py).

A step attaches the file and the last connection to close detaches it; the file is then
free for other processes just as after closing a DuckDB connection of its own. Checked
with a real second process (plain DuckDB) that writes the file once memscope let go.
"""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from memscope.store import Store, attached
from memscope.store.check import check_store

WRITER = (
    "import duckdb, sys\n"
    "con = duckdb.connect(sys.argv[1])\n"
    "con.execute('CREATE TABLE IF NOT EXISTS probe (a INTEGER)')\n"
    "con.close()\n"
)


def another_process_writes(path: Path) -> str:
    """ "" when a plain DuckDB process could open ``path`` read-write, else its error."""
    done = subprocess.run(
        [sys.executable, "-c", WRITER, str(path)], capture_output=True, text=True, timeout=120
    )
    return "" if done.returncode == 0 else done.stderr.strip().splitlines()[-1]


@pytest.fixture
def made(store: Store) -> Store:
    with store.write():
        pass
    return store


def test_steps_build_no_database_instance_of_their_own(
    made: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[str] = []
    connect = duckdb.connect

    def counting(*args: object, **kwargs: object) -> duckdb.DuckDBPyConnection:
        built.append(str(args[0]) if args else ":memory:")
        return connect(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(duckdb, "connect", counting)
    for _ in range(5):
        with Store(made.path).read() as con:
            assert con.execute("SELECT count(*) FROM runs").fetchall() == [(0,)]
        with Store(made.path).write() as con:
            con.execute("UPDATE runs SET opened_at = opened_at")
    assert built in ([], [":memory:"])  # at most the process's one instance


def test_the_last_connection_to_close_frees_the_file(made: Store) -> None:
    real = str(made.path.resolve())
    with made.read() as first, Store(made.path).read() as second:
        assert attached.attached_files() == [real]  # one attachment, two connections
        first.execute("SELECT count(*) FROM runs").fetchall()
        second.execute("SELECT count(*) FROM runs").fetchall()
        assert "lock" in another_process_writes(made.path)
    assert attached.attached_files() == []
    assert another_process_writes(made.path) == ""


def test_a_dropped_connection_frees_the_file_and_its_handoff_lock(made: Store) -> None:
    con = made.open_as_is()
    con.execute("SELECT count(*) FROM runs").fetchall()
    del con
    gc.collect()
    assert attached.attached_files() == []
    assert another_process_writes(made.path) == ""
    with Store(made.path, wait_s=0.2).write() as con:  # memscope's own lock is free too
        con.execute("UPDATE runs SET opened_at = opened_at")


def test_one_file_is_not_open_in_both_modes_in_one_process(made: Store) -> None:
    reading = attached.open_file(str(made.path), read_only=True)
    try:
        with pytest.raises(duckdb.ConnectionException, match="different configuration"):
            attached.open_file(str(made.path), read_only=False)
    finally:
        reading.connection.close()
        reading.give_back()
    writing = attached.open_file(str(made.path), read_only=False)
    writing.connection.close()
    writing.give_back()
    assert attached.attached_files() == []


def test_a_store_open_beside_another_sees_only_its_own_tables(tmp_path: Path) -> None:
    other, checked = Store(tmp_path / "other.duckdb"), Store(tmp_path / "checked.duckdb")
    with other.write() as con:
        con.execute("CREATE TABLE not_memscopes (a INTEGER)")
        con.execute("ALTER TABLE runs ADD COLUMN extra INTEGER")
    with checked.write():
        pass
    with other.read():  # attached in this process meanwhile
        health = check_store(checked)
    assert health.sound, health.problems


def databases() -> set[str]:
    scratch = attached.scratch()
    try:
        return {
            row[0]
            for row in scratch.execute("SELECT database_name FROM duckdb_databases()").fetchall()
        }
    finally:
        scratch.close()


def test_a_private_memory_database_is_gone_when_given_back() -> None:
    before = databases()
    first = attached.open_memory()
    first.connection.execute("CREATE TABLE t AS SELECT 1 AS a")
    second = attached.open_memory()
    try:
        assert len(databases() - before) == 2
        with pytest.raises(duckdb.CatalogException):
            second.connection.execute("SELECT * FROM t")
    finally:
        for opened in (first, second):
            opened.connection.close()
            opened.give_back()
    assert databases() == before
