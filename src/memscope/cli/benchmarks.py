"""``memscope benchmarks``: the installed benchmarks (built-in and plugins) and any that failed."""

from __future__ import annotations

from rich.table import Table

from memscope.cli.app import SETUP, app, example
from memscope.cli.common import (
    FormatOption,
    OutputFormat,
    handles_errors,
    print_json,
    stdout,
    warn,
)
from memscope.textsafe import printable


@app.command(rich_help_panel=SETUP, epilog=example("memscope benchmarks --format json"))
@handles_errors
def benchmarks(output: FormatOption = OutputFormat.table) -> None:
    """List the benchmarks memscope can read: the built-in ones and every installed plugin
    (entry points of the `memscope.benchmarks` group, docs/benchmarks.md), with what marks
    their run directories, their axes and their own options; a plugin that could not be
    loaded is named with why."""
    from memscope.usecases.benchmarks import installed

    found = installed()
    if output is OutputFormat.json:
        print_json(found)
        return
    table = Table(title="Installed benchmarks", title_justify="left")
    for name in ("name", "benchmark", "a run directory holds", "axes", "options"):
        table.add_column(name, overflow="fold")
    for entry in found["benchmarks"]:
        table.add_row(
            printable(entry["name"], keep_newlines=False),
            printable(entry["title"], keep_newlines=False),
            printable(entry["run_files"], keep_newlines=False),
            printable(", ".join(entry["axes"]), keep_newlines=False),
            printable(", ".join(entry["options"]) or "–", keep_newlines=False),
        )
    stdout.print(table)
    for problem in found["problems"]:
        warn(f"benchmark {problem['name']!r} is not available: {problem['why']}")
