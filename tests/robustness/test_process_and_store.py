"""Processes and stores (issue 25, points 7, 9, 11, 13 and 16), with real processes where
the point is about one; each subprocess has a timeout, so a hang fails fast.

- 7: tests never touch the repository's store or the user's files (the guard in
  tests/conftest.py, and the temp folders every test gets).
- 9: ``memscope open`` without a terminal says so and exits 2; on a terminal it runs.
- 11: a truncated, a bit-flipped, a half-migrated store, a missing table, a foreign file:
  one message (what is wrong, what to do); ``memscope store check`` looks without
  changing anything and saves the labels; a migration that fails or is killed midway
  leaves the store as it was.
- 13: a reader that went away (exit 0, quiet), a closed stdout (one error), an ASCII
  encoding (stand-ins, same JSON), a deleted working directory (absolute paths work,
  otherwise one message).
- 16: a lock path that is a folder and a read-only file system are named as such, not
  as "another memscope app".
"""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from builders import dialog, open_row, qa, write_run
from isolation import Watched, changes, snapshot
from memscope.cli import app
from memscope.store import Store
from shared_inputs import copy_store
from support import SUPPORT_FILES

runner = CliRunner()
ROOT = Path(__file__).parents[2]
VENV_BIN = Path(sys.executable).parent
MEMSCOPE = str(VENV_BIN / "memscope")
APP_PROCESS = ROOT / "tests" / "tui" / "app_process.py"
TIMEOUT_S = 120
TABLES = "SELECT table_name FROM information_schema.tables"


def env(**extra: str | None) -> dict[str, str]:
    """This test's environment for a subprocess (None removes a variable)."""
    base = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    for name, value in extra.items():
        if value is None:
            base.pop(name, None)
        else:
            base[name] = value
    return base


def memscope(*args: str, **kwargs) -> subprocess.CompletedProcess[str]:
    kwargs.setdefault("env", env())
    return subprocess.run(
        [MEMSCOPE, *args], capture_output=True, text=True, timeout=TIMEOUT_S, **kwargs
    )


def sh(script: str, **kwargs) -> subprocess.CompletedProcess[str]:
    """Run a shell line (for redirections a Popen cannot make: ``>&-``, a vanished cwd)."""
    kwargs.setdefault("env", env(MEMSCOPE=MEMSCOPE))
    return subprocess.run(
        ["sh", "-c", script], capture_output=True, text=True, timeout=TIMEOUT_S, **kwargs
    )


def invoke(*args: str):
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    return result


def one_error(text: str) -> None:
    assert text.count("error:") == 1, text
    assert "Traceback" not in text and "internal error" not in text, text


def a_run(root: Path, name: str = "run", *, relative_dialog: bool = False) -> Path:
    data = dialog(
        {"D1": ["D1:1", "D1:2"], "D2": ["D2:1"]},
        [
            qa(f"Question {i} · é?", f"answer {i} – ok", [["X1"], ["Y1"]], ["D1:1"], ["D1"])
            for i in range(1, 4)
        ],
    )
    run_dir = write_run(
        root / "runs" / name,
        data,
        [open_row(i, data, seed=["D1:1", "D2:1"], scores=[0.9, 0.4]) for i in (1, 2, 3)],
    )
    if relative_dialog:  # as upstream records it: relative to where the runner ran
        metrics = json.loads((run_dir / "metrics.json").read_text())
        metrics["dialog_json"] = "data/dialog/Task.json"
        (run_dir / "metrics.json").write_text(json.dumps(metrics))
    return run_dir


