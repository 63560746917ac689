"""``memscope sample``: draw (or show) a run's sampled triage queue without the app."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

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
from memscope.cli.sample_options import (
    AllocationOption,
    SeedOption,
    SizeOption,
    StrataOption,
)
from memscope.cli.twin_option import TwinOption, say_refresh, twin_ids
from memscope.textsafe import printable_id


@app.command(
    rich_help_panel=LABELS, epilog=example("memscope sample srag_v --sample-size 10 --seed 7")
)
@handles_errors
def sample(
    run: Annotated[
        str | None,
        typer.Argument(
            help="Run id or directory (default: the run opened or ingested last).",
            show_default=False,
        ),
    ] = None,
    seed: SeedOption = None,
    strata: StrataOption = None,
    sample_size: SizeOption = None,
    allocation: AllocationOption = None,
    twin: TwinOption = None,
    db: DbOption = None,
    output: FormatOption = OutputFormat.table,
) -> None:
    """The run's sampled queue: a stratified random sample of its failures to label.

    The same queue `memscope open RUN --queue sample` steps through. It is stored with
    its seed and each question's inclusion probability, so it resumes in the same order
    and `memscope estimate` weighs the labels by the design. Options that differ from
    the stored plan draw a new one. `--strata code` and `--allocation neyman` read the
    rule suggestions, made with the run's pinned twin runs unless `--twin` changes them
    (see `memscope suggest --help`); a stored plan stays as it was drawn.
    """
    from memscope.cli.run_arg import pick_run
    from memscope.usecases.labels.sample import open_sample
    from memscope.usecases.suggest.changes import refresh_suggestions

    store = open_store(db)
    run_id = pick_run(store, run, "sample", say=False)
    if twin:
        say_refresh(refresh_suggestions(store, run_id, twins=twin_ids(store, twin)))
    plan, new = open_sample(
        store, run_id, seed=seed, strata=strata, sample_size=sample_size, allocation=allocation
    )
    if output is OutputFormat.json:
        print_json(
            {
                "run": run_id,
                "new": new,
                "seed": plan.seed,
                "strata": plan.strata,
                "sample_size": plan.sample_size,
                "allocation": plan.allocation,
                "per_stratum": plan.per_stratum,
                "queue": [
                    {
                        "qid": qid,
                        "stratum": plan.stratum_of[qid],
                        "inclusion_probability": plan.inclusion_probability[qid],
                        "planned": qid in plan.planned,
                    }
                    for qid in plan.qids
                ],
            }
        )
        return
    stderr.print(("drew " if new else "stored ") + plan.describe(), markup=False)
    table = Table(title=f"Sampled queue of {printable_id(run_id)}", title_justify="left")
    for name in ("#", "qid", "stratum", "inclusion p"):
        table.add_column(name, justify="right" if name in ("#", "inclusion p") else "left")
    for position, qid in enumerate(plan.qids, start=1):
        if qid not in plan.planned:
            break
        table.add_row(
            str(position), qid, plan.stratum_of[qid], f"{plan.inclusion_probability[qid]:.2f}"
        )
    stdout.print(table)
    rest = len(plan.qids) - len(plan.planned)
    if rest:
        stdout.print(f"then the other {rest} failures, in random order", markup=False)
