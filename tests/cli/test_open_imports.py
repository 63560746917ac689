"""A process started as ``memscope COMMAND`` imports that command's module, not every command's.

The CLI registers a command by importing its module; a process started as ``memscope open``
(the console script or ``python -m memscope``) imports the ``open`` module alone, so the
app's start pays for no other command, and so for every command (``COMMAND_MODULES``, which
a test holds against the registrations). Every other process (``memscope --help``, an
unknown command, the tests' in-process runner) still registers them all. Each check runs in
a fresh interpreter and looks at ``sys.modules``, or runs the command's help there.
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
    for argv in (["/usr/bin/memscope", "--help"], ["/usr/bin/memscope", "tabel", "x"], ["-c"]):
        loaded = cli_modules_after_import(argv)
        assert {"memscope.cli.open", *OTHER_COMMANDS} <= loaded, argv


def test_a_report_process_imports_only_the_report_command() -> None:
    loaded = cli_modules_after_import(["/usr/bin/memscope", "report", "x"])
    assert "memscope.cli.report" in loaded
    assert not loaded & {"memscope.cli.open", "memscope.cli.table", "memscope.cli.engine"}


def registered_modules() -> dict[str, set[str]]:
    """Each top-level command of the fully imported CLI, with the modules of its callbacks
    (a group's: every subcommand's)."""
    import importlib

    importlib.import_module("memscope.cli")  # every command module registers its commands
    from memscope.cli.app import app

    found: dict[str, set[str]] = {}
    for command in app.registered_commands:
        assert command.callback is not None
        name = command.name or command.callback.__name__.replace("_", "-")
        found[name] = {command.callback.__module__}
    for group in app.registered_groups:
        typer_app = group.typer_instance
        name = group.name or typer_app.info.name
        found[str(name)] = {
            sub.callback.__module__ for sub in typer_app.registered_commands if sub.callback
        }
    return found


def test_the_command_table_names_each_commands_module() -> None:
    from memscope.cli import COMMAND_MODULES

    expected = {name: {f"memscope.cli.{module}"} for name, module in COMMAND_MODULES.items()}
    assert registered_modules() == expected


def test_each_command_registered_alone_shows_its_help() -> None:
    """One command of each module, in a process that imports that module alone: its help
    is whole (the module needs no other command's import)."""
    from memscope.cli import COMMAND_MODULES

    one_per_module = {module: name for name, module in COMMAND_MODULES.items()}
    started = {
        name: subprocess.Popen(
            [sys.executable, "-m", "memscope", name, "--help"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "COLUMNS": "200"},
        )
        for name in one_per_module.values()
    }
    for name, process in started.items():
        shown, errors = process.communicate(timeout=120)
        assert process.returncode == 0, (name, errors)
        assert f"Usage: python -m memscope {name}" in shown, (name, shown)
        assert "--help" in shown and "Traceback" not in errors, name


def test_python_m_memscope_open_help_works() -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "memscope", "open", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "Triage a run in the terminal" in shown
    assert "Usage:" in shown


def test_reading_the_registry_imports_no_numpy() -> None:
    """Every command reads the benchmark registry at start (its options, its names); numpy
    (about 0.1 s) is imported only where a command computes with it, so ``memscope runs``,
    ``label`` or a ``--help`` do not pay for it."""
    probe = (
        "import sys\nfrom memscope.adapters.registry import benchmarks\n"
        "assert len(benchmarks()) >= 5\nprint('numpy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_a_command_that_prints_no_typer_error_loads_no_typer_rich_utils(tmp_path: Path) -> None:
    """Typer's help and error printer (Rich's Markdown with it, about 50 ms) is imported
    only when Typer prints; memscope's sanitising patch is applied when it is."""
    probe = (
        "import sys\nsys.argv = ['/usr/bin/memscope', 'runs']\nimport memscope.cli\n"
        "try:\n    memscope.cli.main()\nexcept SystemExit:\n    pass\n"
        "print('typer.rich_utils' in sys.modules, file=sys.stderr)"
    )
    env = {**os.environ, "MEMSCOPE_DB": str(tmp_path / "store.duckdb")}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env)
    assert done.stderr.strip().splitlines()[-1] == "False", done.stderr
