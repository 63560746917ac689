"""``memscope audit``: the grader against people's verdicts, and the accuracy corrected."""

from __future__ import annotations

import csv
import io
from enum import Enum
from typing import Annotated, Any

import typer
from rich.text import Text

from memscope.cli.app import LABELS, app, example
from memscope.cli.common import (
    DbOption,
    handles_errors,
    open_store,
    print_json,
    stderr,
    stdout,
    write_stdout,
)
from memscope.cli.fitting import Column, FittingTable, fit
from memscope.cli.run_arg import RunArgument
from memscope.textsafe import defuse_cell, printable, printable_id


class AuditFormat(str, Enum):
    """How ``audit`` prints its result."""

    table = "table"
    json = "json"
    csv = "csv"


class Variance(str, Enum):
    """The variance of the intervals: the adjusted one ``estimate`` uses, or ppi-python's."""

    adjusted = "adjusted"
    plugin = "plugin"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _interval(value: dict[str, Any] | None) -> str:
    if value is None:
        return "no verdicts"
    return f"{100 * value['estimate']:.1f}% [{100 * value['low']:.0f}, {100 * value['high']:.0f}]"


def _rate(rate: dict[str, Any]) -> str:
    if rate["value"] is None:
        return "–"
    return f"{100 * rate['value']:.0f}% [{100 * rate['low']:.0f}, {100 * rate['high']:.0f}] of {rate['n']}"


def _print_audit(result: dict[str, Any]) -> None:
    agreement = result["agreement"]
    intervals = agreement["intervals"]
    threshold = f" ≥ {result['threshold']:g}" if result["threshold"] is not None else ""
    stdout.print(
        Text.assemble(
            "run ",
            (printable_id(result["run"]), "bold"),
            f" · grader {result['metric']}{threshold}",
            f" · {agreement['n']} verdicts",
            f" by {printable(result['annotator'])}" if result["annotator"] else "",
            f" ({result['n_unsure']} unsure left out)" if result["n_unsure"] else "",
            " · design-weighted" if result["weighted"] else "",
            f" · {result['variance']} variance",
        )
    )
    kappa = agreement["kappa"]
    stdout.print(
        f"agreement {_rate(intervals['accuracy'])} · sensitivity {_rate(intervals['sensitivity'])}"
        f" · specificity {_rate(intervals['specificity'])} · kappa "
        + ("–" if kappa is None else f"{kappa:.2f}"),
        markup=False,
    )
    (tp, fn), (fp, tn) = agreement["table"]["counts"]
    pairs = Text(
        f"               grader correct  grader wrong\n"
        f"people correct {tp:>14}  {fn:>12}\n"
        f"people wrong   {fp:>14}  {tn:>12}"
    )
    stdout.print(pairs)
    table = FittingTable(
        [
            Column(result["levels"][0]["axis"], justify="left", fold=True, min_width=8, keep=True),
            Column("verdicts / questions", rank=2),
            Column("grader", rank=1),
            Column("verdicts only", rank=3),
            Column("PPI++", rank=0),
            Column("λ", rank=4),
        ],
        title="Accuracy: the grader's mean, and the true accuracy estimated (95% intervals)",
        title_justify="left",
    )
    for index, level in enumerate(result["levels"]):
        ppi = level["ppi"]
        table.add_row(
            Text(printable(str(level["label"])), style="bold" if index == 0 else ""),
            f"{level['n_verdicts']} / {level['n_questions']}",
            _pct(level["metric_mean"]),
            _interval(level["verdict_only"]),
            _interval(ppi),
            "–" if ppi is None else f"{ppi['lambda']:.2f}",
            end_section=index == 0,
        )
    if result["stratified"] is not None:
        table.add_row(
            Text("all, stratified", style="italic"),
            "",
            "",
            "",
            _interval(result["stratified"]),
            "",
        )
    stdout.print(fit(table))
    for note in result["notes"]:
        stderr.print(printable(f"note: {note}", keep_newlines=False), markup=False)
    if result["disagreements"]:
        stdout.print(
            f"{len(result['disagreements'])} question(s) where the grader and people differ "
            f"(memscope open {result['run']} --question Q):",
            markup=False,
        )
        for item in result["disagreements"]:
            score = "" if item["score"] is None else f" (score {item['score']:g})"
            note = f" · {item['note']}" if item["note"] else ""
            stdout.print(
                printable(
                    f"  {item['qid']} [{item['level']}]: people {item['verdict']}, grader "
                    f"{'correct' if item['grader'] else 'wrong'}{score}{note}",
                    keep_newlines=False,
                ),
                markup=False,
            )


def _audit_csv(result: dict[str, Any]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        [
            "axis",
            "level",
            "n_questions",
            "n_verdicts",
            "metric_mean",
            "verdict_only",
            "verdict_only_low",
            "verdict_only_high",
            "ppi",
            "ppi_low",
            "ppi_high",
            "lambda",
        ]
    )
    for level in result["levels"]:
        only, ppi = level["verdict_only"] or {}, level["ppi"] or {}
        writer.writerow(
            [
                defuse_cell(level["axis"]),
                defuse_cell(level["level"]),
                level["n_questions"],
                level["n_verdicts"],
                level["metric_mean"],
                only.get("estimate", ""),
                only.get("low", ""),
                only.get("high", ""),
                ppi.get("estimate", ""),
                ppi.get("low", ""),
                ppi.get("high", ""),
                ppi.get("lambda", ""),
            ]
        )
    return buffer.getvalue().encode()


