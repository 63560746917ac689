"""``memscope open``: the triage app on one run (or two, compared).

Textual and the image renderer are imported only inside the command, so ``import
memscope.cli`` stays light (tests/unit/test_architecture.py); ``tui.launch`` is the CLI's one
way into the app.
"""

from __future__ import annotations

from typing import Annotated

import typer

from memscope.cli.app import TRIAGE, app, example
from memscope.cli.common import (
    DatasetOption,
    DbOption,
    ReadsRuns,
    handles_errors,
    read_options,
    stderr,
)
from memscope.cli.sample import SampleFor
from memscope.cli.sample_options import AllocationOption, SeedOption, SizeOption, StrataOption


@app.command(
    "open",
    cls=ReadsRuns,
    rich_help_panel=TRIAGE,
    epilog=example("memscope open runs/srag_v/ --question q37"),
)
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
        typer.Option(
            "--queue",
            help="failing, all, unlabelled or sample (a stratified random sample of the failures). "
            "Default: the queue (and filter) this run was left on last time, else failing.",
            show_default=False,
        ),
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
    seed: SeedOption = None,
    strata: StrataOption = None,
    sample_size: SizeOption = None,
    allocation: AllocationOption = None,
    sample_for: Annotated[
        SampleFor,
        typer.Option(
            "--for",
            help="With --queue sample: failures (the failure sample, to label) or verdicts "
            "(the verdict sample drawn by `memscope sample RUN --for verdicts`, to judge).",
        ),
    ] = SampleFor.failures,
    dataset: DatasetOption = None,
    db: DbOption = None,
) -> None:
    """Triage a run in the terminal: step through evidence chains, re-rank, label.

    Ingests the run directory first when it is new or changed; a directory that holds
    several runs (the systems of a DMV-Bench directory, a folder of runs) opens the Runs
    screen with exactly the runs under it. Keys: j/k next/previous,
    enter accept the suggestion, 1-9 toggle failure codes, [ ] recency weight, c caption
    vs native, ? every key. Labels are committed as you make them. --queue sample
    steps through a stratified random sample of the failures (--seed, --strata
    cell|y|code, --sample-size N, --allocation proportional|neyman; see `memscope sample`);
    --queue sample --for verdicts steps through the run's verdict sample (v sets a verdict).
    """
    from memscope.errors import InputError

    refs = list(runs or [])
    if len(refs) > 2:
        raise InputError(
            f"open takes one run, or two to compare; got {len(refs)}",
            fix="Pass RUN_DIR, or RUN_A RUN_B for comparison mode.",
        )
    sampling = {
        "--seed": seed,
        "--strata": strata,
        "--sample-size": sample_size,
        "--allocation": allocation,
    }
    given = [name for name, value in sampling.items() if value is not None]
    if given and queue != "sample":
        raise InputError(
            f"{', '.join(given)} go(es) with --queue sample", fix="Add --queue sample."
        )
    if sample_for is SampleFor.verdicts:
        if queue != "sample":
            raise InputError("--for verdicts goes with --queue sample", fix="Add --queue sample.")
        if given:
            raise InputError(
                f"{', '.join(given)} shape(s) the failure sample, not the verdict sample",
                fix="Draw the verdict sample with `memscope sample RUN --for verdicts --n N`.",
            )
    # Checked here, in the CLI, not in the app: tests drive the app headless (run_test).
    from memscope.cli.streams import require_terminal

    require_terminal("memscope open")
    from memscope.tui.launch import OpenRequest, SampleRequest, run_triage_app

    request = OpenRequest(
        refs,
        question=question,
        queue=queue,
        cell=cell,
        annotator=annotator,
        options=read_options(dataset),
        db=db,
        sample=SampleRequest(seed, strata, sample_size, allocation, sample_for.value)
        if queue == "sample"
        else None,
    )
    summary = run_triage_app(request)
    if summary:
        stderr.print(summary, markup=False)
