"""The Typer command line: parse, call the pipeline, render. ``main`` is the entry point."""

from __future__ import annotations

from memscope.cli import ingest as _ingest  # noqa: F401 - registers commands
from memscope.cli import report as _report  # noqa: F401
from memscope.cli.app import app

__all__ = ["app", "main"]


def main() -> None:
    """Run the memscope command line."""
    app()
