"""A read-only command never creates a store (issue 25, item 24).

``memscope runs`` in any folder used to leave an empty ``.memscope/`` behind. Every command
that only reads (runs, report, table of run ids, export-labels to stdout, agreement,
estimate, sample, suggest, compare, rerun, label on a run that is not there, plot, config)
now says there is no store here yet, or lists nothing, and the folder stays as it was.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memscope.cli import app
from memscope.store import Store

runner = CliRunner()

NO_STORE = "no store here yet"

# (arguments, exit code, what stderr says)
READ_ONLY = [
    (["runs"], 0, "No store here yet"),
    (["runs", "--format", "json"], 0, ""),
    (["report"], 1, NO_STORE),
    (["report", "srag_v"], 1, NO_STORE),
    (["table", "srag_v"], 1, NO_STORE),
    (["compare", "srag_t", "srag_v"], 1, NO_STORE),
    (["rerun", "--alpha", "0.7"], 1, NO_STORE),
    (["suggest", "srag_v"], 1, NO_STORE),
    (["sample", "srag_v"], 1, NO_STORE),
    (["estimate", "srag_v"], 1, NO_STORE),
    (["agreement", "srag_v", "--annotators", "alice", "bob"], 1, NO_STORE),
    (["export-labels"], 0, "no run in the store has labels yet"),
    (["export-labels", "--history"], 0, "no run in the store has labels yet"),
    (["export-labels", "srag_v"], 1, NO_STORE),
    (["label", "srag_v", "--question", "q1", "--code", "RET-MISS"], 1, NO_STORE),
    (["plot", "codes", "srag_v", "--out", "codes.svg"], 1, NO_STORE),
    (["config", "show"], 0, ""),
    (["config", "path"], 0, ""),
]


@pytest.fixture
def empty_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with no store at or above it, and no $MEMSCOPE_DB."""
    folder = tmp_path / "somewhere"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.delenv("MEMSCOPE_DB")
    return folder


def _tree(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


@pytest.mark.parametrize(
    ("args", "code", "says"), READ_ONLY, ids=[" ".join(case[0]) for case in READ_ONLY]
)
def test_a_read_only_command_creates_no_store(
    empty_folder: Path, isolated_env: Path, args: list[str], code: int, says: str
) -> None:
    home_before = _tree(isolated_env)
    result = runner.invoke(app, args)
    assert result.exit_code == code, result.output
    assert says in result.stderr
    assert "Traceback" not in result.output and "internal error" not in result.output
    assert _tree(empty_folder) == [], f"{args} wrote {_tree(empty_folder)}"
    assert _tree(isolated_env) == home_before  # nor a config file or folder


def test_runs_in_a_fresh_folder_says_so_and_leaves_it_empty(tmp_path: Path) -> None:
    """The headline case, as a user's shell runs it: a real process in a bare folder."""
    folder = tmp_path / "bare"
    folder.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "MEMSCOPE_DB"}
    done = subprocess.run(
        [sys.executable, "-m", "memscope", "runs"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert "No store here yet" in done.stderr and str(folder / ".memscope") in done.stderr
    assert list(folder.iterdir()) == []


def test_a_missing_store_reads_as_empty_and_a_write_creates_it(tmp_path: Path) -> None:
    store = Store(tmp_path / "new" / "memscope.duckdb")
    with store.read() as con:  # the current schema, no rows
        assert con.execute("SELECT count(*) FROM runs").fetchone() == (0,)
    with store.reading(), store.read() as con:
        assert con.execute("SELECT count(*) FROM label_events").fetchone() == (0,)
    assert not (tmp_path / "new").exists()
    with store.write() as con:
        con.execute("SELECT 1")
    assert store.exists


def test_the_app_without_a_run_or_a_store_says_so_before_it_starts(
    empty_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As in a terminal (the runner has none, and `open` refuses to start without one).
    monkeypatch.setattr("memscope.cli.streams.require_terminal", lambda command: None)
    result = runner.invoke(app, ["open"])
    assert result.exit_code == 1
    assert NO_STORE in result.stderr
    assert _tree(empty_folder) == []
