"""``memscope plot``: paper figures (svg, png, pdf) with matplotlib."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memscope.cli.app import RUNS, app, example
from memscope.cli.common import DbOption, handles_errors, open_store, stderr
from memscope.textsafe import printable_id


@app.command(
    rich_help_panel=RUNS, epilog=example("memscope plot recency srag_v srag_t --out recency.svg")
)
@handles_errors
def plot(
    kind: Annotated[
        str,
        typer.Argument(
            help="heatmap, recency, codes, figure (each run's benchmark's own), or a "
            "benchmark's own figure by its name: retention (DMV-Bench), cue (CUE-Mem).",
            show_default=False,
        ),
    ],
    runs: Annotated[list[str], typer.Argument(help="Run ids or directories.", show_default=False)],
    out: Annotated[
        Path,
        typer.Option("--out", "-o", help="The figure: FILE.svg, .png or .pdf.", show_default=False),
    ],
    metric: Annotated[
        str | None,
        typer.Option(
            "--metric",
            help="heatmap: em (default) or judge; codes: the strata, y (default), cell or x.",
            show_default=False,
        ),
    ] = None,
    annotator: Annotated[
        str | None,
        typer.Option(
            "--annotator",
            help="codes: only this annotator's labels (default: the latest label of anyone).",
            show_default=False,
        ),
    ] = None,
    db: DbOption = None,
) -> None:
    """Draw a figure for a paper, one per command (needs the plot extra: matplotlib).

    heatmap: the X×Y matrix with value and n per cell (one panel per run). recency:
    Latest@K, Rank-Inversion and Stale-Dominance against alpha, with the paired
    bootstrap interval of each change from alpha 1 (one line per run). codes: the
    failure-code shares per stratum from `memscope estimate` (PPI++, stacked, with
    intervals). figure: the runs' benchmark's own figure, which its package draws
    (`memscope benchmarks` lists them), also called by its name: retention, a DMV-Bench
    run's TSR by reach with trunk-cluster intervals (one line per system); cue, CUE-Mem
    explicit vs implicit accuracy per task (one panel per run). The bytes of a figure
    depend on the data only (no dates), so figures can be compared.
    """
    from memscope.usecases.figures.plots import render
    from memscope.usecases.runs.selection import select_runs

    store = open_store(db)
    run_ids = select_runs(store, runs).run_ids
    figure = render(store, kind, run_ids, out, metric=metric, annotator=annotator)
    stderr.print(
        f"wrote the {kind} figure of {', '.join(printable_id(run_id) for run_id in run_ids)}"
        f" to {printable_id(figure.path)}",
        markup=False,
    )
