"""``memscope suggest``: rule-based failure suggestions for a run's failed questions."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from memscope.cli.app import DIAGNOSE, app, example
from memscope.cli.common import (
    DatasetOption,
    DbOption,
    FormatOption,
    OutputFormat,
    ReadsRuns,
    handles_errors,
    open_store,
    print_json,
    read_options,
    stderr,
    stdout,
)
from memscope.cli.run_arg import RunArgument, pick_run
from memscope.cli.twin_option import TwinOption, say_refresh, twin_ids
from memscope.textsafe import printable, printable_id


@app.command(
    cls=ReadsRuns, rich_help_panel=DIAGNOSE, epilog=example("memscope suggest runs/srag_v/")
)
@handles_errors
def suggest(
    run: RunArgument = None,
    twin: TwinOption = None,
    dataset: DatasetOption = None,
    db: DbOption = None,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Suggest a failure code for each failed question, with the rule and numbers behind it.

    The deterministic rules of the taxonomy (see `memscope export-labels` for the codes):
    retrieval codes from Any-Clue / Coverage / Latest@K / Rank-Inversion at the run's K,
    encode codes from its twin runs, matched by question. A twin run is another run over
    the same questions (same task and model): the native-visual run of a text-only
    run's method (its text-only miss is ENC-TEXT when the twin is right) and the
    clue-only oracle (ENC-PERC when the oracle fails too; SEL-CTX when it is right and a
    full-context run is wrong). The twins are taken from the store when a run's
    suggestions are first made and kept afterwards, so a run ingested later changes no
    suggestion; `--twin` chooses them. Several rules may fire; the first in pipeline
    order is primary. Suggestions are stored apart from labels and never change them.
    """
    from memscope.usecases.suggest.changes import refresh_suggestions
    from memscope.usecases.suggest.rules import suggestion_state
    from memscope.usecases.suggest.twins import TWIN_MEANING

    store = open_store(db)
    run_id = pick_run(store, run, "suggest", options=read_options(dataset))
    refreshed = refresh_suggestions(store, run_id, force=True, twins=twin_ids(store, twin))
    suggestions = list(refreshed.suggestions.values())
    state = suggestion_state(store, run_id) or {}
    say_refresh(refreshed)
    if output is OutputFormat.json:
        print_json(
            {
                "run": run_id,
                "n_failed": state.get("n_failed"),
                "twin_runs": state.get("twin_run_ids") or [],
                "unused_twin_runs": refreshed.unused_twins,
                "suggestions": [item.as_dict() for item in suggestions],
                "changes": [change.as_dict() for change in refreshed.changes],
            }
        )
        return
    twins = state.get("twin_run_ids") or []
    if twins:
        used = f"twin runs used: {', '.join(printable_id(twin) for twin in twins)}"
    elif refreshed.unused_twins:
        used = "no twin run used"
    else:
        used = f"no twin run in the store; {TWIN_MEANING}"
    stderr.print(
        printable(
            f"{len(suggestions)} of {state.get('n_failed', 0)} failed questions have a "
            f"suggestion · {used}",
            keep_newlines=False,
        ),
        markup=False,
    )
    if not suggestions:
        return
    table = Table(
        title=Text(f"Suggestions for {printable_id(run_id)}"),
        title_justify="left",
    )
    for name in ("qid", "code", "rule", "why", "also"):
        table.add_column(name, overflow="fold")
    for item in suggestions:
        table.add_row(
            item.qid,
            Text(item.code, style="bold"),
            item.rule,
            Text(printable(item.explanation)),
            ", ".join(alt.code for alt in item.alternatives),
        )
    stdout.print(table)
