"""``memscope report``: the X×Y answer matrix, retrieval access and temporal authority."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Group, RenderableType
from rich.text import Text

from memscope.cli.app import RUNS, app, example
from memscope.cli.common import (
    DatasetOption,
    DbOption,
    FormatOption,
    OutputFormat,
    ReadsRuns,
    fmt,
    handles_errors,
    open_store,
    print_json,
    read_options,
    stdout,
)
from memscope.cli.fitting import Column, FittingTable, fit
from memscope.cli.number_options import RANK
from memscope.cli.run_arg import pick_run, say_default
from memscope.errors import InputError
from memscope.textsafe import printable, printable_id
from memscope.usecases.report.metric_names import METRIC_NAMES

if TYPE_CHECKING:
    from memscope.json_types import JSONObject
    from memscope.usecases.report.result import AnswerQuality, Report, RetrievalAccess, Summary

K_HELP = "Cut-off K for @K metrics (default: the run's top_k, else 10)."


def check_k(k: int | None) -> int | None:
    """Refuse K < 1 with one clear message."""
    if k is not None and k < 1:
        raise InputError(
            f"--k must be at least 1, got {k}", fix="Pass a positive cut-off, e.g. --k 10."
        )
    return k


@app.command(
    cls=ReadsRuns, rich_help_panel=RUNS, epilog=example("memscope report runs/srag_v/ --k 5")
)
@handles_errors
def report(
    run: Annotated[
        str | None,
        typer.Argument(
            help="Run directory or run id (default: the run opened or ingested last).",
            show_default=False,
        ),
    ] = None,
    k: Annotated[int | None, typer.Option("--k", **RANK, help=K_HELP, show_default=False)] = None,
    dataset: DatasetOption = None,
    db: DbOption = None,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Print a run's diagnostics: answers per X×Y cell, retrieval access and temporal authority.

    Answer quality per (X, Y) cell (n, EM, Judge) with the coordinate-balanced macro
    average; retrieval access (Any-Clue@K, Coverage@K, Full-Clue@K, MRR) over questions
    with at least one gold clue; for Y3 questions Latest@K, Latest-Miss, Rank-Inversion
    and Stale-Dominance. Each value comes with its n.

    A DMV-Bench run adds TSR overall, by reach (the retention curve), by bank size and by
    encoding position, with 95% intervals over chain trunks (Wilson at the trunks' design
    effect, t with trunks − 1 degrees of freedom; approximate below 30 trunks). A CUE-Mem run adds accuracy per task x explicit/implicit, Memory Avg.
    (first three tasks), EI-Gap, Answer Refusal apart, and evidence Recall@k/Precision@k
    (k = 1, 3, 5, 10, 25; Precision@k = hits / k).

    Every metric is defined, with a worked example, in docs/metrics.md of the memscope
    repository: §2 answer quality, §3 retrieval access, §4 temporal authority, §6 the
    bootstrap intervals, §7 DMV-Bench, §8 CUE-Mem; §11 explains the JSON key by key.
    """
    from memscope.usecases.report.build import (
        build_report_parts,
        make_report,
        run_harness,
        upstream_check,
    )
    from memscope.usecases.runs.loading import load_run

    check_k(k)
    store = open_store(db)
    # One read-only connection serves every step (opening the store costs tens of ms); an
    # ingest of a new or changed run directory writes in between.
    with store.reading():
        if run is not None and Path(run).expanduser().exists():
            run_id = pick_run(store, run, "report", options=read_options(dataset))  # may ingest
        else:
            run_id = pick_run(store, run, "report", options=read_options(dataset), say=False)
        data = load_run(store, run_id, detail=False)
        upstream = upstream_check(store, run_id)
        harness = run_harness(store, run_id)
    if run is None:
        say_default(run_id, "report")
    if output is OutputFormat.json:
        from memscope.usecases.runs.store_access import json_objects

        summary, questions = build_report_parts(data, k, upstream=upstream)
        if harness is not None:
            summary["harness"] = harness
        print_json(summary, rows=("questions", json_objects(questions)))
        return
    import dataclasses

    report = dataclasses.replace(make_report(data, k, upstream=upstream), harness=harness)
    stdout.print(render_report(report))


def _header(report: Report) -> Text:
    run = report.run
    parts = [
        ("run ", ""),
        (printable_id(run.id), "bold"),
        (f" · task {printable(run.task, keep_newlines=False)}", ""),
        (f" · model {printable(run.model, keep_newlines=False)}", ""),
        (f" · method {printable(run.method, keep_newlines=False)}", ""),
        (f" ({run.modality})" if run.modality else "", ""),
        (f" · {run.n_questions} questions · K={report.k}", ""),
    ]
    if report.harness is not None:
        parts.append((f" · harness {printable(report.harness, keep_newlines=False)}", ""))
    return Text.assemble(*parts)


