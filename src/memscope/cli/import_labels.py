"""``memscope import-labels``: merge label exports from other people's stores."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

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
from memscope.errors import InputError
from memscope.textsafe import printable, printable_id


@contextmanager
def _progress_line() -> Iterator[Callable[[str], None]]:
    """What the import is doing, as one live line on stderr when it is a terminal (a large
    file takes seconds); nothing at all when stderr is piped or redirected."""
    if not stderr.is_terminal:
        yield lambda _what: None
        return
    with stderr.status("import-labels: starting …") as status:
        yield lambda what: status.update(
            f"import-labels: {escape(printable(what, keep_newlines=False))} …"
        )


@app.command(
    "import-labels",
    rich_help_panel=LABELS,
    epilog=example("memscope import-labels alice.jsonl bob.csv"),
)
@handles_errors
def import_labels_command(
    files: Annotated[
        list[Path],
        typer.Argument(help="Label exports (.jsonl, .csv, .parquet).", show_default=False),
    ],
    allow_changed_run: Annotated[
        bool,
        typer.Option(
            "--allow-changed-run",
            help="Import labels made on another version of the run (for the questions it still has).",
        ),
    ] = False,
    run: Annotated[
        str | None,
        typer.Option(
            "--run",
            help="The run a plain verdict file (qid,verdict[,note] rows) judges.",
            show_default=False,
        ),
    ] = None,
    annotator: Annotated[
        str | None,
        typer.Option(
            "--annotator",
            help="Who gave a plain verdict file's verdicts (default: you, as configured).",
            show_default=False,
        ),
    ] = None,
    db: DbOption = None,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Import label exports (`memscope export-labels`, with or without --history).

    Keeps each event's annotator, source and time; skips events already in the store
    (by their stable event id), so importing a file twice adds nothing. Refuses a file
    made on another version of a run (its run hash differs), naming the questions that
    changed, unless --allow-changed-run. Then `memscope agreement` and
    `memscope estimate --annotator A` work across the merged labels.

    Files are loaded in bulk, in one transaction: a bad row (a code that is not a name,
    an unknown action, a time that is not ISO 8601) refuses the import, naming each such
    row; an interrupted import leaves the store as it was. Times with an offset are stored
    as UTC; a time without one is taken as UTC. On a terminal, a line on stderr says what
    the import is doing.

    A plain verdict file, a CSV of qid,verdict[,note] rows (verdict: correct, wrong or
    unsure) as a person writes it, is imported with --run RUN: each row becomes the
    annotator's verdict on that run's question (--annotator, default: you). A bad row
    refuses the file, naming it; a verdict already given is not given twice.
    """
    from memscope.usecases.labels.import_verdicts import is_plain_verdict_file

    plain = [path for path in files if is_plain_verdict_file(path)]
    if run is not None or plain:
        _import_plain(files, run, annotator, db, output)
        return
    if annotator is not None:
        raise InputError(
            "--annotator is for a plain verdict file (qid,verdict[,note] with --run)",
            fix="An export keeps each event's own annotator: leave --annotator out.",
        )
    from memscope.usecases.labels.import_file import import_labels

    store = open_store(db)
    with _progress_line() as progress:
        result = import_labels(
            store, list(files), allow_changed_run=allow_changed_run, progress=progress
        )
    if output is OutputFormat.json:
        print_json(result.as_dict())
        return
    for entry in result.files:
        for run_id, counts in entry["runs"].items():
            extra = " (another version of the run)" if counts["changed_run"] else ""
            stdout.print(
                f"{printable_id(entry['file'])}: run {printable_id(run_id)}{extra}: {counts['imported']} event(s) imported, "
                f"{counts['present']} already present"
                + (
                    f", {counts['missing']} of questions the run lacks" if counts["missing"] else ""
                ),
                markup=False,
                highlight=False,
                soft_wrap=True,
            )
    if result.unknown_codes:
        stderr.print(
            f"note: codes not in this taxonomy: {', '.join(result.unknown_codes)} "
            "(add them under [[taxonomy.codes]] in the config to use them in the app)",
            markup=False,
        )
    stderr.print(
        f"imported {result.imported} event(s), skipped {result.skipped_present} already present",
        markup=False,
    )
    if result.verdicts_imported or result.verdicts_present or result.verdicts_missing:
        stderr.print(
            f"imported {result.verdicts_imported} verdict(s), skipped "
            f"{result.verdicts_present} already present"
            + (
                f" and {len(result.verdicts_missing)} on questions the run lacks: "
                + ", ".join(printable_id(item) for item in result.verdicts_missing[:10])
                + (" …" if len(result.verdicts_missing) > 10 else "")
                if result.verdicts_missing
                else ""
            ),
            markup=False,
        )


def _import_plain(
    files: list[Path],
    run: str | None,
    annotator: str | None,
    db: Path | None,
    output: OutputFormat,
) -> None:
    """``import-labels FILE… --run RUN``: plain ``qid,verdict[,note]`` files for one run."""
    from memscope.cli.run_arg import pick_run
    from memscope.usecases.labels.import_verdicts import (
        import_plain_verdicts,
        is_plain_verdict_file,
    )
    from memscope.usecases.labels.targets import default_annotator_notice

    if run is None:
        raise InputError(
            f"{files[0] if len(files) == 1 else 'these files'}: a plain verdict file "
            "(qid,verdict[,note]) does not say which run it judges",
            fix="Name it: `memscope import-labels FILE --run RUN` (`memscope runs` lists them).",
        )
    exports = [path for path in files if not is_plain_verdict_file(path)]
    if exports:
        raise InputError(
            f"{printable_id(str(exports[0]))} is not a plain verdict file (qid,verdict[,note]), "
            "and --run is only for those",
            fix="Import exports of `memscope export-labels` in a call without --run.",
        )
    store = open_store(db)
    run_id = pick_run(store, run, "import-labels", ingest=False)
    first_use = default_annotator_notice(store, annotator)
    done = [import_plain_verdicts(store, path, run_id, annotator=annotator) for path in files]
    if first_use and any(entry.imported for entry in done):
        stderr.print(f"note: {first_use}", markup=False, highlight=False)
    if output is OutputFormat.json:
        print_json({"verdict_files": [entry.as_dict() for entry in done]})
        return
    for entry in done:
        stdout.print(
            f"{printable_id(entry.file)}: run {printable_id(entry.run_id)}: "
            f"{entry.imported} verdict(s) imported as {printable_id(entry.annotator)}, "
            f"{entry.present} already given",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
