"""The Typer command line: parse, call the pipeline, render. ``main`` is the entry point.

Every module in this package (other than ``app`` and ``common``) defines commands and
registers them on :data:`memscope.cli.app.app` when imported; they are imported here, so a
new command module needs no edit elsewhere.
"""

from __future__ import annotations

import importlib
import pkgutil

from memscope.cli.app import app

__all__ = ["app", "main"]

# Commands appear in --help in registration order: the triage app first, setup last.
_FIRST = ("open", "ingest", "report", "compare", "table", "rerun", "suggest", "labels", "engine")
for _name in (
    *_FIRST,
    *sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name not in _FIRST),
):
    if _name not in ("app", "common"):
        importlib.import_module(f"{__name__}.{_name}")


def main() -> None:
    """Run the memscope command line."""
    app()
