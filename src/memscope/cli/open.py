"""``memscope open``: the triage app on one run (or two, compared).

Textual and the image renderer are imported only inside the command, so ``import
memscope.cli`` stays light (tests/test_architecture.py).
"""

from __future__ import annotations

from typing import Annotated

import typer

from memscope.cli.app import TRIAGE, app
from memscope.cli.common import DatasetOption, DbOption, DmvRegistryOption, handles_errors, stderr


@app.command("open", rich_help_panel=TRIAGE)
@handles_errors
def open_command(
    runs: Annotated[
        list[str] | None,
        typer.Argument(
            help="Run directory, DIR:PART or run id; a second one opens comparison mode (default: the run opened last). "
            "A directory holding several runs (a DMV-Bench directory, a folder of runs) lists exactly those.",
            show_default=False,
        ),
    ] = None,
    question: Annotated[
        str | None,
        typer.Option("--question", help="Start on this question (e.g. q37).", show_default=False),
    ] = None,
    queue: Annotated[
        str | None,
        typer.Option("--queue", help="failing (default), all or unlabelled.", show_default=False),
    ] = None,
    cell: Annotated[
        str | None,
        typer.Option(
            "--cell",
            help="Only the questions of one MemEye X×Y cell, e.g. X4Y3 (CUE-Mem and DMV-Bench: "
            "filter in the queue, e.g. evidence:implicit or reach:2).",
            show_default=False,
        ),
    ] = None,
    annotator: Annotated[
        str | None,
        typer.Option(
            "--annotator",
            help="Name recorded on labels (default: config, else you).",
            show_default=False,
        ),
    ] = None,
    dataset: DatasetOption = None,
    dmv_registry: DmvRegistryOption = None,
    db: DbOption = None,
) -> None:
    """Triage a run in the terminal: step through evidence chains, re-rank, label.

    Ingests the run directory first when it is new or changed; a directory that holds
    several runs (the systems of a DMV-Bench directory, a folder of runs) opens the Runs
    screen with exactly the runs under it. Keys: j/k next/previous,
    enter accept the suggestion, 1-9 toggle failure codes, [ ] recency weight, c caption
    vs native, ? every key. Labels are committed as you make them.
    """
    from memscope.errors import InputError

    refs = list(runs or [])
    if len(refs) > 2:
        raise InputError(
            f"open takes one run, or two to compare; got {len(refs)}",
            fix="Pass RUN_DIR, or RUN_A RUN_B for comparison mode.",
        )
    from memscope.pipeline.triage_session import check_refs
    from memscope.tui.app import make_app
    from memscope.tui.widgets.image_preview import ImagePreview, load_renderer

    triage_app = make_app(
        refs,
        question=question,
        queue=queue,
        cell=cell,
        annotator=annotator,
        dataset=dataset,
        dmv_registry=dmv_registry,
        db=db,
    )
    check_refs(triage_app.store, refs)
    # textual-image asks the terminal what it can draw; that is only possible before Textual starts.
    ImagePreview.renderer = load_renderer()
    triage_app.run()
    from memscope.tui.export_action import quit_summary

    summary = quit_summary(triage_app)
    if summary:
        stderr.print(summary, markup=False)
