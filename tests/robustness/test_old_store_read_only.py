"""Issue 41 item 13: a previous release's store on read-only media. Commands that read say
it needs an upgrade that cannot be written (not "This command writes to the store"),
``store check`` does not call it sound, and where the missing upgrade is one reads do not
need, read-only commands read it as it is. Read-only media is simulated: the test runs as
root, for whom file modes do not stop a write, so ``store_writable`` is made to say False
(``os.access`` reports a read-only file system even to root)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from builders import dialog, open_row, qa, write_run
from memscope.cli import app
from memscope.store import connection

runner = CliRunner()


def _old_store(tmp_path: Path, store_path: Path) -> Path:
    """A store as the release before migration 11 left it."""
    data = dialog(
        {"D1": ["D1:1"]},
        [qa(f"Question {i}?", "gold", [["X1"], ["Y1"]], ["D1:1"], ["D1"]) for i in range(1, 4)],
    )
    rows = [open_row(i, data, judge=float(i % 2), seed=["D1:1"]) for i in range(1, 4)]
    assert (
        runner.invoke(app, ["ingest", str(write_run(tmp_path / "run", data, rows))]).exit_code == 0
    )
    con = duckdb.connect(str(store_path))
    for table in ("predictions", "suggestions"):
        con.execute(f"ALTER TABLE {table} DROP COLUMN question_idx")
    con.execute("DELETE FROM schema_migrations WHERE version = 11")
    con.close()
    return store_path


@pytest.fixture
def read_only_media(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connection, "store_writable", lambda path: False, raising=False)


def test_reads_say_the_upgrade_cannot_be_written(
    tmp_path: Path, store_path: Path, read_only_media: None
) -> None:
    old = _old_store(tmp_path, store_path)
    before = old.read_bytes()
    for command in (["runs"], ["report", "run"]):
        done = runner.invoke(app, command)
        assert done.exit_code == 1, done.output
        text = " ".join(done.output.split())
        assert "written by an earlier memscope (schema version 10)" in text
        assert "needs an upgrade to version 11" in text and "cannot be written here" in text
        assert "This command writes to the store" not in text
    assert old.read_bytes() == before
    checked = runner.invoke(app, ["store", "check", "--db", str(old)])
    assert checked.exit_code == 1
    flat = " ".join(checked.stdout.split())
    assert "the store is sound" not in flat and "needs an upgrade to version 11" in flat
    assert "copy it somewhere writable" in flat and "re-ingest" not in flat


def test_reads_go_on_where_the_missing_upgrade_is_not_needed_to_read(
    tmp_path: Path, store_path: Path, read_only_media: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memscope.store import migrations

    _old_store(tmp_path, store_path)
    con = duckdb.connect(str(store_path))  # as if 11 changed nothing reads use
    for table in ("predictions", "suggestions"):
        con.execute(f"ALTER TABLE {table} ADD COLUMN question_idx INTEGER")
    con.close()
    monkeypatch.setattr(migrations, "reads_need", lambda version: version != 11)
    done = runner.invoke(app, ["runs"])
    assert done.exit_code == 0, done.output
    assert "run" in done.stdout


def test_a_writable_old_store_is_upgraded(tmp_path: Path, store_path: Path) -> None:
    _old_store(tmp_path, store_path)
    assert runner.invoke(app, ["report", "run"]).exit_code == 0
    con = duckdb.connect(str(store_path), read_only=True)
    assert con.execute("SELECT max(version) FROM schema_migrations").fetchone() == (11,)
    con.close()
