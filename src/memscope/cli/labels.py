"""``memscope label``, ``memscope export-labels`` and ``memscope agreement``."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from memscope.cli.app import LABELS, app, example
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
    stderr,
    stdout,
    warn,
    write_stdout,
)
from memscope.cli.run_arg import RunAliasOption, RunArgument, named_run, pick_run
from memscope.errors import InputError
from memscope.textsafe import printable, printable_id

if TYPE_CHECKING:
    from memscope.usecases.labels.events import LabelEvent
    from memscope.usecases.runs.store_access import Store


MAX_REJECTED_SHOWN = 10
"""Bad journal lines named one by one; the rest are counted."""


class ExportFormat(str, Enum):
    """File formats of ``export-labels``."""

    jsonl = "jsonl"
    json = "json"  # the same as jsonl: `--format json` works wherever output is data
    csv = "csv"
    parquet = "parquet"


def _store_with_labels_replayed(db: Path | None) -> Store:
    """The store, after committing label changes an app left pending (the store was busy).

    Every label command reads labels, so none may miss a change the app journalled.
    """
    from memscope.usecases.labels.journal import replay_pending

    store = open_store(db)
    result = replay_pending(store)
    for rejected in result.rejected[:MAX_REJECTED_SHOWN]:
        warn(
            f"{result.journal}:{rejected.line}: {rejected.reason}; "
            f"set aside in {result.rejected_file}"
        )
    if len(result.rejected) > MAX_REJECTED_SHOWN:
        warn(
            f"{len(result.rejected) - MAX_REJECTED_SHOWN} more bad line(s) of {result.journal} "
            f"set aside in {result.rejected_file}"
        )
    if result.saved:
        stderr.print(f"saved {result.saved} pending label change(s) from the app", markup=False)
    for op, error in result.refused:
        warn(
            f"a pending label change on {op.qid} of {printable_id(op.run_id)} was refused: {error.message} "
            f"(kept in {result.rejected_file})"
        )
    if result.left:
        warn(f"{result.left} pending label change(s) still wait for the store")
    return store


def _describe(event: Any) -> Text:
    if event.action == "set":
        codes = ", ".join(event.codes)
        extra = f" (primary {event.primary})" if len(event.codes) > 1 else ""
        noted = f" · note: {event.note}" if event.note else ""
        return Text(
            f"labelled {event.qid} of {printable_id(event.run_id)}: {codes}{extra}{noted} · {event.annotator} · event {event.event_id}"
        )
    if event.action == "clear":
        return Text(
            f"cleared the label of {event.qid} of {printable_id(event.run_id)} · {event.annotator} · event {event.event_id}"
        )
    return Text(
        f"undid event {event.supersedes} on {event.qid} of {printable_id(event.run_id)} · {event.annotator} · event {event.event_id}"
    )


@app.command(
    cls=ReadsRuns,
    rich_help_panel=LABELS,
    epilog=example("memscope label srag_v --question q37 --code SEL-STALE"),
)
@handles_errors
def label(
    run: Annotated[str, typer.Argument(help="Run id or directory.", show_default=False)],
    question: Annotated[
        str, typer.Option("--question", "-q", help="The question (qN).", show_default=False)
    ],
    code: Annotated[
        list[str] | None,
        typer.Option(
            "--code",
            "-c",
            help="Failure code (repeat for several; the first is primary).",
            show_default=False,
        ),
    ] = None,
    primary: Annotated[
        str | None,
        typer.Option(
            "--primary",
            help="Which of the codes is primary (default: the first).",
            show_default=False,
        ),
    ] = None,
    note: Annotated[
        str | None,
        typer.Option(
            "--note",
            "-n",
            help="A free-text note; alone, it goes on the question's current label (codes kept; "
            '--note "" removes it).',
            show_default=False,
        ),
    ] = None,
    annotator: Annotated[
        str | None,
        typer.Option(
            "--annotator",
            help="Who labels (default: the config's user.annotator, else the OS user).",
            show_default=False,
        ),
    ] = None,
    accept: Annotated[
        bool, typer.Option("--accept", help="Accept the question's suggested code.")
    ] = False,
    clear: Annotated[
        bool, typer.Option("--clear", help="Remove the question's current label.")
    ] = False,
    undo: Annotated[
        bool, typer.Option("--undo", help="Undo your latest label change on the question.")
    ] = False,
    verdict: Annotated[
        str | None,
        typer.Option(
            "--verdict",
            help="Your verdict on the answer: correct, wrong or unsure (none removes it); "
            "alone or with a label change. `memscope audit` checks the grader against them.",
            show_default=False,
        ),
    ] = None,
    undo_verdict: Annotated[
        bool,
        typer.Option("--undo-verdict", help="Undo your latest verdict change on the question."),
    ] = False,
    dataset: DatasetOption = None,
    db: DbOption = None,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Label why a question failed, with codes of the failure taxonomy.

    Every change is a new event (history is never lost) and is committed before the
    command returns. --accept takes the suggestion of `memscope suggest` (computed if
    needed); --clear removes the current label; --undo reverts your latest change.
    --note with any of them goes with that change; --note alone sets the note of the
    question's current label and keeps its codes (as the app's n does).

    --verdict correct|wrong|unsure says whether the answer is right, whatever the grader
    gave it (a verdict is not a failure label: a correct-graded question can get one);
    with a label change it is saved beside it, alone it takes --note.
    """
    from memscope.usecases.labels.events import (
        accept_suggestion,
        clear_label,
        note_label,
        record_label,
        undo_label,
    )
    from memscope.usecases.labels.targets import default_annotator_notice

    if verdict is not None or undo_verdict:
        _label_verdict(
            run,
            question,
            verdict,
            undo_verdict,
            code,
            primary,
            note,
            annotator,
            accept,
            clear,
            undo,
            dataset,
            db,
            output,
        )
        return
    actions = [
        name
        for name, chosen in (
            ("--code", bool(code)),
            ("--accept", accept),
            ("--clear", clear),
            ("--undo", undo),
        )
        if chosen
    ]
    if len(actions) > 1 or (not actions and note is None):
        raise InputError(
            "give exactly one of --code CODE, --accept, --clear or --undo (or --note alone)"
            + (f" (got {', '.join(actions)})" if actions else ""),
            fix="e.g. memscope label RUN --question q3 --code RET-MISS",
        )
    if primary and not code:
        raise InputError("--primary needs --code")
    if undo and note is not None:
        raise InputError(
            "--undo takes no --note: it restores the label as it was",
            fix="Undo first, then add the note: memscope label RUN --question qN --note TEXT.",
        )
    store = _store_with_labels_replayed(db)
    run_id = pick_run(store, run, "label", options=read_options(dataset), say=False)
    first_use = default_annotator_notice(store, annotator)
    event: LabelEvent | None
    if code:
        event = record_label(
            store, run_id, question, codes=code, primary=primary, note=note, annotator=annotator
        )
    elif accept:
        event = accept_suggestion(store, run_id, question, annotator=annotator, note=note)
    elif clear:
        event = clear_label(store, run_id, question, annotator=annotator, note=note)
    elif undo:
        event = undo_label(store, run_id, question, annotator=annotator)
    else:
        event = note_label(store, run_id, question, note=note, annotator=annotator)
    if event is None:
        nothing = (
            "nothing to undo"
            if undo
            else "nothing changed: the label is already that"
            if code or accept or clear
            else "nothing changed: the label already has that note"
        )
        stderr.print(f"{nothing} on {question} of {printable_id(run_id)}", markup=False)
        if output is OutputFormat.json:
            print_json(None)
        return
    if first_use:
        stderr.print(f"note: {first_use}", markup=False, highlight=False)
    if output is OutputFormat.json:
        print_json(event.as_dict())
        return
    stderr.print(Text(printable(str(_describe(event)), keep_newlines=False)))


