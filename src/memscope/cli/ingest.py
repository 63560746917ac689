"""``memscope ingest`` and ``memscope runs``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from memscope.cli.app import RUNS, app, example
from memscope.cli.common import (
    DatasetOption,
    DbOption,
    FormatOption,
    OutputFormat,
    ReadsRuns,
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
from memscope.cli.fitting import Column, FittingTable, fit
from memscope.cli.progress import progress_line
from memscope.textsafe import printable, printable_id

if TYPE_CHECKING:
    from memscope.usecases.runs.ingest import IngestFailure


@app.command(cls=ReadsRuns, rich_help_panel=RUNS, epilog=example("memscope ingest runs/"))
@handles_errors
def ingest(
    paths: Annotated[
        list[Path],
        typer.Argument(help="Run directories, or folders to search for runs.", show_default=False),
    ],
    dataset: DatasetOption = None,
    strict: Annotated[
        bool,
        typer.Option("--strict", help="Refuse a run with any bad line instead of skipping it."),
    ] = False,
    verify: Annotated[
        bool,
        typer.Option(
            "--verify",
            help="Hash every run's files even where their sizes and modification times are unchanged.",
        ),
    ] = False,
    reread: Annotated[
        bool,
        typer.Option(
            "--reread",
            help="Read and store every run again, changed or not (after a benchmark's reader changed).",
        ),
    ] = False,
    db: DbOption = None,
) -> None:
    """Ingest run directories into the store (every run below each PATH).

    An unchanged run is skipped: one whose files kept their sizes and modification times,
    read by the same version of its benchmark's reader, is not read again (--verify reads
    and hashes it all the same; --reread stores it again); a changed one replaces its old
    rows. Bad lines are reported as file:line and skipped (refused with --strict).
    """
    from memscope.usecases.runs.ingest import IngestFailure, ingest_paths
    from memscope.usecases.runs.store_access import IngestOutcome

    store = open_store(db)

    def report(result: IngestOutcome | IngestFailure) -> None:
        if isinstance(result, IngestFailure):
            if not result.below_root:  # those are listed together at the end
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
                (printable_id(result.run_id), "bold"),
                f" · {result.n_questions} questions · {printable_id(result.path)}",
            )
        )
        check = result.upstream_check
        if check and check.get("agrees"):  # a disagreement is one of the warnings above
            from memscope.usecases.report.build import upstream_sentence

            stderr.print(Text(f"  {upstream_sentence(check)}", style="green"))

    with progress_line(stderr, "ingesting runs") as progress:
        _, failures = ingest_paths(
            store,
            paths,
            replace(read_options(dataset), reread=reread),
            strict=strict,
            verify=verify,
            on_outcome=report,
            on_progress=progress,
        )
    from memscope.usecases.benchmarks import plugin_failures

    # A plugin's sniff that failed or claimed another reader's folder is said, named.
    for name, why in sorted(plugin_failures().items()):
        warn(f"benchmark {name!r}: {why}")
    if failures:
        _summarise_skipped([failure for failure in failures if failure.below_root])
        stderr.print(f"{len(failures)} run(s) could not be ingested.")
        raise typer.Exit(1)


NOT_RECORDED = {"task": "–", "model": "–", "method": "–"}
"""What the runs list shows where a run file names no task, model or method (DMV-Bench's
logs name no model): a dash, as for any value memscope does not have, never a blank."""


SKIPPED_LISTED = 20
"""How many skipped folders the summary names (the rest are counted by reason)."""


def _summarise_skipped(skipped: list[IngestFailure]) -> None:
    """One summary of the folders below the paths given that could not be read as runs:
    each with why (the first :data:`SKIPPED_LISTED`), the rest counted per reason."""
    if not skipped:
        return
    stderr.print(
        f"[bold red]error:[/] {len(skipped)} folder(s) could not be read as runs:",
        highlight=False,
    )
    for failure in skipped[:SKIPPED_LISTED]:
        stderr.print(
            f"  {printable_id(failure.path)}: {printable(failure.error.what)}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    rest = skipped[SKIPPED_LISTED:]
    if rest:
        reasons: dict[str, int] = {}
        for failure in rest:
            reasons[failure.error.what] = reasons.get(failure.error.what, 0) + 1
        stderr.print(
            f"  … and {len(rest)} more: "
            + "; ".join(f"{count} × {printable(why)}" for why, count in reasons.items()),
            markup=False,
            highlight=False,
            soft_wrap=True,
        )


@app.command(rich_help_panel=RUNS, epilog=example("memscope runs --format json"))
@handles_errors
def runs(db: DbOption = None, output: FormatOption = OutputFormat.table) -> None:
    """List the ingested runs: each with its benchmark's own headline score (EM, DMV-Bench's
    TSR, CUE-Mem's accuracy) and mean judge score."""
    from datetime import datetime

    from memscope.usecases.benchmarks import headline_name
    from memscope.usecases.labels.instants import utc_text
    from memscope.usecases.runs.store_access import list_runs

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
        where = printable(str(store.path), keep_newlines=False)
        stderr.print(
            f"No runs in {where} yet. Ingest one with `memscope ingest RUN_DIR`."
            if store.exists
            else f"No store here yet ({where} does not exist): nothing is ingested. "
            "`memscope ingest RUN_DIR` creates it (or name one with --db PATH).",
            markup=False,
        )
        return
    shared = {
        name: rows[0][name]
        for name in ("task", "model")
        if len({row[name] for row in rows}) == 1 and rows[0][name] is not None
    }
    title = f"Runs in {store.path}" + "".join(
        f" · {name} {value}" for name, value in shared.items()
    )
    columns = [
        name
        for name in ("task", "model", "method", "harness")
        if name not in shared and any(row.get(name) is not None for row in rows)
    ]
    # Past the terminal's width whole columns go, scores last: none is ever cut short.
    table = FittingTable(
        [
            Column("run", justify="left", style="bold", fold=True, min_width=12, keep=True),
            *(
                Column(name, justify="left", fold=True, min_width=7, rank=3 + index)
                for index, name in enumerate(columns)
            ),
            Column("n", rank=1),
            Column("score", rank=0),
            Column("Judge", rank=2),
            Column("retrieval", justify="left", rank=6),
        ],
        title=printable(title, keep_newlines=False),
        title_justify="left",
    )
    for row in rows:
        table.add_row(
            Text(printable_id(row["run_id"])),
            *(
                Text(printable(row.get(name) or NOT_RECORDED.get(name, "–"), keep_newlines=False))
                for name in columns
            ),
            str(row["n_questions"]),
            f"{headline_name(row['benchmark'])} {fmt(row['em'])}",
            fmt(row["judge"]) if row["n_judged"] else "–",
            row["retrieval_kind"] or "",
        )
    stdout.print(fit(table))
