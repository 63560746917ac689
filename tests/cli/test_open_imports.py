"""``memscope open`` imports its own command module, not every command's.

The CLI registers a command by importing its module; a process started as ``memscope open``
(the console script or ``python -m memscope``) imports the ``open`` module alone, so the
app's start pays for no other command. Every other process (``memscope --help``, another
command, the tests' in-process runner) still registers them all. Each check runs in a fresh
interpreter and looks at ``sys.modules``.
"""

from __future__ import annotations

import subprocess
import sys

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
