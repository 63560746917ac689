"""``memscope table RUN… | DIR``: the paper's main results table, systems × the benchmark's axes."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from memscope.cli.app import RUNS, app, example
from memscope.cli.common import (
    DatasetOption,
    DbOption,
    ReadsRuns,
    handles_errors,
    open_store,
    print_json,
    read_options,
    stdout,
    warn,
)
from memscope.cli.number_options import RANK, RESAMPLES, SEED
from memscope.errors import InputError

if TYPE_CHECKING:
    from memscope.usecases.runs.store_access import ReadOptions, Store


class TableFormat(str, Enum):
    """How ``memscope table`` prints."""

    table = "table"
    markdown = "markdown"
    latex = "latex"
    csv = "csv"
    json = "json"


def _split(value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    parts = tuple(p.strip() for p in value.split(",") if p.strip())
    return parts or None


def _renames(labels: list[str]) -> dict[str, str]:
    renames = {}
    for item in labels:
        old, sep, new = item.partition("=")
        if not sep or not old or not new:
            raise InputError(
                f"--label {item!r}: expected OLD=NEW",
                fix="Rename a row as --label semantic_rag_multimodal='SRAG (visual)'.",
            )
        renames[old] = new
    return renames


def _run_ids(store: Store, refs: list[str], options: ReadOptions) -> list[str]:
    """Run ids for what was named: run directories, folders of them (searched
    recursively, ingested when new or changed), ``DIR:PART`` or run ids; in order, once."""
    from memscope.usecases.runs.selection import SelectOptions, select_runs

    selection = select_runs(store, refs, SelectOptions(read=options, folders=True))
    for failure in selection.left_out:
        warn(f"{failure.path}: {failure.error.message} (left out)")
    return selection.distinct_ids


CELLS_FOR_PROGRESS = 200
"""Fewer bootstrapped cells than this take a moment: no progress line."""


@app.command(
    cls=ReadsRuns,
    rich_help_panel=RUNS,
    epilog=example("memscope table runs/srag_t runs/srag_v --ci -f markdown"),
)
@handles_errors
def table(
    runs: Annotated[
        list[str],
        typer.Argument(
            help="Run directories, folders of them (e.g. a sweep's runs/), or run ids.",
            show_default=False,
        ),
    ],
    by: Annotated[
        str | None,
        typer.Option(
            "--by",
            help="Column axes, comma-separated: the benchmark's axes (as the app's matrix and filters name them) and cell, their default cross. MemEye x, y, cell, task (the run's; default x,y); CUE-Mem task, evidence, modality, cell (default cell); DMV-Bench reach, bank, position, cell (default reach).",
            show_default=False,
        ),
    ] = None,
    metric: Annotated[
        str | None,
        typer.Option(
            "--metric",
            help="em, judge, score (compare's), accuracy, tsr, or a retrieval metric (any_clue, coverage, full_clue, mrr, latest_at_k, …); a benchmark's own (memscope benchmarks), e.g. f1 (a benchmark's own F1), harness_f1 and harness_bleu (a harness's own), latency, tokens, and for harnesses that judge each answer several times judge_run_N (N = 1, 2, 3: one judge run) and judge_majority (their majority vote; judge is their mean). Default: MemEye em, CUE-Mem accuracy, DMV-Bench tsr.",
            show_default=False,
        ),
    ] = None,
    group: Annotated[
        str | None,
        typer.Option(
            "--group",
            help="Run fields that make a row, comma-separated (model, method, base_method, modality, mode, task). Default: MemEye model,method,mode; CUE-Mem model,method; DMV-Bench method.",
            show_default=False,
        ),
    ] = None,
    average: Annotated[
        str,
        typer.Option(
            "--average",
            help="questions: pool a row's questions over its tasks (micro); tasks: the mean over tasks (macro).",
        ),
    ] = "questions",
    per_run: Annotated[
        bool, typer.Option("--per-run", help="One row per run instead of per system.")
    ] = False,
    membership: Annotated[
        str,
        typer.Option(
            "--membership",
            help="MemEye questions with several X / Y labels: highest (the paper's rule: the column of the highest label) or every (the runner's metrics.json: every column the question names).",
        ),
    ] = "highest",
    shared: Annotated[
        bool,
        typer.Option(
            "--shared",
            help="Every row over the questions all rows hold (memory systems' harnesses keep "
            "different subsets); the caption says how many each row left out. Default: each "
            "row over its own questions, so a harness's row equals its own overall.",
        ),
    ] = False,
    repeats: Annotated[
        bool,
        typer.Option(
            "--repeats",
            help="A row of several runs (repeats of one configuration: seeds, MIRIX's three "
            "run files) also shows the runs' mean ± their standard deviation per cell.",
        ),
    ] = False,
    baseline: Annotated[
        str | None,
        typer.Option(
            "--baseline",
            help="A row label: every cell also shows Δ vs that row, † where the paired 95% interval excludes 0 (as compare computes it).",
            show_default=False,
        ),
    ] = None,
    ci: Annotated[
        bool, typer.Option("--ci", help="Add each cell's 95% bootstrap interval.")
    ] = False,
    corrected: Annotated[
        bool,
        typer.Option(
            "--corrected",
            help="Where a row's run has people's verdicts (memscope label --verdict, the app's v), each cell also shows its accuracy corrected with them (PPI++ with its 95% interval, as audit); with --baseline, ⇄ marks a Δ whose sign the correction flips.",
        ),
    ] = False,
    label: Annotated[
        list[str] | None,
        typer.Option("--label", help="Rename a row: OLD=NEW (repeatable).", show_default=False),
    ] = None,
    check_upstream: Annotated[
        bool,
        typer.Option(
            "--check-upstream",
            help="Check the per-run numbers against the benchmark's own summary files (MemEye matrices/*/summary.csv and metrics.json by_x, by_y, by_cell under the runner's counting; DMV-Bench f2_summary.csv; a memory system's harness's own summary); the verdict, naming what was compared, follows the terminal table, goes to stderr with --format markdown, latex or csv (and --out), and into the JSON with --format json.",
        ),
    ] = False,
    k: Annotated[
        int | None,
        typer.Option(
            "--k",
            **RANK,
            help="Cut-off K for @K metrics (default: each run's top_k, else 10).",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", **SEED, help="Bootstrap seed.")] = 20260430,
    resamples: Annotated[
        int | None,
        typer.Option(
            "--resamples",
            **RESAMPLES,
            help="Bootstrap resamples for --ci (default 10,000; DMV-Bench 1,000 over trunks, as report).",
            show_default=False,
        ),
    ] = None,
    output: Annotated[
        TableFormat, typer.Option("--format", "-f", help="table, markdown, latex, csv or json.")
    ] = TableFormat.table,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", help="Write the table to this file instead of stdout.", show_default=False
        ),
    ] = None,
    dataset: DatasetOption = None,
    db: DbOption = None,
) -> None:
    """Print the paper's main results table: one row per system, one column per axis level.

    A row is a system over all its runs (MemEye: model × method × mode, questions of all
    tasks pooled; --average tasks for the mean over tasks; --per-run for one row per run).
    Each cell is the metric's mean with its n; --ci adds the 95% interval (a percentile
    bootstrap over questions; over chain trunks for DMV-Bench, as report, approximate below
    30 trunks); --baseline adds Δ vs one row as compare computes it (DMV-Bench: † from the
    trunk sign-flip test). Runs pooled into one row must be disjoint parts or repeats of one
    configuration; others are split into rows with a warning. The best value per column is bold.
    """
    from memscope.cli.report import check_k
    from memscope.cli.table_render import (
        render_csv,
        render_latex,
        render_markdown,
        render_rich,
        render_upstream,
    )
    from memscope.usecases.output_files import TABLE, plan_output, store_files, write_output
    from memscope.usecases.runs.batch import load_runs
    from memscope.usecases.table.build import TableOptions, build_table

    check_k(k)
    options = TableOptions(
        by=_split(by),
        metric=metric,
        group=_split(group),
        average=average,
        per_run=per_run,
        baseline=baseline,
        ci=ci,
        labels=_renames(label or []),
        k=k,
        resamples=resamples,
        seed=seed,
        membership=membership,
        shared=shared,
    )
    store = open_store(db)
    # --out is checked before any work: never over the store or a file that is not a table.
    target = plan_output(out, TABLE, store_files(store)) if out is not None else None
    # One read-only connection for selecting and loading (an ingest writes in between).
    with store.reading():
        run_ids = _run_ids(store, runs, read_options(dataset))
        # Every X / Y label of a question (x_labels, y_labels) is read only where it is used.
        data = load_runs(store, run_ids, detail=membership == "every" or check_upstream)
    from memscope.cli.common import stderr
    from memscope.cli.progress import progress_line

    # --ci over a sweep bootstraps thousands of cells: a line on a terminal says how far.
    with progress_line(stderr, "bootstrapping cells", min_items=CELLS_FOR_PROGRESS) as progress:
        result = build_table(data, options, on_progress=progress)
    for notice in result.notes:
        warn(notice)
    if repeats and not per_run:
        from memscope.usecases.table.repeats import add_repeats

        result = add_repeats(result, data, options)
    # A table holding runs of memory systems' own harnesses says so (no note otherwise).
    import dataclasses

    from memscope.usecases.table.harness_notes import harness_notes

    result = dataclasses.replace(
        result, notes=result.notes + harness_notes(store, result, data, shared=shared)
    )
    if corrected:
        from memscope.usecases.table.corrected import add_corrected

        result = add_corrected(result, store)
    upstream = None
    if check_upstream:
        from memscope.usecases.table.upstream import check_upstream as check

        # The store's remembered read options (a benchmark's retrieval log …) go along.
        upstream = check(data, store)
    if output is TableFormat.json:
        payload = result.to_json()
        if upstream is not None:
            # The summary files are words for the text's message, not data.
            payload["upstream"] = {k: v for k, v in upstream.items() if k != "summary_files"}
        if out is None:
            print_json(payload)
            return
        import orjson

        text = orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode() + "\n"
    elif output is TableFormat.table:
        if out is not None:
            raise InputError(
                "--out writes markdown, latex, csv or json, not the terminal table",
                fix="Add --format markdown (or latex, csv, json).",
            )
        from memscope.cli.fitting import left_out_note

        rendered, omitted = render_rich(result, stdout.width)
        stdout.print(rendered)
        note = left_out_note(
            omitted,
            stdout.width,
            "a wider terminal, --by to pick the axes, or --format markdown (csv, json, latex)",
        )
        if note is not None:
            stdout.print(note)
        if upstream is not None:
            stdout.print(render_upstream(upstream), markup=False)
        return
    else:
        render = {
            TableFormat.markdown: render_markdown,
            TableFormat.latex: render_latex,
            TableFormat.csv: render_csv,
        }[output]
        text = render(result)
    if upstream is not None:
        from memscope.cli.common import stderr

        stderr.print(render_upstream(upstream), markup=False)
    if out is None:
        from memscope.cli.streams import write_text

        write_text(text)
        return
    assert target is not None
    write_output(target, text.encode("utf-8"), "table")
