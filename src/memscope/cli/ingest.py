"""``memscope ingest`` and ``memscope runs``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from memscope.cli.app import RUNS, app
from memscope.cli.common import (
    DatasetOption,
    DbOption,
    DmvRegistryOption,
    FormatOption,
    OutputFormat,
    fail,
    fmt,
    handles_errors,
    open_store,
    print_json,
    read_options,
    stderr,
    stdout,
    warn,
)
from memscope.textsafe import printable


@app.command(rich_help_panel=RUNS)
@handles_errors
def ingest(
    paths: Annotated[
        list[Path],
        typer.Argument(help="Run directories, or folders to search for runs.", show_default=False),
    ],
    dataset: DatasetOption = None,
    dmv_registry: DmvRegistryOption = None,
    strict: Annotated[
        bool,
        typer.Option("--strict", help="Refuse a run with any bad line instead of skipping it."),
    ] = False,
    db: DbOption = None,
) -> None:
    """Ingest run directories into the store (every run below each PATH).

    An unchanged run is skipped; a changed one replaces its old rows. Bad lines are
    reported as file:line and skipped (refused with --strict).
    """
    from memscope.usecases.runs import IngestFailure, ingest_paths
    from memscope.usecases.store_access import IngestOutcome

    store = open_store(db)

    def report(result: IngestOutcome | IngestFailure) -> None:
        if isinstance(result, IngestFailure):
            fail(result.error)
            return
        for notice in result.notices:
            warn(notice)
        verb = {"new": "ingested", "replaced": "re-ingested (changed)", "unchanged": "unchanged"}[
            result.status
        ]
        stderr.print(
            Text.assemble(
                f"{verb} ",
                (printable(result.run_id, keep_newlines=False), "bold"),
                f" · {result.n_questions} questions · {printable(result.path, keep_newlines=False)}",
            )
        )
        check = result.upstream_check
        if check and check.get("agrees"):  # a disagreement is one of the warnings above
            from memscope.usecases.report import upstream_sentence

            stderr.print(Text(f"  {upstream_sentence(check)}", style="green"))

    _, failures = ingest_paths(
        store, paths, read_options(dataset, dmv_registry), strict=strict, on_outcome=report
    )
    if failures:
        stderr.print(f"{len(failures)} run(s) could not be ingested.")
        raise typer.Exit(1)


@app.command(rich_help_panel=RUNS)
@handles_errors
def runs(db: DbOption = None, output: FormatOption = OutputFormat.table) -> None:
    """List the ingested runs."""
    from datetime import datetime

    from memscope.usecases.instants import utc_text
    from memscope.usecases.store_access import list_runs

    store = open_store(db)
    rows = list_runs(store)
    if output is OutputFormat.json:
        print_json(
            [
                {
                    key: utc_text(value)  # stored times are UTC: say so
                    if isinstance(value, datetime)
                    else (value.isoformat() if hasattr(value, "isoformat") else value)
                    for key, value in row.items()
                }
                for row in rows
            ]
        )
        return
    if not rows:
        stderr.print(f"No runs in {store.path} yet. Ingest one with `memscope ingest RUN_DIR`.")
        return
    shared = {
        name: rows[0][name]
        for name in ("task", "model")
        if len({row[name] for row in rows}) == 1 and rows[0][name] is not None
    }
    title = f"Runs in {store.path}" + "".join(
        f" · {name} {value}" for name, value in shared.items()
    )
    table = Table(title=printable(title, keep_newlines=False), title_justify="left")
    table.add_column("run", overflow="fold", style="bold", min_width=12)
    columns = [
        name
        for name in ("task", "model", "method")
        if name not in shared and any(row[name] is not None for row in rows)
    ]
    for name in columns:
        table.add_column(name, overflow="fold", min_width=8)
    for name in ("n", "EM", "Judge"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("retrieval", no_wrap=True)
    for row in rows:
        table.add_row(
            Text(printable(row["run_id"], keep_newlines=False)),
            *(Text(printable(row[name] or "", keep_newlines=False)) for name in columns),
            str(row["n_questions"]),
            fmt(row["em"]),
            fmt(row["judge"]) if row["n_judged"] else "–",
            row["retrieval_kind"] or "",
        )
    stdout.print(table)
