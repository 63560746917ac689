"""``--twin RUN|none|auto``, shared by ``suggest``, ``estimate`` and ``sample``, and saying what it changed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from memscope.usecases.suggest.changes import SuggestionRefresh

TWIN_HELP = (
    "Twin run the suggestions compare with: a run id or directory (once per twin: the "
    "native-visual twin of a text-only run, the clue-only oracle), none, or auto (the best "
    "in the store now). Default: the twins the run's suggestions were first made with; "
    "runs ingested later never change them. A new choice is kept for later commands."
)

TwinOption = Annotated[
    list[str] | None,
    typer.Option("--twin", help=TWIN_HELP, show_default=False, metavar="RUN|none|auto"),
]


def twin_ids(store: Any, twins: list[str] | None) -> list[str] | None:
    """``--twin`` values as run ids (``none`` and ``auto`` as they are); None when not given."""
    if not twins:
        return None
    from memscope.usecases.runs.selection import select_runs
    from memscope.usecases.suggest.twins import AUTO_TWINS, NO_TWINS

    return [
        twin if twin in (NO_TWINS, AUTO_TWINS) else select_runs(store, [twin]).first
        for twin in twins
    ]


def say_refresh(refreshed: SuggestionRefresh) -> None:
    """On stderr: the questions whose suggestion a change of twins changed, else unused twins."""
    from memscope.cli.common import stderr
    from memscope.textsafe import printable

    def say(line: str) -> None:
        stderr.print(printable(line, keep_newlines=False), markup=False)

    headline = refreshed.headline()
    if headline:
        say(headline + ":")
        for change in refreshed.changes:
            say(f"  {change.describe()}")
    unused = refreshed.unused_note()
    if unused:
        say(f"note: {unused}")
