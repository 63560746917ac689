"""Issue 41 item 15: every file memscope writes for the user gets the mode the umask gives
a new file (0644 under 022, 0640 under 027), not ``mkstemp``'s 0600."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders import dialog, open_row, qa, write_run
from memscope.cli import app

pytest.importorskip("matplotlib", reason="plot needs the plot extra")


@pytest.fixture(params=[0o022, 0o027])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    previous = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(previous)


def _run(tmp_path: Path) -> Path:
    data = dialog(
        {"D1": ["D1:1"]},
        [qa(f"Question {i}?", "gold", [["X1"], ["Y1"]], ["D1:1"], ["D1"]) for i in range(1, 7)],
    )
    rows = [open_row(i, data, judge=float(i % 2), seed=["D1:1"]) for i in range(1, 7)]
    return write_run(tmp_path / "runs" / "small", data, rows, top_k=1)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize(
    "command",
    [
        ["table", "{run}", "--out", "{out}/table.csv", "-f", "csv"],
        ["plot", "heatmap", "{run}", "--out", "{out}/grid.svg"],
        ["export-labels", "small", "--out", "{out}/labels.jsonl"],
        ["store", "check", "--save-labels", "{out}/saved.jsonl"],
    ],
    ids=["table", "plot", "export-labels", "store-check"],
)
def test_files_for_the_user_follow_the_umask(
    tmp_path: Path, umask: int, command: list[str]
) -> None:
    run_dir = _run(tmp_path)
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", str(run_dir)]).exit_code == 0
    out = tmp_path / "out"
    out.mkdir()
    args = [part.format(run=run_dir, out=out) for part in command]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    written = Path(args[args.index("--out") + 1] if "--out" in args else args[-1])
    assert _mode(written) == 0o666 & ~umask, oct(_mode(written))
