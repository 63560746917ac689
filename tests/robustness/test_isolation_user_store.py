"""The clone's store is the user's too (issue 41.19): the suite blames a change there on a
test only when the test reached it, so using memscope beside a running suite is no
failure, while a test that writes into the store, or starts a process that would find it,
still fails the run.

Each case runs the real ``tests/conftest.py`` and ``tests/isolation.py`` in a copy of the
test tree (a fake clone in a temp folder), as ``test_process_and_store`` does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from isolation import StoreTouches, Watched, changes, snapshot
from support import SUPPORT_FILES

ROOT = Path(__file__).parents[2]
TIMEOUT_S = 120

INNER_TESTS = """
import os, subprocess, sys, time
from pathlib import Path

CLONE = Path(__file__).parents[1]

def test_while_the_user_works(tmp_path):
    Path(os.environ["USER_GO"]).write_text("go")
    for _ in range(600):
        if Path(os.environ["USER_DONE"]).exists():
            break
        time.sleep(0.05)
    assert Path(os.environ["USER_DONE"]).exists()

def test_leaks():
    (CLONE / ".memscope" / "leak.duckdb").write_text("a test's run")

def test_starts_memscope_in_the_clone():
    env = {k: v for k, v in os.environ.items() if k != "MEMSCOPE_DB"}
    script = "open('.memscope/child.duckdb', 'w').write('x')"
    subprocess.run([sys.executable, "-c", script], cwd=CLONE, env=env, check=True)
"""

USER = """
import sys, time
from pathlib import Path
go, done, store = map(Path, sys.argv[1:])
while not go.exists():
    time.sleep(0.02)
(store / "memscope.duckdb").write_text("the user's ingest, grown")
(store / "memscope.duckdb.wal").write_text("the user's open app")
done.write_text("done")
"""


def fake_clone(root: Path) -> Path:
    (root / "tests").mkdir(parents=True)
    for name in SUPPORT_FILES:
        shutil.copy(ROOT / "tests" / name, root / "tests" / name)
    (root / "tests" / "test_inner.py").write_text(textwrap.dedent(INNER_TESTS))
    (root / ".memscope").mkdir()
    (root / ".memscope" / "memscope.duckdb").write_text("the user's store")
    return root


def run_inner(clone: Path, *select: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *select],
        cwd=clone,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src"), **extra},
        timeout=TIMEOUT_S,
    )


def test_the_users_own_use_of_the_store_is_not_blamed_on_a_test(tmp_path: Path) -> None:
    clone = fake_clone(tmp_path / "clone")
    go, done = tmp_path / "go", tmp_path / "done"
    user = subprocess.Popen(  # the user's memscope in another terminal: not started by the suite
        [sys.executable, "-c", USER, str(go), str(done), str(clone / ".memscope")]
    )
    try:
        ran = run_inner(
            clone,
            "tests/test_inner.py::test_while_the_user_works",
            USER_GO=str(go),
            USER_DONE=str(done),
        )
    finally:
        user.wait(timeout=TIMEOUT_S)
    assert (clone / ".memscope" / "memscope.duckdb.wal").is_file()
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "1 passed" in ran.stdout


def test_a_test_that_reaches_the_store_still_fails(tmp_path: Path) -> None:
    clone = fake_clone(tmp_path / "clone")
    select = [
        f"tests/test_inner.py::{name}"
        for name in ("test_leaks", "test_starts_memscope_in_the_clone")
    ]
    ran = run_inner(clone, *select)
    out = ran.stdout
    assert ran.returncode == 1, out + ran.stderr
    assert "ERROR at teardown of test_leaks" in out, out
    assert f"created {clone / '.memscope' / 'leak.duckdb'}" in out
    assert "ERROR at teardown of test_starts_memscope_in_the_clone" in out, out
    assert "without MEMSCOPE_DB" in out and "child.duckdb" in out, out
    assert "the test run changed files outside its temp folders" in out


def test_a_change_is_blamed_only_with_a_touch(tmp_path: Path) -> None:
    """The pieces: without a touch the store's changes are left out, with one they are
    named along with what reached the store."""
    store = tmp_path / ".memscope"
    store.mkdir()
    watched = [Watched(store)]
    before = snapshot(watched)
    (store / "memscope.duckdb").write_text("changed")
    assert changes(before, snapshot(watched), [], store=store) == []
    touches = StoreTouches(store, tmp_path)
    touches.hook("open", (str(store / "memscope.duckdb"), "w", 0))
    touches.hook("open", (str(tmp_path / "elsewhere.txt"), "w", 0))
    touches.hook("os.listdir", (str(store),))  # looking is not touching
    assert len(touches.since(0)) == 1
    assert changes(before, snapshot(watched), touches.since(0), store=store) == [
        f"created {store / 'memscope.duckdb'}",
        f"reached the store: open {str(store / 'memscope.duckdb')!r}",
    ]
    assert changes(before, snapshot(watched)) == [f"created {store / 'memscope.duckdb'}"]
