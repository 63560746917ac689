"""``memscope store check``: whether the store is sound, and what to do when it is not."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from memscope.cli.app import SETUP, app, example
from memscope.cli.common import (
    DbOption,
    FormatOption,
    OutputFormat,
    handles_errors,
    open_store,
    print_json,
    stderr,
    stdout,
)
from memscope.textsafe import printable

if TYPE_CHECKING:
    from memscope.usecases.runs.store_check import StoreHealth

store_app = typer.Typer(
    help="Check the store (the DuckDB file).",
    no_args_is_help=True,
    epilog=example("memscope store check"),
)
app.add_typer(store_app, name="store", rich_help_panel=SETUP)


@store_app.command("check", epilog=example("memscope store check --save-labels labels.jsonl"))
@handles_errors
def store_check(
    save_labels: Annotated[
        Path | None,
        typer.Option(
            "--save-labels",
            help="Also write what people made (label events with their notes, verdict events, "
            "sample plans) to this JSON lines file (for import-labels), reading only those "
            "tables: it works when the rest of the store is damaged. A terminal, pipe or "
            "device is written through, never replaced.",
            show_default=False,
        ),
    ] = None,
    output: FormatOption = OutputFormat.table,
    db: DbOption = None,
) -> None:
    """Check the store without changing it: can it be opened, is its schema whole, can
    every table be read to the last value, can the labels be saved. Exit 0 when it is
    sound, 1 when not (with the steps to take).

    Example: `memscope store check --db .memscope/memscope.duckdb --save-labels labels.jsonl`
    """
    from memscope.usecases.runs.store_check import (
        check_store,
        health_record,
        next_steps,
        save_human_input,
    )

    store = open_store(db)
    health = check_store(store)
    saved = None
    readable = any(rows is not None for rows in health.human_rows.values())
    if save_labels is not None and readable:
        saved = save_human_input(store, health, save_labels)
        stderr.print(f"saved {saved.summary()} to {save_labels}", markup=False)
    if output is OutputFormat.json:
        print_json(health_record(health, saved))
    else:
        _print_health(health, next_steps(health, saved=saved))
    if save_labels is not None and saved is None:
        stderr.print(
            "[bold red]error:[/] the labels cannot be read from this store; nothing was saved "
            f"to {escape(printable(str(save_labels)))}"
        )
    elif saved is not None and saved.unreadable:
        stderr.print(
            "[bold red]error:[/] some of what people made cannot be read and was not saved: "
            + ", ".join(saved.unreadable)
        )
    if not health.sound or (save_labels is not None and (saved is None or saved.unreadable)):
        raise typer.Exit(1)


def _schema_line(recorded: list[int]) -> str:
    """The schema in words: current (every migration this memscope ships, named), the
    upgrades still to apply, or versions newer than this memscope knows. Version numbers
    skipped in development were never shipped, so a gap is not a missing upgrade."""
    from memscope.usecases.runs.store_check import shipped_names

    shipped = shipped_names()
    done = set(recorded)
    newer = sorted(version for version in done if version > max(shipped, default=0))
    if newer:
        return (
            f"versions up to {max(newer)} recorded, newer than this memscope's "
            f"{max(shipped)}: a newer memscope wrote it"
        )
    named = ", ".join(f"{version} {name}" for version, name in shipped.items())
    missing = [f"{version} {name}" for version, name in shipped.items() if version not in done]
    if not done:
        return "none recorded"
    if not missing:
        return f"current: all {len(shipped)} migrations of this memscope applied ({named})"
    return f"{len(missing)} of {len(shipped)} migrations not yet applied ({', '.join(missing)})"


def _print_health(health: StoreHealth, steps: list[str]) -> None:
    from memscope.usecases.runs.store_check import HUMAN_TABLES

    size = f"{health.size / 1e6:.1f} MB" if health.size >= 100_000 else f"{health.size} bytes"
    stdout.print(f"store {health.path} ({size})", markup=False)
    if health.opened:
        stdout.print(f"  schema: {_schema_line(health.versions)}", markup=False)
        if health.outdated and health.sound:
            stdout.print("  older schema: memscope upgrades it on first use", markup=False)
        readable = [table for table in health.tables if table.error is None]
        rows = sum(table.rows or 0 for table in readable)
        stdout.print(
            f"  tables: {len(readable)} of {len(health.tables)} read to the end ({rows:,} rows)",
            markup=False,
        )
        labels = (
            f"{health.label_events} event(s), readable"
            if health.labels_readable
            else "cannot be read"
        )
        stdout.print(f"  labels: {labels}", markup=False)
        others = [
            f"{rows} {HUMAN_TABLES[table]}" if rows is not None else f"{table} cannot be read"
            for table, rows in health.human_rows.items()
            if table != "label_events" and rows != 0
        ]
        if others:
            stdout.print(f"  also made by people: {', '.join(others)}", markup=False)
    if health.sound:
        stdout.print("the store is sound", markup=False)
        return
    stdout.print(f"[bold red]the store has {len(health.problems)} problem(s):[/]")
    for problem in health.problems:
        stdout.print(f"  - {escape(printable(problem))}")
    stdout.print("what to do:", markup=False)
    for number, step in enumerate(steps, start=1):
        stdout.print(f"  {number}. {step}", markup=False)