def _print_raters(result: dict[str, Any]) -> None:
    alpha = result["krippendorff_alpha"]
    stdout.print(
        Text.assemble(
            "run ",
            (printable_id(result["run"]), "bold"),
            f" · {len(result['raters'])} raters · Krippendorff's α ",
            "–" if alpha is None else f"{alpha:.3f}",
        )
    )
    table = FittingTable(
        [
            Column("rater", justify="left", fold=True, keep=True),
            Column("rater ", justify="left", fold=True, keep=True),
            Column("n", rank=1),
            Column("agree", rank=0),
            Column("kappa", rank=0),
        ],
        title="Pairwise agreement on the questions both rated",
        title_justify="left",
    )
    for pair in result["pairs"]:
        table.add_row(
            printable(pair["first"]),
            printable(pair["second"]),
            str(pair["n"]),
            _pct(pair["agreement"]),
            "–" if pair["kappa"] is None else f"{pair['kappa']:.2f}",
        )
    stdout.print(fit(table))


def _raters_csv(result: dict[str, Any]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["first", "second", "n", "agreement", "kappa"])
    for pair in result["pairs"]:
        writer.writerow(
            [
                defuse_cell(pair["first"]),
                defuse_cell(pair["second"]),
                pair["n"],
                pair["agreement"],
                pair["kappa"],
            ]
        )
    return buffer.getvalue().encode()


@app.command(
    rich_help_panel=LABELS,
    epilog=example("memscope audit rsr_0612:honcho --metric judge --by category"),
)
@handles_errors
def audit(
    run: RunArgument = None,
    annotator: Annotated[
        str | None,
        typer.Option(
            "--annotator",
            help="Only this person's verdicts (default: the latest verdict of anyone).",
            show_default=False,
        ),
    ] = None,
    metric: Annotated[
        str,
        typer.Option(
            "--metric",
            help="The grader: correct (the run's own correctness), judge, em, f1 or score "
            "(each at --threshold).",
        ),
    ] = "correct",
    threshold: Annotated[
        float | None,
        typer.Option(
            "--threshold",
            help="A score at or above it passes (default: judge 0.5, em 1, f1 0.5, score 0.5).",
            show_default=False,
        ),
    ] = None,
    by: Annotated[
        str | None,
        typer.Option(
            "--by",
            help="The axis whose levels get a row (default: the benchmark's first axis).",
            show_default=False,
        ),
    ] = None,
    variance: Annotated[
        Variance,
        typer.Option(
            "--variance",
            help="adjusted (as estimate: honest with few verdicts) or plugin (ppi-python's "
            "ppi_mean_ci, exactly).",
        ),
    ] = Variance.adjusted,
    raters: Annotated[
        bool,
        typer.Option(
            "--raters",
            help="Every automatic score and every person as raters: pairwise agreement and "
            "Krippendorff's α.",
        ),
    ] = False,
    db: DbOption = None,
    output: Annotated[
        AuditFormat, typer.Option("--format", "-f", help="table, json or csv.")
    ] = AuditFormat.table,
) -> None:
    """Is the grader right? Check it against people's verdicts, and correct the accuracy.

    On the questions with a verdict (`memscope label RUN --question Q --verdict
    correct|wrong|unsure`, a sample from `memscope sample RUN --for verdicts`): the grader's
    agreement with people, sensitivity (it passes what people call correct) and specificity
    (it fails what they call wrong), with Wilson intervals, Cohen's kappa, the 2×2 table and
    the questions where they differ. Then, overall and per level of an axis: the grader's
    mean over every question, the mean of the verdicts alone, and the prediction-powered
    estimate (PPI++) of the true accuracy: the verdicts as labels, the grader as the
    prediction on every question. Unsure verdicts are left out.
    """
    from memscope.cli.run_arg import pick_run
    from memscope.usecases.labels.audit import audit_run, audit_to_json, check_threshold
    from memscope.usecases.labels.raters import audit_raters, raters_to_json

    check_threshold(threshold)
    store = open_store(db)
    run_id = pick_run(store, run, "audit", ingest=False)
    if raters:
        thresholds = {metric: threshold} if threshold is not None and metric != "correct" else None
        found = raters_to_json(audit_raters(store, run_id, thresholds=thresholds))
        if output is AuditFormat.json:
            print_json(found)
        elif output is AuditFormat.csv:
            write_stdout(_raters_csv(found))
        else:
            _print_raters(found)
        return
    result = audit_to_json(
        audit_run(
            store,
            run_id,
            annotator=annotator,
            metric=metric.strip().lower(),
            threshold=threshold,
            by=by,
            variance=variance.value,
        )
    )
    if output is AuditFormat.json:
        print_json(result)
    elif output is AuditFormat.csv:
        write_stdout(_audit_csv(result))
    else:
        _print_audit(result)