@pytest.fixture(scope="module")
def labelled_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``(a store with one run and two labels, the run's folder)``, made once per module:
    tests damage their own copy of the store, and none changes the run."""
    root = tmp_path_factory.mktemp("labelled")
    template, run_dir = root / "template.duckdb", a_run(root)
    db = ("--db", str(template))
    assert invoke("ingest", str(run_dir), *db).exit_code == 0
    for qid in ("q1", "q2"):
        assert invoke("label", "run", "-q", qid, "--code", "RET-MISS", *db).exit_code == 0
    return template, run_dir


@pytest.fixture
def labelled(labelled_template: tuple[Path, Path], store_path: Path) -> Path:
    """This test's copy of the labelled store, at the store path the environment names."""
    return copy_store(labelled_template[0], store_path)


# -- 7. nothing outside the test's temp folder -------------------------------------------


def test_the_isolation_snapshot_sees_what_a_test_changed(tmp_path: Path) -> None:
    place = tmp_path / "repo"
    (place / ".memscope").mkdir(parents=True)
    (place / ".memscope" / "old.duckdb").write_text("x")
    watched = [Watched(place / ".memscope"), Watched(place, top_level_only=True)]
    before = snapshot(watched)
    assert changes(before, snapshot(watched)) == []
    (place / ".memscope" / "memscope.duckdb").write_text("run")
    (place / ".memscope" / "old.duckdb").write_text("longer")
    (place / "labels.csv").write_text("")
    assert changes(before, snapshot(watched)) == [
        f"created {place / '.memscope' / 'memscope.duckdb'}",
        f"changed {place / '.memscope' / 'old.duckdb'}",
        f"created {place / 'labels.csv'}",
    ]
    (place / ".memscope" / "old.duckdb").unlink()
    assert f"removed {place / '.memscope' / 'old.duckdb'}" in changes(before, snapshot(watched))


def test_a_test_that_writes_into_the_repository_store_fails_the_run(tmp_path: Path) -> None:
    """The real conftest in a copy of the test tree: a test leaking into the (copied)
    repository's .memscope/ is named, and the run fails; its neighbour passes."""
    fake = tmp_path / "fake_repo"
    (fake / "tests").mkdir(parents=True)
    for name in SUPPORT_FILES:
        shutil.copy(ROOT / "tests" / name, fake / "tests" / name)
    (fake / "tests" / "test_leak.py").write_text(
        textwrap.dedent(
            """
            from pathlib import Path

            def test_clean(tmp_path):
                (tmp_path / "fine.txt").write_text("inside")

            def test_leaks():
                store = Path(__file__).parents[1] / ".memscope" / "memscope.duckdb"
                store.parent.mkdir()
                store.write_text("a test run named run")
            """
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=fake,
        capture_output=True,
        text=True,
        env=env(),
        timeout=TIMEOUT_S,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "ERROR at teardown of test_leaks" in done.stdout, done.stdout
    assert f"created {fake / '.memscope' / 'memscope.duckdb'}" in done.stdout
    assert "this test changed files outside its temp folder" in done.stdout
    assert "the test run changed files outside its temp folders" in done.stdout
    summary = done.stdout.split("short test summary")[-1]
    assert "2 passed, 1 error" in summary and "test_clean" not in summary, summary


def test_memscope_finds_no_user_file_outside_the_test(tmp_path: Path) -> None:
    import platformdirs

    for folder in (
        platformdirs.user_config_dir("memscope"),
        platformdirs.user_state_dir("memscope"),
        platformdirs.user_data_dir("memscope"),
    ):
        assert Path(folder).is_relative_to(tmp_path), folder
    shown = memscope("config", "path", env=env(MEMSCOPE_CONFIG=None))
    assert shown.returncode == 0, shown.stderr
    assert Path(shown.stdout.strip()).is_relative_to(tmp_path), shown.stdout


def test_undoing_the_monkeypatch_still_keeps_the_store_out_of_the_repository(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from memscope.paths import config_path, resolve_store_path

    monkeypatch.chdir(ROOT)
    monkeypatch.undo()  # what the test of issue 25 did; the session's sandbox remains
    assert not resolve_store_path(cwd=ROOT).is_relative_to(ROOT)
    assert not config_path().is_relative_to(Path.home() / ".config" / "memscope")


# -- 9. the app needs a terminal -----------------------------------------------------------


def test_open_without_a_terminal_says_so_and_exits_2(tmp_path: Path) -> None:
    run_dir = a_run(tmp_path)
    log = tmp_path / "open.log"
    with log.open("w") as output:
        started = time.monotonic()
        done = subprocess.run(
            [MEMSCOPE, "open", str(run_dir)],
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            env=env(),
            timeout=60,
        )
    text = log.read_text()
    assert done.returncode == 2, text
    assert time.monotonic() - started < 30
    one_error(text)
    assert "memscope open is an interactive app and needs a terminal" in text
    assert "standard input (stdin) and standard error (stderr) are not one" in text
    assert "\x1b" not in text and "\x07" not in text  # nothing drawn
    assert not (tmp_path / "store" / "memscope.duckdb").exists()  # nothing ingested either


@pytest.mark.parametrize("tty", ["stdin", "stderr"])
def test_open_names_the_stream_that_is_not_a_terminal(tmp_path: Path, tty: str) -> None:
    master, slave = pty.openpty()
    try:
        streams = {"stdin": subprocess.PIPE, "stderr": subprocess.PIPE}
        streams[tty] = slave
        done = subprocess.run(
            [MEMSCOPE, "open", str(a_run(tmp_path))],
            stdout=subprocess.PIPE,
            env=env(),
            timeout=60,
            **streams,
        )
    finally:
        os.close(slave)
        os.close(master)
    assert done.returncode == 2
    if tty == "stdin":
        message = done.stderr.decode()
        assert "its standard error (stderr) is not one" in message, message
    else:  # the message went to the terminal; the exit status says it all here
        assert done.stderr is None


def test_open_on_a_terminal_starts_the_app_and_q_quits(tmp_path: Path) -> None:
    import fcntl
    import struct
    import termios

    run_dir = a_run(tmp_path)
    assert invoke("ingest", str(run_dir)).exit_code == 0
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    process = subprocess.Popen(
        [MEMSCOPE, "open", "run"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env(TERM="xterm-256color"),
        start_new_session=True,
    )
    os.close(slave)
    drawn, sent = b"", False
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and process.poll() is None:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    drawn += os.read(master, 65536)
                except OSError:
                    break
            if not sent and b"q1" in drawn:
                time.sleep(1)  # let the queue settle before the key
                os.write(master, b"q")
                sent = True
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    assert sent and b"needs a terminal" not in drawn


# -- 11. broken stores -----------------------------------------------------------------------


def _damage_message(text: str, store_path: Path) -> None:
    one_error(text)
    flat = " ".join(text.split())
    assert f"({store_path})" in flat
    assert "Restore it from a backup, or re-ingest the runs into a new store" in flat
    assert f"memscope store check --db {store_path}" in flat


def test_a_truncated_store_is_one_message_naming_store_check(labelled: Path) -> None:
    os.truncate(labelled, labelled.stat().st_size // 2)
    for args in (
        ["runs"],
        ["report", "run"],
        ["export-labels"],
        ["label", "run", "-q", "q3", "--code", "RET-MISS"],
    ):
        done = memscope(*args, "--db", str(labelled))
        assert done.returncode == 1, done.stderr
        _damage_message(done.stderr, labelled)
        assert "the store is damaged: the file is shorter than its contents say" in " ".join(
            done.stderr.split()
        )


def test_a_bit_flipped_store_is_one_message(labelled: Path) -> None:
    with labelled.open("r+b") as handle:  # a byte of the first database header
        handle.seek(4096 + 100)
        byte = handle.read(1)
        handle.seek(4096 + 100)
        handle.write(bytes([byte[0] ^ 0xFF]))
    done = memscope("runs", "--db", str(labelled))
    assert done.returncode == 1
    _damage_message(done.stderr, labelled)
    assert "fails DuckDB's checksums" in done.stderr


def _half_migrate(store_path: Path) -> None:
    """What an upgrade cut off between migrations (by an older memscope) leaves."""
    con = duckdb.connect(str(store_path))
    con.execute("DELETE FROM schema_migrations WHERE version >= 3")
    con.close()


def test_a_half_migrated_store_is_explained(labelled: Path) -> None:
    _half_migrate(labelled)
    done = memscope("report", "run", "--db", str(labelled))
    assert done.returncode == 1
    _damage_message(done.stderr, labelled)
    flat = " ".join(done.stderr.split())
    assert "its schema is half-made: it records versions up to 2, but embeddings" in flat
    assert 'Table with name "embeddings" already exists' not in flat


def test_store_check_finds_the_half_made_schema_and_saves_the_labels(
    labelled: Path, labelled_template: tuple[Path, Path], tmp_path: Path
) -> None:
    _half_migrate(labelled)
    before = labelled.read_bytes()
    saved = tmp_path / "labels.jsonl"
    done = memscope(
        "store", "check", "--db", str(labelled), "--save-labels", str(saved), env=env(COLUMNS="200")
    )
    assert done.returncode == 1, done.stderr
    assert "saved 2 label event(s)" in done.stderr
    assert "the schema is half-made: embedding_items, embeddings" in done.stdout
    assert "recorded: 1, 2" in done.stdout
    assert "labels: 2 event(s), readable" in done.stdout
    assert f"import the labels there: memscope import-labels {saved} --db NEW.duckdb" in done.stdout
    assert labelled.read_bytes() == before  # looked at, not changed (nor migrated)
    # The saved labels come back in a new store.
    fresh = tmp_path / "new.duckdb"
    run_dir = labelled_template[1]  # the labels were made on this run's files
    assert invoke("ingest", str(run_dir), "--db", str(fresh)).exit_code == 0
    imported = invoke("import-labels", str(saved), "--db", str(fresh))
    assert imported.exit_code == 0 and "2 event(s) imported" in imported.output, imported.output
    exported = invoke("export-labels", "--db", str(fresh))
    rows = [json.loads(line) for line in exported.stdout.splitlines()]
    assert sorted(row["qid"] for row in rows) == ["q1", "q2"]
    assert {tuple(row["codes"]) for row in rows} == {("RET-MISS",)}


def test_store_check_on_a_sound_store(labelled: Path) -> None:
    done = invoke("store", "check", "--db", str(labelled))
    assert done.exit_code == 0, done.output
    assert "the store is sound" in done.stdout and "labels: 2 event(s), readable" in done.stdout
    record = json.loads(invoke("store", "check", "--db", str(labelled), "-f", "json").stdout)
    assert record["sound"] is True and record["problems"] == [] and record["label_events"] == 2
    assert {table["name"] for table in record["tables"]} >= {"runs", "label_events"}


def test_store_check_reads_every_block_and_names_the_damaged_table(
    labelled: Path, tmp_path: Path
) -> None:
    """Flip one byte per data block until a table (not the catalog) breaks: store check
    names that table and still saves the labels if they are elsewhere."""
    size = labelled.stat().st_size
    original = labelled.read_bytes()
    block = 262_144
    found = None
    for offset in range(12_288 + 2_000, size, block // 4):
        damaged = bytearray(original)
        damaged[offset] ^= 0x5A
        labelled.write_bytes(bytes(damaged))
        record = json.loads(
            runner.invoke(app, ["store", "check", "--db", str(labelled), "-f", "json"]).stdout
        )
        broken = [table for table in record["tables"] if table["error"]]
        if record["opened"] and broken and record["label_events"]:
            found = (record, broken)
            break
    if found is None:
        pytest.skip("no data block of this store breaks a table alone (DuckDB's layout)")
    record, broken = found
    assert not record["sound"]
    assert any(f"the table {broken[0]['name']} cannot be read" in p for p in record["problems"])
    assert "checksums" in broken[0]["error"]
    saved = tmp_path / "labels.jsonl"
    done = invoke("store", "check", "--db", str(labelled), "--save-labels", str(saved))
    assert done.exit_code == 1 and len(saved.read_text().splitlines()) == 2


def test_store_check_on_what_cannot_be_opened(tmp_path: Path) -> None:
    text_file = tmp_path / "notes.duckdb"
    text_file.write_text("hello\n")
    done = invoke("store", "check", "--db", str(text_file), "--save-labels", str(tmp_path / "l"))
    assert done.exit_code == 1
    assert "cannot be opened: this file is not a DuckDB database" in " ".join(done.stdout.split())
    assert "the labels cannot be read from this file: a backup is the only source" in done.stdout
    assert "nothing was saved" in done.stderr and not (tmp_path / "l").exists()
    missing = invoke("store", "check", "--db", str(tmp_path / "none.duckdb"))
    assert missing.exit_code == 1 and "there is no store here" in missing.stderr


def test_store_check_will_not_save_the_labels_over_the_store(labelled: Path) -> None:
    before = labelled.read_bytes()
    done = invoke("store", "check", "--db", str(labelled), "--save-labels", str(labelled))
    assert done.exit_code == 1 and "--save-labels names the store" in done.stderr
    assert labelled.read_bytes() == before


def test_a_dropped_table_is_named(labelled: Path) -> None:
    con = duckdb.connect(str(labelled))
    con.execute("DROP TABLE label_events")
    con.close()
    done = invoke("export-labels", "--db", str(labelled))
    assert done.exit_code == 1
    assert "the store is damaged: its table label_events is missing" in done.stderr
    checked = invoke("store", "check", "--db", str(labelled))
    assert checked.exit_code == 1 and "tables are missing: label_events" in checked.stdout


def test_a_file_that_is_not_duckdb_is_not_called_a_bug(tmp_path: Path) -> None:
    path = tmp_path / "empty.duckdb"
    path.write_bytes(b"")
    done = invoke("runs", "--db", str(path))
    assert done.exit_code == 1
    assert "this file is not a DuckDB database (empty, overwritten, or not a memscope store)" in (
        " ".join(done.stderr.split())
    )


def test_a_duckdb_file_of_another_program_is_not_a_half_made_store(tmp_path: Path) -> None:
    path = tmp_path / "other.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE datasets (x INTEGER)")
    con.close()
    done = invoke("runs", "--db", str(path))
    assert done.exit_code == 1
    assert "already has datasets but no memscope schema: it is not a memscope store" in (
        " ".join(done.stderr.split())
    )


def test_a_migration_failing_midway_leaves_the_store_at_its_version(
    labelled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memscope.errors import StoreError
    from memscope.store import migrations
    from memscope.store.migrations import Migration, applied_versions

    shipped = migrations.all_migrations()
    version = shipped[-1].version

    def fails_midway(con) -> None:
        con.execute("CREATE TABLE half_done (x INTEGER)")
        con.execute("INSERT INTO half_done VALUES (1)")
        con.execute("SELECT error('No space left on device')")

    with monkeypatch.context() as patch:
        patch.setattr(
            migrations,
            "all_migrations",
            lambda: [*shipped, Migration(version + 1, "m_next", fails_midway)],
        )
        # A read knows what is shipped from the modules' names: one more is shipped.
        names = migrations.shipped_versions() | {version + 1}
        patch.setattr(migrations, "shipped_versions", lambda: names)
        with pytest.raises(StoreError) as raised, Store(labelled).read():
            pass
    message = " ".join(raised.value.message.split())
    assert f"cannot upgrade the store to schema version {version + 1}" in message
    assert "No space left on device" in message
    assert f"Nothing was changed (it is still at version {version})" in message
    con = duckdb.connect(str(labelled), read_only=True)
    assert max(applied_versions(con)) == version
    tables = {row[0] for row in con.execute(TABLES).fetchall()}
    con.close()
    assert "half_done" not in tables and "label_events" in tables
    assert invoke("export-labels", "--db", str(labelled)).exit_code == 0


KILLED_MIGRATION = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from memscope.store import Store, migrations
    from memscope.store.migrations import Migration

    shipped = migrations.all_migrations()

    def slow(con):
        con.execute("CREATE TABLE half_done (x INTEGER)")
        print("MIDWAY", flush=True)
        time.sleep(120)

    # In the middle of a new store's migrations: some applied, one under way, some to come.
    middle = len(shipped) // 2
    steps = [*shipped[:middle], Migration(shipped[middle - 1].version, "slow", slow), *shipped[middle:]]
    migrations.all_migrations = lambda: steps
    with Store(Path(sys.argv[1])).write():  # reading a store that does not exist makes none
        pass
    """
)


def test_a_store_killed_between_migrations_is_left_as_it_was(tmp_path: Path) -> None:
    from memscope.store.migrations import all_migrations, applied_versions

    store_path = tmp_path / "killed.duckdb"
    process = subprocess.Popen(
        [sys.executable, "-c", KILLED_MIGRATION, str(store_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.strip() == "MIDWAY", line + process.stderr.read()
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    con = duckdb.connect(str(store_path), read_only=True)
    tables = {row[0] for row in con.execute(TABLES).fetchall()}
    assert applied_versions(con) == set()
    con.close()
    assert tables <= {"schema_migrations"}, tables  # nothing of the migrations
    assert invoke("runs", "--db", str(store_path)).exit_code == 0  # the next open migrates
    con = duckdb.connect(str(store_path), read_only=True)
    assert applied_versions(con) == {m.version for m in all_migrations()}
    con.close()


# -- 13. output streams ----------------------------------------------------------------------

PRINTING = [
    ["runs"],
    ["runs", "-f", "json"],
    ["report", "run"],
    ["report", "run", "-f", "json"],
    ["table", "run", "--format", "csv"],
    ["export-labels"],
    ["export-labels", "--format", "csv", "--out", "/dev/stdout"],
    ["suggest", "run"],
    ["--help"],
    ["--version"],
]


@pytest.mark.parametrize("args", PRINTING, ids=" ".join)
def test_a_reader_that_went_away_ends_the_command_quietly(labelled: Path, args: list[str]) -> None:
    process = subprocess.Popen(
        [MEMSCOPE, *args, *(["--db", str(labelled)] if args[0][0] != "-" else [])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env(),
    )
    assert process.stdout is not None
    process.stdout.close()  # `| head -0`: the reader is gone before the first line
    try:
        errors = process.communicate(timeout=TIMEOUT_S)[1].decode()
    finally:
        process.kill()
    assert process.returncode == 0, errors
    assert "error" not in errors and "Broken pipe" not in errors and "Exception" not in errors


@pytest.mark.parametrize("args", PRINTING[:6], ids=" ".join)
def test_a_closed_stdout_is_one_error(labelled: Path, args: list[str]) -> None:
    done = sh(f'"$MEMSCOPE" {" ".join(args)} --db "{labelled}" >&-')
    assert done.returncode == 1, done.stderr
    one_error(done.stderr)
    assert "standard output is closed, so the output has nowhere to go" in done.stderr


def test_a_closed_stdout_does_not_stop_a_command_that_prints_nothing(tmp_path: Path) -> None:
    run_dir = a_run(tmp_path, "quiet")
    store_path = tmp_path / "s.duckdb"
    done = sh(f'"$MEMSCOPE" ingest "{run_dir}" --db "{store_path}" >&-')
    assert done.returncode == 0, done.stderr
    assert "ingested quiet" in done.stderr
    version = sh('"$MEMSCOPE" --version >&-')
    assert version.returncode == 1 and "standard output is closed" in version.stderr


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_an_encoding_without_the_characters_degrades_to_stand_ins(
    labelled: Path, encoding: str
) -> None:
    for args in (["runs"], ["report", "run"], ["suggest", "run"], ["--help"]):
        done = memscope(
            *args,
            *(["--db", str(labelled)] if args[0][0] != "-" else []),
            env=env(PYTHONIOENCODING=encoding),
            encoding=encoding,
        )
        assert done.returncode == 0, done.stderr
        assert "Error" not in done.stderr and "Unicode" not in done.stderr, done.stderr
        done.stdout.encode(encoding)  # the output is the encoding's own
    report = memscope("report", "run", "--db", str(labelled), env=env(PYTHONIOENCODING="ascii"))
    assert "\u2013" not in report.stdout and "·" not in report.stdout


def test_json_under_an_ascii_encoding_is_the_same_json(tmp_path: Path, store_path: Path) -> None:
    assert invoke("ingest", str(a_run(tmp_path, "café–🙂"))).exit_code == 0
    plain = memscope("report", "café–🙂", "-f", "json")
    escaped = memscope("report", "café–🙂", "-f", "json", env=env(PYTHONIOENCODING="ascii"))
    assert plain.returncode == escaped.returncode == 0, escaped.stderr
    assert escaped.stdout.isascii() and "café–🙂" in plain.stdout
    assert json.loads(escaped.stdout) == json.loads(plain.stdout)


def test_the_ascii_stand_ins() -> None:
    from memscope.cli.streams import ERROR_HANDLER, ascii_json

    assert "q3 · 0.77 – X×Y → α≤1 🙂".encode("ascii", ERROR_HANDLER) == (
        b"q3 . 0.77 - XxY > a<=1 \\U0001f642"
    )
    assert json.loads(ascii_json('{"k": "é🙂"}'.encode())) == {"k": "é🙂"}


def test_a_deleted_working_directory_with_absolute_paths_works(tmp_path: Path) -> None:
    run_dir = a_run(tmp_path, relative_dialog=True)  # the dataset is looked for in the cwd too
    store_path = tmp_path / "s.duckdb"
    gone = tmp_path / "gone"
    gone.mkdir()
    script = f'mkdir -p "{gone}" && cd "{gone}" && rmdir "{gone}" && "$MEMSCOPE" '
    ingested = sh(script + f'ingest "{run_dir}" --db "{store_path}"')
    assert ingested.returncode == 0, ingested.stderr
    assert "ingested run" in ingested.stderr
    for args in (f'report "{run_dir}"', "runs", "export-labels", "label run -q q1 --code RET-MISS"):
        done = sh(script + f'{args} --db "{store_path}"')
        assert done.returncode == 0, (args, done.stderr)


@pytest.mark.parametrize(
    "args", ["runs", "report runs/run", "demo", "ingest runs/run"], ids=lambda a: a
)
def test_a_deleted_working_directory_when_it_is_needed_is_one_message(
    tmp_path: Path, args: str
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    done = sh(
        f'cd "{gone}" && rmdir "{gone}" && "$MEMSCOPE" {args}',
        env=env(MEMSCOPE=MEMSCOPE, MEMSCOPE_DB=None),
    )
    assert done.returncode == 1, done.stderr
    one_error(done.stderr)
    assert "the working directory no longer exists (it was deleted or moved away)" in (
        " ".join(done.stderr.split())
    )


# -- 16. why labelling is off ----------------------------------------------------------------


def _ready_line(run_dir: Path, extra_env: dict[str, str] | None = None, prefix=()) -> str:
    """Start the real app in its own process (Pilot, headless) and return its READY line."""
    process = subprocess.Popen(
        [*prefix, sys.executable, str(APP_PROCESS), str(run_dir), "alice", "q1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**env(), **(extra_env or {})},
        start_new_session=True,
    )
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            ready, _, _ = select.select([process.stdout], [], [], 1.0)
            if ready:
                line = process.stdout.readline()
                if line.startswith("READY") or not line:
                    return line
        raise AssertionError("the app did not start")
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)


def test_a_lock_path_that_is_a_folder_is_named(tmp_path: Path, store_path: Path) -> None:
    run_dir = a_run(tmp_path)
    assert invoke("ingest", str(run_dir)).exit_code == 0
    lock = store_path.with_name(store_path.name + ".app.lock")
    lock.mkdir()
    line = _ready_line(run_dir)
    assert f"the lock path {lock} is a folder, not memscope's lock file" in line, line
    assert "remove or rename that folder to label here" in line
    assert "another memscope app" not in line


def test_another_app_is_still_named_as_such(tmp_path: Path, store_path: Path) -> None:
    from memscope.store.lease import WriterLease

    run_dir = a_run(tmp_path)
    assert invoke("ingest", str(run_dir)).exit_code == 0
    holder = WriterLease(store_path, "bob")
    assert holder.acquire()
    try:
        line = _ready_line(run_dir)
    finally:
        holder.release()
    assert "another memscope app (bob (process" in line and "is labelling this store" in line


def _can_mount_read_only(folder: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        [
            "unshare",
            "-rm",
            "sh",
            "-c",
            f'mount --bind "{folder}" "{folder}" && '
            f'mount -o remount,bind,ro "{folder}" && ! touch "{folder}/probe"',
        ],
        capture_output=True,
        timeout=30,
    )
    return probe.returncode == 0


def test_a_read_only_file_system_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "readonly"
    folder.mkdir()
    if not _can_mount_read_only(folder):
        pytest.skip("no user namespaces here to mount a read-only folder")
    store_path = folder / "memscope.duckdb"
    run_dir = a_run(tmp_path)
    assert invoke("ingest", str(run_dir), "--db", str(store_path)).exit_code == 0
    mount = (
        f'mount --bind "{folder}" "{folder}" && mount -o remount,bind,ro "{folder}" && exec "$@"'
    )
    line = _ready_line(
        run_dir,
        {"MEMSCOPE_DB": str(store_path)},
        prefix=("unshare", "-rm", "sh", "-c", mount, "sh"),
    )
    assert f"the store's folder is on a read-only file system ({folder})" in line, line
    assert "copy the store somewhere writable and open the copy with --db to label" in line
    assert "another memscope app" not in line


def test_commands_on_a_read_only_file_system(tmp_path: Path) -> None:
    folder = tmp_path / "readonly"
    folder.mkdir()
    if not _can_mount_read_only(folder):
        pytest.skip("no user namespaces here to mount a read-only folder")
    store_path = folder / "memscope.duckdb"
    assert invoke("ingest", str(a_run(tmp_path)), "--db", str(store_path)).exit_code == 0
    mount = f'mount --bind "{folder}" "{folder}" && mount -o remount,bind,ro "{folder}"'
    done = subprocess.run(
        [
            "unshare",
            "-rm",
            "sh",
            "-c",
            f'{mount} && "$MEMSCOPE" report run --db "{store_path}" '
            f'>/dev/null && "$MEMSCOPE" label run -q q1 --code RET-MISS --db "{store_path}"',
        ],
        capture_output=True,
        text=True,
        env=env(MEMSCOPE=MEMSCOPE),
        timeout=TIMEOUT_S,
    )
    assert done.returncode == 1, done.stderr  # report read it; label could not write
    one_error(done.stderr)
    flat = " ".join(done.stderr.split())
    assert "Read-only file system" in flat and "its file cannot be written" in flat
