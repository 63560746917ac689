"""Processes take turns with the store through memscope's handoff lock (store/handoff.py),
not through DuckDB's file lock alone.

DuckDB's POSIX record lock is dropped when its process closes any descriptor of the file,
and taking turns through it lost committed labels (tests/robustness/test_durability.py
caught one in a few dozen runs). Here a real second process holds the store while it
drops DuckDB's lock the way POSIX does; memscope still keeps everyone else out.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest

from memscope.errors import StoreBusyError
from memscope.store import Store
from memscope.store.handoff import lock_path

HOLDER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from memscope.store import Store

    store = Store(Path(sys.argv[1]))
    with store.{scope}() as con:
        con.execute("SELECT count(*) FROM runs").fetchall()
        # Reading the file's first bytes and closing it drops DuckDB's POSIX lock.
        with open(sys.argv[1], "rb") as handle:
            handle.read(16)
        print("holding", flush=True)
        sys.stdin.readline()
    print("closed", flush=True)
    """
)


def hold(store_path: Path, scope: str) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER.format(scope=scope), str(store_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    line = holder.stdout.readline()
    assert line == "holding\n", holder.stderr.read() if holder.stderr else line
    return holder


def let_go(holder: subprocess.Popen[str]) -> None:
    output, errors = holder.communicate("\n", timeout=60)
    assert holder.returncode == 0 and output == "closed\n", errors


@pytest.fixture
def made(store: Store) -> Store:
    with store.write():
        pass
    return store


def test_a_writer_keeps_others_out_after_duckdbs_lock_is_gone(made: Store) -> None:
    holder = hold(made.path, "write")
    try:
        # DuckDB alone would let a second process in now:
        duckdb.connect(str(made.path), read_only=True).close()
        reader, writer = Store(made.path, wait_s=0.3), Store(made.path, wait_s=0.3)
        with pytest.raises(StoreBusyError, match="memscope process holds it for writing"):
            reader.read().__enter__()
        with pytest.raises(StoreBusyError, match="another memscope process holds it"):
            writer.write().__enter__()
    finally:
        let_go(holder)
    with Store(made.path, wait_s=0.3).write() as con:  # let go on close
        assert con.execute("SELECT count(*) FROM runs").fetchall() == [(0,)]


def test_readers_share_and_a_writer_waits_for_them(made: Store) -> None:
    holder = hold(made.path, "read")
    try:
        with Store(made.path, wait_s=0.3).read() as con:
            assert con.execute("SELECT count(*) FROM runs").fetchall() == [(0,)]
        with pytest.raises(StoreBusyError, match=r"another memscope process holds it \("):
            Store(made.path, wait_s=0.3).write().__enter__()
    finally:
        let_go(holder)
    with Store(made.path, wait_s=0.3).write():
        pass


def test_the_lock_file_sits_beside_the_store_and_an_empty_new_store_takes_it_along(
    store: Store,
) -> None:
    with store.write():
        assert lock_path(store.path).is_file()
    assert lock_path(store.path).name == store.path.name + ".lock"
    assert store.discard_if_empty(folder_too=True)
    assert not store.path.parent.exists()
