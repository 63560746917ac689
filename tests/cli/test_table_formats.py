"""``memscope table`` output formats: snapshots of the demo tables (committed expected files
under tests/data/table/), the README's copies of them, and the LaTeX / Markdown / CSV shape.

Regenerate the expected files after an intended change with
``MEMSCOPE_UPDATE_SNAPSHOTS=1 pytest tests/cli/test_table_formats.py`` and review the diff.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from memscope.cli import app

runner = CliRunner()
REPO = Path(__file__).parents[2]
DEMO = REPO / "runs"
SNAPSHOTS = Path(__file__).parents[1] / "data" / "table"
MEMEYE = [str(DEMO / name) for name in ("srag_t", "srag_v", "fc_v", "oracle_v", "qonly")]
CUE = [str(DEMO / "cue_mm"), str(DEMO / "cue_text")]
DMV = [str(DEMO / "dmv_f2_demo")]
CASES = {
    "memeye.md": (*MEMEYE, "--format", "markdown"),
    "cuemem.md": (*CUE, "--format", "markdown"),
    "dmv.md": (*DMV, "--ci", "--format", "markdown"),
    "memeye_ci_baseline.md": (
        *MEMEYE,
        "--ci",
        "--baseline",
        "semantic_rag_text_only",
        "-f",
        "markdown",
    ),
    "memeye_ci_baseline.tex": (
        *MEMEYE,
        "--ci",
        "--baseline",
        "semantic_rag_text_only",
        "-f",
        "latex",
    ),
    "memeye_ci_baseline.csv": (
        *MEMEYE,
        "--ci",
        "--baseline",
        "semantic_rag_text_only",
        "-f",
        "csv",
    ),
    "memeye_ci_baseline.json": (
        *MEMEYE,
        "--ci",
        "--baseline",
        "semantic_rag_text_only",
        "-f",
        "json",
    ),
    "dmv_ci.tex": (*DMV, "--ci", "--by", "reach,bank", "-f", "latex"),
}


def run_table(*args: str) -> str:
    result = runner.invoke(app, ["table", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("MEMSCOPE_UPDATE_SNAPSHOTS"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no snapshot {path}; run with MEMSCOPE_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(CASES))
def test_format_snapshot(name: str) -> None:
    first = run_table(*CASES[name])
    check_snapshot(name, first)
    assert run_table(*CASES[name]) == first  # deterministic


def test_rich_table_snapshot(store) -> None:
    from memscope.cli.table_render import render_rich
    from memscope.usecases.runs.loading import load_run
    from memscope.usecases.table.build import TableOptions, build_table

    shown = json.loads(run_table(*DMV, "--ci", "--baseline", "NoMemory", "-f", "json"))
    data = [load_run(store, run_id) for row in shown["rows"] for run_id in row["runs"]]
    table = build_table(data, TableOptions(ci=True, baseline="NoMemory"))
    assert table.to_json() == shown
    console = Console(width=150, record=True, color_system=None, file=io.StringIO())
    rendered, omitted = render_rich(table)
    assert omitted == []
    console.print(rendered)
    check_snapshot("dmv_baseline.txt", console.export_text())


def test_readme_shows_the_demo_tables_as_printed() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for name in ("memeye.md", "cuemem.md", "dmv.md"):
        command = "memscope table " + " ".join(
            str(Path(arg).relative_to(REPO)) if arg.startswith(str(REPO)) else arg
            for arg in CASES[name]
        )
        expected = (SNAPSHOTS / name).read_text(encoding="utf-8")
        assert f"```bash\n{command}\n```\n\n{expected}" in readme, f"README lacks {name}"


def test_markdown_marks_the_best_in_bold_and_aligns_numbers_right() -> None:
    lines = (SNAPSHOTS / "memeye.md").read_text().splitlines()
    assert lines[3] == "|:---|" + "---:|" * 9
    oracle = next(line for line in lines if line.startswith("| clue"))
    assert oracle.count("**") == 2 * 9  # the oracle is best in every column
    assert "**0.713** (47)" in oracle


def test_latex_uses_booktabs_and_right_aligned_columns() -> None:
    text = (SNAPSHOTS / "memeye_ci_baseline.tex").read_text()
    assert r"\begin{tabular}{lrrrrrrrrr}" in text
    assert re.findall(r"\\(?:top|mid|bottom)rule", text) == [
        r"\toprule",
        r"\midrule",
        r"\bottomrule",
    ]
    assert r"semantic\_rag\_text\_only" in text
    assert r"\textbf{0.713}" in text and r"$^\dagger$" in text
    body = [line for line in text.splitlines() if line.endswith(r"\\")]
    assert {line.count(" & ") for line in body} == {9}


def test_csv_columns_carry_value_n_interval_and_delta() -> None:
    rows = list(csv.DictReader(io.StringIO((SNAPSHOTS / "memeye_ci_baseline.csv").read_text())))
    table = json.loads((SNAPSHOTS / "memeye_ci_baseline.json").read_text())
    assert [row["system"] for row in rows] == [row["label"] for row in table["rows"]]
    for row, expected in zip(rows, table["rows"], strict=True):
        cell = expected["cells"]["x:X1"]
        assert float(row["X1"]) == pytest.approx(cell["value"], abs=1e-6)
        assert int(row["X1 n"]) == cell["n"]
        assert float(row["X1 ci_low"]) == pytest.approx(cell["ci_low"], abs=1e-6)
        if "delta" in cell:
            assert float(row["X1 delta"]) == pytest.approx(cell["delta"], abs=1e-6)
            assert row["X1 significant"] == ("1" if cell["significant"] else "0")
        else:
            assert row["X1 delta"] == ""