def _label_verdict(
    run: str,
    question: str,
    verdict: str | None,
    undo_verdict: bool,
    code: list[str] | None,
    primary: str | None,
    note: str | None,
    annotator: str | None,
    accept: bool,
    clear: bool,
    undo: bool,
    dataset: Path | None,
    db: Path | None,
    output: OutputFormat,
) -> None:
    """``label --verdict``/``--undo-verdict``, with a code label change (or none) beside it."""
    from memscope.usecases.labels.events import accept_suggestion, record_label
    from memscope.usecases.labels.targets import default_annotator_notice
    from memscope.usecases.labels.verdicts import (
        record_verdict,
        verdict_word,
    )
    from memscope.usecases.labels.verdicts import (
        undo_verdict as undo_verdict_event,
    )

    if verdict is not None and undo_verdict:
        raise InputError("give --verdict VERDICT or --undo-verdict, not both")
    if clear or undo:
        raise InputError(
            "--clear and --undo change the failure label; give them in a command of their own",
            fix="Remove a verdict with --verdict none, revert it with --undo-verdict.",
        )
    if code and accept:
        raise InputError("give --code CODE or --accept, not both")
    if primary and not code:
        raise InputError("--primary needs --code")
    wanted = verdict_word(verdict) if verdict is not None else None
    store = _store_with_labels_replayed(db)
    run_id = pick_run(store, run, "label", options=read_options(dataset), say=False)
    first_use = default_annotator_notice(store, annotator)
    label_event: LabelEvent | None = None
    if code:
        label_event = record_label(
            store, run_id, question, codes=code, primary=primary, note=note, annotator=annotator
        )
    elif accept:
        label_event = accept_suggestion(store, run_id, question, annotator=annotator, note=note)
    verdict_note = None if label_event is not None else note
    if undo_verdict:
        event = undo_verdict_event(store, run_id, question, annotator=annotator)
    else:
        event = record_verdict(
            store, run_id, question, wanted, annotator=annotator, note=verdict_note
        )
    if first_use and (event is not None or label_event is not None):
        stderr.print(f"note: {first_use}", markup=False, highlight=False)
    if output is OutputFormat.json:
        print_json(
            {
                "label": label_event.as_dict() if label_event is not None else None,
                "verdict": event.as_dict() if event is not None else None,
            }
        )
        return
    if label_event is not None:
        stderr.print(Text(printable(str(_describe(label_event)), keep_newlines=False)))
    where = f"{question} of {printable_id(run_id)}"
    if event is None:
        nothing = (
            "no verdict to undo" if undo_verdict else "nothing changed: the verdict is already that"
        )
        stderr.print(f"{nothing} on {where}", markup=False)
    elif event.action == "set":
        noted = f" · note: {event.note}" if event.note else ""
        text = f"verdict on {where}: {event.verdict}{noted} · {event.annotator} · event {event.event_id}"
        stderr.print(Text(printable(text, keep_newlines=False)))
    elif event.action == "clear":
        stderr.print(
            Text(f"removed the verdict on {where} · {event.annotator} · event {event.event_id}")
        )
    else:
        stderr.print(
            Text(
                f"undid verdict event {event.supersedes} on {where} · {event.annotator} · event {event.event_id}"
            )
        )