def _answer_matrix(
    answer: AnswerQuality,
    levels: tuple[tuple[str, ...], tuple[str, ...]],
    metric: str,
    title: str,
    n_key: str = "n",
) -> RenderableType:
    """One X×Y matrix of ``metric`` means, each cell with its n (``n_key``)."""
    x_levels, y_levels = levels

    table = FittingTable(
        [
            Column("", justify="left", style="bold", keep=True),
            *(Column(y) for y in y_levels),
            Column("all", style="dim", rank=-1),
        ],
        title=title,
        title_justify="left",
    )

    def cell(summary: Summary | None) -> str:
        if not summary or summary.get(metric) is None:
            return "–"
        return f"{fmt(summary[metric], 2)} ({summary[n_key]})"

    for x in x_levels:
        table.add_row(
            x,
            *(cell(answer.by_cell.get(f"{x}_{y}")) for y in y_levels),
            cell(answer.by_x.get(x)),
        )
    table.add_row(
        "all",
        *(cell(answer.by_y.get(y)) for y in y_levels),
        cell(answer.overall),
        style="dim",
    )
    return fit(table)


def _axes_view(axes: Mapping[str, Any]) -> RenderableType:
    """The default view of the benchmark's axes: the share correct per cell, row and
    column, each with its n (``report``'s ``axes`` section)."""
    titles = {axis["key"]: axis["title"] for axis in axes["axes"]}
    labels = {
        axis["key"]: {level["value"]: level["label"] for level in axis["levels"]}
        for axis in axes["axes"]
    }
    view = axes["views"][0]
    rows, columns = view["rows"], view["columns"]
    cross = view["correct"]
    column_levels = list(labels[columns])
    table = FittingTable(
        [
            Column("", justify="left", style="bold", keep=True),
            *(
                Column(printable(labels[columns][level], keep_newlines=False))
                for level in column_levels
            ),
            Column("all", style="dim", rank=-1),
        ],
        title=f"Share correct per {titles[rows]} × {titles[columns]} (n)",
        title_justify="left",
    )
    cells = {(c["row"], c["column"]): c for c in cross["cells"]}
    by_row = {r["level"]: r for r in cross["by_row"]}
    by_column = {c["level"]: c for c in cross["by_column"]}

    def cell(summary: dict[str, Any] | None) -> str:
        if not summary or summary.get("value") is None:
            return "–"
        return f"{fmt(summary['value'], 2)} ({summary['n']})"

    for level, label in labels[rows].items():
        table.add_row(
            printable(label, keep_newlines=False),
            *(cell(cells.get((level, c))) for c in column_levels),
            cell(by_row.get(level)),
        )
    table.add_row("all", *(cell(by_column.get(c)) for c in column_levels), "", style="dim")
    return fit(table)


def _graded(axes: Mapping[str, Any]) -> bool:
    """Whether any question of the default view has a graded answer."""
    views = axes.get("views") or []
    return not views or any(row["n"] for row in views[0]["correct"]["by_row"])


def _answer_summary(answer: AnswerQuality) -> Text:
    overall, macro = answer.overall, answer.macro
    text = (
        f"overall: n={overall['n']}  EM={fmt(overall['em'])}  Judge={fmt(overall['judge'])}    "
        f"coordinate-balanced macro: EM={fmt(macro['em'])}  Judge={fmt(macro['judge'])}"
    )
    if answer.n_unplaced:
        text += f"    ({answer.n_unplaced} question(s) without X/Y labels are outside the matrix)"
    return Text(text)


def _retrieval_table(
    retrieval: RetrievalAccess,
    k: int,
    levels: tuple[tuple[str, ...], tuple[str, ...]],
    by_axis: str | None = None,
) -> RenderableType:
    """Retrieval access per Y level, or (``by_axis``, a benchmark without coordinates) per
    level of that axis of the benchmark's own."""
    _, y_levels = levels
    groups: list[tuple[str, Mapping[str, Any] | None]] = [
        (y, retrieval.by_y.get(y)) for y in y_levels
    ]
    title = f"Retrieval access @K={k}"
    if by_axis is not None:
        axis: Mapping[str, Any] = next(a for a in retrieval.by_axes if a["key"] == by_axis)
        groups = [
            (printable(level["label"], keep_newlines=False), level) for level in axis["levels"]
        ]
        title += f" per {axis['title']}"
    table = FittingTable(
        [
            Column("", justify="left", style="bold", keep=True),
            *(Column(name) for name in ("n", "Any-Clue", "Coverage", "Full-Clue", "MRR")),
        ],
        title=title,
        title_justify="left",
    )
    for label, row in groups:
        if row:
            table.add_row(
                label,
                str(row["n"]),
                fmt(row["any_clue"]),
                fmt(row["coverage"]),
                fmt(row["full_clue"]),
                fmt(row["mrr"]),
            )
    overall = retrieval.overall
    table.add_row(
        "all",
        str(retrieval.n),
        fmt(overall["any_clue"]),
        fmt(overall["coverage"]),
        fmt(overall["full_clue"]),
        fmt(overall["mrr"]),
        style="dim",
    )
    return fit(table)


