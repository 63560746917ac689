"""``memscope table --ci`` over many cells: a progress line on a terminal, on stderr, gone
at the end; the table itself is what a pipe gets."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from memscope.cli import app

DEMO = Path(__file__).resolve().parents[2] / "runs"
MEMEYE = [str(DEMO / name) for name in ("srag_t", "srag_v", "fc_v", "oracle_v", "qonly")]
ARGS = ["table", *MEMEYE, "--ci", "--per-run", "-f", "markdown"]

runner = CliRunner()


def test_a_terminal_sees_the_bootstrap_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    import memscope.cli.common as common
    import memscope.cli.table as table_command

    piped = runner.invoke(app, ARGS)
    assert piped.exit_code == 0, piped.output
    assert "bootstrapping" not in piped.stderr

    terminal = io.StringIO()
    monkeypatch.setattr(
        common, "stderr", Console(file=terminal, force_terminal=True, width=100, stderr=True)
    )
    monkeypatch.setattr(table_command, "CELLS_FOR_PROGRESS", 10)  # 5 runs x 9 columns
    shown = runner.invoke(app, ARGS)
    assert shown.exit_code == 0, shown.output
    assert shown.stdout == piped.stdout  # the table is unchanged
    text = terminal.getvalue()
    assert "bootstrapping cells" in text and "45/45" in text