@app.command(
    "export-labels",
    rich_help_panel=LABELS,
    epilog=example("memscope export-labels srag_v --format csv --out labels.csv"),
)
@handles_errors
def export_labels_command(
    run: Annotated[
        str | None,
        typer.Argument(
            help="Run id or directory (default: every run that has labels).",
            show_default=False,
            metavar="[RUN]",
        ),
    ] = None,
    run_alias: RunAliasOption = None,
    all_runs: Annotated[
        bool, typer.Option("--all", help="Export the labels of every run (the default).")
    ] = False,
    file_format: Annotated[
        ExportFormat,
        typer.Option("--format", "-f", help="jsonl (or json, the same), csv or parquet."),
    ] = ExportFormat.jsonl,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Output file (default: stdout; parquet needs a file).",
            show_default=False,
        ),
    ] = None,
    include_suggestions: Annotated[
        bool,
        typer.Option(
            "--include-suggestions",
            help="Add the suggestion (code, rule, numbers) of each question, and suggested questions nobody labelled.",
        ),
    ] = False,
    history: Annotated[
        bool,
        typer.Option(
            "--history",
            help="One row per label or verdict event (event_kind) instead of per current label.",
        ),
    ] = False,
    summary: Annotated[
        bool,
        typer.Option(
            "--summary", help="Counts of each code per (X, Y) cell instead of the labels."
        ),
    ] = False,
    annotator: Annotated[
        str | None,
        typer.Option("--annotator", help="Only this annotator's labels.", show_default=False),
    ] = None,
    db: DbOption = None,
) -> None:
    """Export labels: one row per labelled question and annotator (or per event).

    Columns: run id and content hash, qid, question key, task, X, Y, codes, primary code,
    note, annotator, source (human | rule | import), taxonomy version, the view's
    parameters (alpha, lambda, K) as JSON, accepted_from (the rule of an accepted
    suggestion) and accepted_suggestion (its own code, rule and numbers), event id and times (UTC),
    and the annotator's current verdict on the answer (verdict, verdict_note, verdict_at; a
    verdict alone is a row without codes; with --history one row per verdict event,
    event_kind verdict, action set/clear/undo). The file loads back
    into DuckDB as-is (read_json / read_parquet; read_csv with allow_quoted_nulls = false
    so an empty note stays empty). In csv, codes are joined with ';', and a text cell
    starting with = + - @ (or a tab / CR) gets a leading ' so spreadsheets do not run it;
    jsonl and parquet keep the exact text. The file is written whole or not at all; a
    symlink --out writes to its target.
    """
    from memscope.usecases.labels.export import export_labels, runs_with_labels

    run = named_run(run, run_alias)
    if all_runs and run:
        raise InputError("give RUN or --all, not both")
    if summary and history:
        raise InputError(
            "--summary counts the current labels; it cannot be combined with --history"
        )
    store = _store_with_labels_replayed(db)
    run_id = (
        None if all_runs or run is None else pick_run(store, run, "export-labels", ingest=False)
    )
    if run_id is None:
        # No run named: every run that has labels, never "the run ingested last", which a
        # `compare` may have changed behind the user's back and which may have none.
        labelled = runs_with_labels(store)
        if labelled:
            stderr.print(
                f"exporting every run that has labels: {', '.join(labelled)}"
                " (name one: memscope export-labels RUN)",
                markup=False,
            )
        else:
            warn("no run in the store has labels yet; the export holds none")
    result = export_labels(
        store,
        run_id,
        fmt="jsonl" if file_format is ExportFormat.json else file_format.value,
        out=out,
        include_suggestions=include_suggestions,
        history=history,
        summary=summary,
        annotator=annotator,
    )
    if result.content is not None:
        write_stdout(result.content)
    what = "summary row(s)" if summary else ("event(s)" if history else "label row(s)")
    where = f" to {printable_id(result.path)}" if result.path else ""
    scope = "every run" if run_id is None else printable_id(run_id)
    stderr.print(f"exported {result.rows} {what} of {scope}{where}", markup=False)