def _temporal_table(temporal: Summary, k: int, word: str) -> RenderableType:
    keys = ("latest_at_k", "latest_miss", "rank_inversion", "stale_dominance")
    table = FittingTable(
        [Column("n", keep=True), *(Column(METRIC_NAMES[key]) for key in keys)],
        title=f"Temporal authority ({word}) @K={k}",
        title_justify="left",
    )
    table.add_row(
        str(temporal["n"]),
        fmt(temporal["latest_at_k"]),
        fmt(temporal["latest_miss"]),
        fmt(temporal["rank_inversion"]),
        fmt(temporal["stale_dominance"]),
    )
    return fit(table)


def _upstream_line(check: JSONObject | None) -> Text | None:
    if not check:
        return None
    style = "green" if check.get("agrees") else "yellow" if check.get("agrees") is False else "dim"
    return Text(
        f"Upstream's own numbers: {printable(str(check['sentence']), keep_newlines=False)}.",
        style=style,
    )


def render_report(report: Report) -> Group:
    """The report as Rich renderables (the benchmark's part, then the upstream cross-check)."""
    main = _render_main(report)
    if report.cost is not None:  # every benchmark's report: what its answers cost
        main = Group(main, Text(_cost_line(report.cost)))
    elif report.harness is not None:  # a memory system's run is judged on cost too: say so
        main = Group(main, Text("Cost: latency and tokens not recorded in the harness's files"))
    line = _upstream_line(report.upstream_check)
    return Group(main, Text(""), line) if line is not None else main


def _render_main(report: Report) -> Group:
    """The benchmark's own view where one of its report sections has one (its package's
    code, ``Benchmark.report_sections``), else the coordinate matrix or the axes' view."""
    if report.sections:
        document = report.to_json()
        for section in report.sections:
            blocks = section.view(document)
            if blocks is not None:
                from memscope.cli.report_blocks import render_blocks

                return render_blocks(_header(report), blocks)
    from memscope.usecases.benchmarks import levels_of  # lazily: it loads the registry
    from memscope.usecases.runs.declared import declares_latest, latest_label_of

    axes: Mapping[str, Any] = report.axes
    levels = levels_of(axes["benchmark"])
    answer = report.answer
    parts: list[RenderableType] = [_header(report), Text("")]
    if any(levels):
        parts.append(_answer_matrix(answer, levels, "em", "Answer EM per cell (n)"))
        if answer.overall.get("judge") is not None:
            parts.append(
                _answer_matrix(
                    answer, levels, "judge", "Judge score per cell (n judged)", "n_judge"
                )
            )
        parts += [_answer_summary(answer), Text("")]
    elif _graded(axes):  # the benchmark's own axes: accuracy per cell
        parts += [_axes_view(axes), Text("")]
    else:
        parts += [
            Text(
                "No answer is graded (a retrieval-only run): answer metrics do not apply.",
                style="dim",
            ),
            Text(""),
        ]
    retrieval = report.retrieval
    if retrieval is not None:
        # Without coordinates, retrieval is broken down by the default view's rows.
        own_rows = None if any(levels) else axes["views"][0]["rows"]
        parts += [_retrieval_table(retrieval, report.k, levels, own_rows)]
        if retrieval.n_undiagnosable:
            parts.append(
                Text(
                    f"{retrieval.n_undiagnosable} question(s) have no gold clue and are not counted.",
                    style="dim",
                )
            )
        parts.append(Text(""))
    # Temporal authority is defined on the latest-state questions the benchmark declares,
    # named in its own words (MemEye's "Y3", a "knowledge-update").
    word = latest_label_of(axes["benchmark"])
    if report.temporal:
        parts += [_temporal_table(report.temporal, report.k, word), Text("")]
    elif retrieval is not None and declares_latest(axes["benchmark"]):
        parts += [
            Text(
                f"No {word} question with a gold clue: temporal metrics do not apply.",
                style="dim",
            )
        ]
    for note in report.notes:
        parts.append(Text(f"Retrieval: {note}.", style="yellow"))
    return Group(*parts)


def _cost_line(cost: Mapping[str, Any]) -> str:
    """``Cost: latency median 3564 ms, p95 6859 ms (n 1540) · tokens not recorded``."""
    parts = []
    for name, unit in (("latency_ms", " ms"), ("tokens", "")):
        label = "latency" if name == "latency_ms" else "tokens"
        value = cost.get(name)
        if not isinstance(value, Mapping):
            parts.append(f"{label} not recorded")
            continue
        parts.append(
            f"{label} median {value['median']:.0f}{unit}, p95 {value['p95']:.0f}{unit} "
            f"(n {value['n']})"
        )
    return "Cost: " + " · ".join(parts)
