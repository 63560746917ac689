"""The Typer application object every command module registers on."""

from __future__ import annotations

import typer

from memscope.distribution import install_command

TRIAGE = "Triage"
RUNS = "Runs and reports"
DIAGNOSE = "Diagnose"
LABELS = "Labels"
ENGINE = "Memory engine (needs " + install_command("engine").replace("[", "\\[") + ")"
SETUP = "Setup"
"""Help panels: ``memscope --help`` groups the commands by what they are for."""

EXAMPLE = "Example: "
"""How the last line of every command's help starts (tests/cli/test_help.py parses the rest)."""


def example(command_line: str) -> str:
    """A help epilog: one example invocation, the last line of the command's ``--help``."""
    return f"{EXAMPLE}`{command_line}`"


app = typer.Typer(
    name="memscope",
    help=(
        "Diagnose why multimodal agent-memory benchmark questions fail: evidence chains, "
        "recency re-ranking and failure labels, in the terminal.\n\n"
        "Start with `memscope demo`. The memory engine's commands (index, retrieve, recompute, "
        f"search, rerun --requery) need `{install_command('engine')}`."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
    epilog=example("memscope open runs/srag_v/ --question q37"),
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        from memscope import __version__
        from memscope.cli.common import echo, fail
        from memscope.errors import MemscopeError

        try:  # through the CLI's console: a closed stdout or a broken pipe (cli/streams.py)
            echo(f"memscope {__version__}")
        except MemscopeError as error:
            fail(error)
            raise typer.Exit(error.exit_code) from None
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        help="Print memscope's version and exit.",
        callback=_print_version,
        is_eager=True,
    ),
) -> None:
    """Diagnose why multimodal agent-memory benchmark questions fail: evidence chains,
    recency re-ranking and failure labels, in the terminal."""
