"""``memscope open`` and ``memscope ingest`` import their own command module, not every command's.

The CLI registers a command by importing its module; a process started as ``memscope open``
(the console script or ``python -m memscope``) imports the ``open`` module alone, so the
app's start pays for no other command. Every other process (``memscope --help``, another
command, the tests' in-process runner) still registers them all. Each check runs in a fresh
interpreter and looks at ``sys.modules``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

OTHER_COMMANDS = ("memscope.cli.report", "memscope.cli.table", "memscope.cli.ingest")


def cli_modules_after_import(argv: list[str]) -> set[str]:
    """The ``memscope.cli`` modules loaded by importing the CLI in a process whose argv is
    ``argv`` (as the console script sees it)."""
    probe = (
        f"import sys\nsys.argv = {argv!r}\nimport memscope.cli\n"
        "print('\\n'.join(m for m in sys.modules if m.startswith('memscope.cli.')))"
    )
    output = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return set(output.split())


def test_memscope_open_imports_only_its_own_command() -> None:
    loaded = cli_modules_after_import(["/usr/bin/memscope", "open", "runs/srag_v"])
    assert "memscope.cli.open" in loaded
    assert not loaded & set(OTHER_COMMANDS), loaded & set(OTHER_COMMANDS)


def test_memscope_ingest_imports_only_its_own_command() -> None:
    loaded = cli_modules_after_import(["/usr/bin/memscope", "ingest", "runs/"])
    assert "memscope.cli.ingest" in loaded
    others = {"memscope.cli.open", "memscope.cli.report", "memscope.cli.table"}
    assert not loaded & others, loaded & others


def test_memscope_ingest_alone_still_ingests_and_explains(tmp_path) -> None:
    """The ``ingest`` command registered alone parses, runs and reports as with them all."""
    env = {**os.environ, "MEMSCOPE_DB": str(tmp_path / "store.duckdb")}
    runs = Path(__file__).resolve().parents[2] / "runs" / "srag_v"
    done = subprocess.run(
        [sys.executable, "-m", "memscope", "ingest", str(runs)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "ingested" in done.stderr + done.stdout
    wrong = subprocess.run(
        [sys.executable, "-m", "memscope", "ingest", "--no-such-flag"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert wrong.returncode == 2 and "No such option" in wrong.stderr
    assert "Traceback" not in wrong.stderr


def test_other_processes_register_every_command() -> None:
    for argv in (["/usr/bin/memscope", "--help"], ["/usr/bin/memscope", "report", "x"], ["-c"]):
        loaded = cli_modules_after_import(argv)
        assert {"memscope.cli.open", *OTHER_COMMANDS} <= loaded, argv


def test_python_m_memscope_open_help_works() -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "memscope", "open", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "Triage a run in the terminal" in shown
    assert "Usage:" in shown
