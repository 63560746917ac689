"""Typer's test runner, building each command tree once per test process.

``typer.testing.CliRunner.invoke(app, …)`` turns the Typer app into its Click command on
every call: for memscope's ~30 commands that is ~0.1–0.2 s of signature and annotation
evaluation, a quarter of a typical CLI test's time. The tree depends only on the commands
registered (all of them once ``memscope.cli`` is imported), so it is built once per app and
per set of registered commands and reused; parsing, defaults, environment variables and
output all still happen on each invocation, as in a real process.
"""

from __future__ import annotations

from typing import Any

import typer.testing

_build_command = typer.testing._get_command
_built: dict[tuple[int, int, int], Any] = {}


def _command_of(app: typer.Typer) -> Any:
    """The Click command of ``app``, built once for its current set of commands."""
    key = (id(app), len(app.registered_commands), len(app.registered_groups))
    if key not in _built:
        _built[key] = (app, _build_command(app))  # keeps app alive: its id stays its own
    return _built[key][1]


def build_commands_once() -> None:
    """Make every ``CliRunner.invoke`` in this process reuse the built command trees."""
    typer.testing._get_command = _command_of  # type: ignore[assignment]
