"""How every command names a run: a positional ``RUN`` (id or directory), one way everywhere.

``--run RUN`` survives as a hidden, deprecated alias on the commands that used to take it.
When no run is named the command uses the run opened or ingested last and says so on
stderr, so a default never picks a run silently.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from memscope.errors import InputError

if TYPE_CHECKING:
    from memscope.usecases.runs.store_access import ReadOptions, Store

RUN_HELP = "Run id or directory (default: the run opened or ingested last)."

RunArgument = Annotated[
    str | None, typer.Argument(help=RUN_HELP, show_default=False, metavar="[RUN]")
]
RunAliasOption = Annotated[
    str | None,
    typer.Option("--run", hidden=True, help="Deprecated: name the run as RUN.", show_default=False),
]


def named_run(positional: str | None, alias: str | None) -> str | None:
    """The run the user named, as ``RUN`` or the deprecated ``--run``."""
    if positional is not None and alias is not None and positional != alias:
        raise InputError(
            f"two runs named: {positional!r} and --run {alias!r}",
            fix="Name one run, as the RUN argument (--run is the old spelling).",
        )
    return positional if positional is not None else alias


def pick_run(
    store: Store,
    ref: str | None,
    command: str,
    *,
    options: ReadOptions | None = None,
    ingest: bool = True,
    say: bool = True,
) -> str:
    """The one run ``ref`` names (:func:`usecases.runs.selection.select_runs`); when it is
    None, the run opened last, and (unless ``say`` is False) one stderr line saying so."""
    from memscope.usecases.runs.selection import SelectOptions, select_runs

    selection = select_runs(store, [ref], SelectOptions(read=options, ingest=ingest))
    if selection.defaulted and say:
        say_default(selection.first, command)
    return selection.first


def say_default(run_id: str, command: str) -> None:
    """One stderr line: which run a command without ``RUN`` works on."""
    from memscope.cli.common import stderr
    from memscope.textsafe import printable_id

    stderr.print(
        f"using run {printable_id(run_id)}, the run opened or ingested last"
        f" (name another: memscope {command} RUN)",
        markup=False,
    )
