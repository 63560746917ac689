"""``memscope estimate``: failure-code prevalence with label-only and prediction-powered intervals."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.text import Text

from memscope.cli.app import LABELS, app, example
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
from memscope.cli.fitting import Column, FittingTable, fit
from memscope.cli.twin_option import TwinOption, twin_ids
from memscope.textsafe import printable, printable_id


def _pct(value: dict[str, Any] | None) -> str:
    if value is None:
        return "–"
    return (
        f"{100 * value['estimate']:.0f}% "
        f"[{100 * value['ci_low']:.0f}, {100 * value['ci_high']:.0f}]"
    )


def _neff(value: dict[str, Any] | None) -> str:
    if value is None or value["effective_n"] is None:
        return "–"
    return f"{value['effective_n']:.0f}"


@app.command(
    rich_help_panel=LABELS, epilog=example("memscope estimate srag_v --annotator alice --by cell")
)
@handles_errors
def estimate(
    run: Annotated[
        str | None,
        typer.Argument(
            help="Run id or directory (default: the run opened or ingested last).",
            show_default=False,
        ),
    ] = None,
    by: Annotated[
        str | None,
        typer.Option(
            "--by",
            help="Strata: cell, or any axis of the run's benchmark (MemEye y or x, DMV-Bench "
            "reach, CUE-Mem task, …; default: y where the run has it, else its first axis).",
            show_default=False,
        ),
    ] = None,
    annotator: Annotated[
        str | None,
        typer.Option(
            "--annotator",
            help="Only this annotator's labels (default: the latest label of anyone).",
            show_default=False,
        ),
    ] = None,
    level: Annotated[float, typer.Option("--level", help="Confidence level.")] = 0.95,
    twin: TwinOption = None,
    db: DbOption = None,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Each failure code's share of the run's failures, overall and per stratum.

    Two estimates side by side: from the human labels alone (design-weighted, normal
    interval), and prediction-powered (PPI++, Angelopoulos et al. 2023): the rule
    suggestions on every failure, corrected by the labelled ones; its interval is valid
    whatever the rules' quality, and narrower the more they agree with people. n eff is
    the number of labels a simple random sample would need for the same width. Codes
    are primary codes. Label a sampled queue (`memscope open RUN --queue sample`) for
    the design to hold. The rule suggestions are the run's stored ones, with the twin
    runs they were made with (named in a note; `--twin` changes them, see `memscope
    suggest --help`).
    """
    from memscope.cli.run_arg import pick_run
    from memscope.usecases.labels.estimate import estimate_dict, estimate_run

    store = open_store(db)
    run_id = pick_run(store, run, "estimate", ingest=False, say=False)
    result = estimate_run(
        store, run_id, by=by, annotator=annotator, level=level, twins=twin_ids(store, twin)
    )
    if output is OutputFormat.json:
        print_json(result.to_json())
        return
    agreement = result.rule_agreement
    stdout.print(
        Text.assemble(
            "run ",
            (printable_id(run_id), "bold"),
            f" · {result.n_labelled} of {result.n_failures} failures labelled",
            f" by {printable(annotator)}" if annotator else "",
            f" · rules agree with the labels on {100 * agreement:.0f}%"
            if agreement is not None
            else "",
            f" · {100 * result.level:.0f}% intervals",
        )
    )
    for note in result.notes:
        stderr.print(printable(f"note: {note}", keep_newlines=False), markup=False)
    groups = ["overall", *result.strata]
    by = result.by  # the strata the run was estimated by (its default when --by was not given)
    # Past the terminal's width whole columns go (PPI++ last): an interval is never cut.
    table = FittingTable(
        [
            Column("code", justify="left", fold=True, min_width=10, keep=True),
            Column(by, justify="left", fold=True, min_width=7, keep=True),
            Column("labelled / failures", rank=2),
            Column("labels only", rank=1),
            Column("n\N{NO-BREAK SPACE}eff", name="n eff (labels only)", rank=4),
            Column("PPI++", rank=0),
            Column("n\N{NO-BREAK SPACE}eff", name="n eff (PPI++)", rank=3),
        ],
        title=f"Failure-code prevalence by {by}",
        title_justify="left",
    )
    for code in result.codes:
        for index, group in enumerate(groups):
            values = result.overall[code] if group == "overall" else result.per_stratum[group][code]
            # Shown as the JSON gives them: clipped to [0, 1].
            labels_only, ppi = estimate_dict(values.labels), estimate_dict(values.ppi)
            table.add_row(
                Text(code, style="bold") if index == 0 else "",
                group,
                f"{values.n_labelled} / {values.n_failures}",
                _pct(labels_only),
                _neff(labels_only),
                _pct(ppi),
                _neff(ppi),
                end_section=index == len(groups) - 1,
            )
    stdout.print(fit(table))
