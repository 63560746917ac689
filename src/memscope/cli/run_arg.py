"""How every command names a run: a positional ``RUN`` (id or directory), one way everywhere.

``--run RUN`` survives as a hidden, deprecated alias on the commands that used to take it.
When no run is named the command uses the run opened or ingested last and says so on
stderr, so a default never picks a run silently.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from memscope.errors import InputError

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


def pick_run(store: Any, ref: str | None, command: str, **resolve: Any) -> str:
    """Resolve ``ref`` to a run id; when it is None, say on stderr which run was picked."""
    from memscope.usecases.runs.ingest import resolve_run

    run_id = resolve_run(store, ref, **resolve)
    if ref is None:
        say_default(run_id, command)
    return run_id


def say_default(run_id: str, command: str) -> None:
    """One stderr line: which run a command without ``RUN`` works on."""
    from memscope.cli.common import stderr
    from memscope.textsafe import printable_id

    stderr.print(
        f"using run {printable_id(run_id)}, the run opened or ingested last"
        f" (name another: memscope {command} RUN)",
        markup=False,
    )
