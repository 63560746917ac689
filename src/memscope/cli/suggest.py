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
from memscope.textsafe import printable, printable_id


@app.command(
    cls=ReadsRuns, rich_help_panel=DIAGNOSE, epilog=example("memscope suggest runs/srag_v/")
)
@handles_errors
def suggest(
    run: RunArgument = None,
    dataset: DatasetOption = None,
    db: DbOption = None,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Suggest a failure code for each failed question, with the rule and numbers behind it.

    The deterministic rules of the taxonomy (see `memscope export-labels` for the codes):
    retrieval codes from Any-Clue / Coverage / Latest@K / Rank-Inversion at the run's K,
    encode codes from a twin run in the store (the native-visual twin of a text-only run,
    the clue-only oracle), matched by question. Several rules may fire; the first in
    pipeline order is primary. Suggestions are stored apart from labels and never
    change them.
    """
    from memscope.usecases.suggest import suggestion_state
    from memscope.usecases.suggestion_changes import refresh_suggestions

    store = open_store(db)
    run_id = pick_run(store, run, "suggest", options=read_options(dataset))
    refreshed = refresh_suggestions(store, run_id, force=True)
    suggestions = list(refreshed.suggestions.values())
    state = suggestion_state(store, run_id) or {}
    headline = refreshed.headline()
    if headline:  # a twin or oracle run came (or went) since they were last computed
        stderr.print(headline + ":", markup=False)
        for change in refreshed.changes:
            stderr.print(f"  {change.describe()}", markup=False)
    if output is OutputFormat.json:
        print_json(
            {
                "run": run_id,
                "n_failed": state.get("n_failed"),
                "twin_runs": state.get("twin_run_ids") or [],
                "suggestions": [item.as_dict() for item in suggestions],
                "changes": [change.as_dict() for change in refreshed.changes],
            }
        )
        return
    twins = state.get("twin_run_ids") or []
    stderr.print(
        f"{len(suggestions)} of {state.get('n_failed', 0)} failed questions have a suggestion"
        + (
            f" · twin runs used: {', '.join(printable_id(twin) for twin in twins)}"
            if twins
            else " · no twin run in the store"
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
