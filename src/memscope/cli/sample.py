"""``memscope sample``: draw (or show) a run's sampled triage queue without the app."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Annotated

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
from memscope.cli.number_options import COUNT
from memscope.cli.sample_options import (
    AllocationOption,
    SeedOption,
    SizeOption,
    StrataOption,
)
from memscope.cli.twin_option import TwinOption, say_refresh, twin_ids
from memscope.errors import InputError
from memscope.textsafe import printable_id

if TYPE_CHECKING:
    from memscope.usecases.runs.store_access import Store


class SampleFor(str, Enum):
    """What the sample is for: failures to label, or answers to give a verdict on."""

    failures = "failures"
    verdicts = "verdicts"


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
    sample_for: Annotated[
        SampleFor,
        typer.Option(
            "--for",
            help="failures (to label why they failed) or verdicts (answers to judge, for "
            "`memscope audit`).",
        ),
    ] = SampleFor.failures,
    count: Annotated[
        int | None,
        typer.Option(
            "--n",
            help="With --for verdicts: how many answers (default 40).",
            show_default=False,
            **COUNT,
        ),
    ] = None,
    by: Annotated[
        str | None,
        typer.Option(
            "--by",
            help="With --for verdicts: the axis whose levels are strata (default: the "
            "benchmark's first axis).",
            show_default=False,
        ),
    ] = None,
    db: DbOption = None,
    output: FormatOption = OutputFormat.table,
) -> None:
    """The run's sampled queue: a stratified random sample of its failures to label.

    With --for verdicts: a stratified random sample of all its answers (axis level ×
    grader outcome, so answers the grader passed and failed are both checked) to give
    a verdict on (`memscope label RUN --question Q --verdict correct|wrong|unsure`);
    stored with its inclusion probabilities, which `memscope audit` weights by.

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
    if sample_for is SampleFor.verdicts:
        if strata or sample_size is not None or allocation or twin:
            raise InputError(
                "--for verdicts takes --n, --by and --seed (not --strata, --sample-size, "
                "--allocation or --twin)",
                fix=f"e.g. memscope sample {run_id} --for verdicts --n 40",
            )
        _verdict_sample(store, run_id, count, by, seed, output)
        return
    if count is not None or by is not None:
        raise InputError(
            "--n and --by go with --for verdicts",
            fix="The failure sample's size is --sample-size, its strata --strata.",
        )
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


def _verdict_sample(
    store: Store,
    run_id: str,
    count: int | None,
    by: str | None,
    seed: int | None,
    output: OutputFormat,
) -> None:
    """``sample --for verdicts``: draw, store and print the answers to judge."""
    from memscope.usecases.labels.verdict_sample import (
        DEFAULT_SEED,
        DEFAULT_VERDICT_SAMPLE,
        draw_verdict_sample,
    )

    drawn = draw_verdict_sample(
        store,
        run_id,
        size=DEFAULT_VERDICT_SAMPLE if count is None else count,
        by=by,
        seed=DEFAULT_SEED if seed is None else seed,
    )
    if output is OutputFormat.json:
        print_json(
            {
                "run": run_id,
                "for": "verdicts",
                "axis": drawn.axis,
                "metric": drawn.metric,
                "seed": drawn.seed,
                "per_stratum": drawn.per_stratum,
                "queue": [
                    {"qid": qid, "stratum": stratum, "inclusion_probability": probability}
                    for qid, stratum, probability in zip(
                        drawn.qids, drawn.strata, drawn.inclusion_probability, strict=True
                    )
                ],
            }
        )
        return
    stderr.print(
        f"drew {len(drawn.qids)} answers for verdicts over {len(drawn.per_stratum)} strata "
        f"({drawn.axis} × grader outcome) · seed {drawn.seed}",
        markup=False,
    )
    table = Table(
        title=f"Answers of {printable_id(run_id)} to give a verdict on", title_justify="left"
    )
    for name in ("#", "qid", "stratum", "inclusion p"):
        table.add_column(name, justify="right" if name in ("#", "inclusion p") else "left")
    for position, (qid, stratum, probability) in enumerate(
        zip(drawn.qids, drawn.strata, drawn.inclusion_probability, strict=True), start=1
    ):
        table.add_row(str(position), qid, stratum, f"{probability:.2f}")
    stdout.print(table)
    stdout.print(
        f"then: memscope label {run_id} --question Q --verdict correct|wrong|unsure; "
        f"memscope audit {run_id}",
        markup=False,
    )