@app.command(
    rich_help_panel=LABELS,
    epilog=example("memscope agreement srag_v --annotators alice bob --disagreements"),
)
@handles_errors
def agreement(
    run: RunArgument = None,
    annotators: Annotated[
        tuple[str, str] | None,
        typer.Option(
            "--annotators", help="The two annotators: --annotators A B.", show_default=False
        ),
    ] = None,
    list_disagreements: Annotated[
        bool,
        typer.Option(
            "--disagreements", help="Also list the questions the two labelled differently."
        ),
    ] = False,
    db: DbOption = None,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Cohen's kappa between two annotators, on the questions both labelled.

    Overall on the primary codes; per code on whether the question carries it.
    Kappa is undefined (–) when both annotators gave one and the same answer throughout.
    Definition: docs/metrics.md of the memscope repository, §9.
    """
    from memscope.usecases.labels.events import agreement as compute_agreement

    if not annotators:
        raise InputError("name the two annotators to compare", fix="e.g. --annotators alice bob")
    names = list(annotators)
    store = _store_with_labels_replayed(db)
    run_id = pick_run(store, run, "agreement", ingest=False)
    result = compute_agreement(store, run_id, names[0], names[1])
    if list_disagreements:
        from memscope.usecases.labels.disagreements import disagreements

        result["disagreements"] = disagreements(store, run_id, names[0], names[1])
    if output is OutputFormat.json:
        print_json(result)
        return
    first, second = names
    stdout.print(
        Text.assemble(
            "run ",
            (printable_id(run_id), "bold"),
            f" · {printable(first)} vs {printable(second)} · {result['n']} questions labelled by both",
            f" ({result['only_first']} only by {printable(first)}, {result['only_second']} only by {printable(second)})",
        )
    )
    table = Table(title="Cohen's kappa", title_justify="left")
    for name in ("", "kappa", "observed", "expected"):
        table.add_column(name, justify="left" if not name else "right")
    primary = result["primary"]
    table.add_row(
        Text("primary code", style="bold"),
        fmt(primary["kappa"]),
        fmt(primary["observed"]),
        fmt(primary["expected"]),
    )
    for code, kappa in result["per_code"].items():
        table.add_row(code, fmt(kappa["kappa"]), fmt(kappa["observed"]), fmt(kappa["expected"]))
    verdicts = result.get("verdicts")
    if verdicts is not None:
        table.add_row(
            Text(f"verdicts (n={verdicts['n']})", style="bold"),
            fmt(verdicts["kappa"]),
            fmt(verdicts["observed"]),
            fmt(verdicts["expected"]),
        )
    stdout.print(table)
    if list_disagreements:
        _print_disagreements(result["disagreements"], first, second)


def _print_disagreements(found: list[dict[str, Any]], first: str, second: str) -> None:
    if not found:
        stdout.print(Text(f"{printable(first)} and {printable(second)} agree on every question"))
        return
    table = Table(title=f"{len(found)} disagreement(s)", title_justify="left")
    for name in ("qid", printable(first), printable(second)):
        table.add_column(name, overflow="fold")
    for entry in found:
        table.add_row(
            entry["qid"],
            ", ".join(entry["codes"][first]),
            ", ".join(entry["codes"][second]),
        )
    stdout.print(table)
