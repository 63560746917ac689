"""``memscope demo [DIR]``: write the shipped demo benchmark and its runs, and say how to open it."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer

from memscope.cli.app import TRIAGE, app, example
from memscope.cli.common import handles_errors, stderr, stdout


@app.command(rich_help_panel=TRIAGE, epilog=example("memscope demo ./memscope-demo"))
@handles_errors
def demo(
    directory: Annotated[
        Path,
        typer.Argument(help="Folder to write the demo into.", show_default=True),
    ] = Path("memscope-demo"),
    force: Annotated[
        bool,
        typer.Option("--force", help="Write the demo over a folder that already has one."),
    ] = False,
) -> None:
    """Write the demo (a small simulated MemEye benchmark with five runs, plus CUE-Mem and
    DMV-Bench runs) into DIR, and print the command that opens it.

    The files come with memscope: no repository clone, no download. Inside DIR the
    README's commands work as written (`memscope report runs/srag_v/`, ...).
    """
    from memscope.usecases.runs.demo import FIRST_RUN, write_demo

    copy = write_demo(directory, force=force)
    stderr.print(
        f"wrote the demo ({copy.n_files} files: fixtures/ and {len(copy.runs)} runs in runs/) "
        f"to {directory}",
        markup=False,
    )
    stdout.print(f"cd {shlex.quote(str(directory))} && memscope open {FIRST_RUN}/", markup=False)
