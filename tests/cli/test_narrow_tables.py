"""Plain-text tables at 80 and 60 columns (issue 25, item 22).

``table`` used to squeeze the system column to nothing and cut values to ``0.77…``,
``runs`` dropped columns off the edge and ``estimate`` wrapped its intervals. Below the
width a table needs, whole columns are left out instead, every printed number is whole,
and a note names the columns left out and how to see them. The expected numbers are
formatted here from each command's ``--format json``, not taken from the table code.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from memscope.cli import app

REPO = Path(__file__).resolve().parents[2]
RUNS = REPO / "runs"
MEMEYE = [str(RUNS / name) for name in ("srag_t", "srag_v", "fc_v", "oracle_v", "qonly")]
NOTE = re.compile(r"not shown at (\d+) columns: (.*?); to see every column: (.*)$", re.DOTALL)
WIDTHS = (80, 60)
runner = CliRunner()


def invoke(width: int, *args: str) -> tuple[str, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def data(*args: str) -> dict | list:
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def left_out(text: str, width: int) -> list[str]:
    """The column names the note lists (the note may wrap; it wraps at spaces)."""
    joined = " ".join(line.strip() for line in text.splitlines())
    found = NOTE.search(joined)
    if found is None:
        return []
    assert int(found.group(1)) == width
    assert "a wider terminal" in found.group(3) and "--format" in found.group(3)
    return [name.strip() for name in found.group(2).split(", ")]


def check_shape(text: str, width: int) -> None:
    assert "…" not in text, text  # nothing cut
    assert all(cell_len(line) <= width for line in text.splitlines()), text


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One store with the demo runs and Alice's labels, shared by this module's tests."""
    path = tmp_path_factory.mktemp("narrow") / "memscope.duckdb"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MEMSCOPE_DB", str(path))
        for args in (
            ["ingest", *MEMEYE, str(RUNS / "cue_mm"), str(RUNS / "cue_text")],
            ["ingest", str(RUNS / "dmv_f2_demo")],
            ["import-labels", str(REPO / "fixtures" / "labels" / "srag_v_alice.jsonl")],
        ):
            assert runner.invoke(app, args).exit_code == 0
    return path


@pytest.fixture
def use_demo_store(demo_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMSCOPE_DB", str(demo_store))


def _cell(cell: dict) -> list[str]:
    """A results-table cell as the terminal shows it: value (n), interval on its own line."""
    if cell["value"] is None:
        return ["–"]
    shown = [f"{cell['value']:.3f} ({cell['n']})"]
    if cell.get("ci_low") is not None:
        shown.append(f"[{cell['ci_low']:.2f}, {cell['ci_high']:.2f}]")
    return shown


@pytest.mark.usefixtures("use_demo_store")
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize(
    "runs",
    [
        MEMEYE,
        ["cue_mm:p0", "cue_text:history_with_qa_p0", "--ci"],
        ["dmv_f2_demo:TextOnly", "--ci"],
    ],
    ids=["memeye", "cuemem-ci", "dmv-ci"],
)
def test_table_prints_fewer_columns_in_full(width: int, runs: list[str]) -> None:
    text, _ = invoke(width, "table", *runs)
    check_shape(text, width)
    result = data("table", *runs)
    labels = [column["label"] for column in result["columns"]]
    omitted = left_out(text, width)
    assert set(omitted) <= set(labels)
    if width == 60:
        assert omitted, "nothing left out at 60 columns?"
    shown = [c for c in result["columns"] if c["label"] not in omitted]
    assert shown, "no column left"
    for row in result["rows"]:
        for column in shown:
            for part in _cell(row["cells"][column["key"]]):
                assert part in text, (column["label"], part)
    assert "all" not in omitted  # `all` is the last column to go


@pytest.mark.usefixtures("use_demo_store")
@pytest.mark.parametrize("width", WIDTHS)
def test_runs_prints_fewer_columns_in_full(width: int) -> None:
    text, _ = invoke(width, "runs")
    check_shape(text, width)
    omitted = left_out(text, width)
    assert set(omitted) <= {"task", "model", "method", "n", "EM", "Judge", "retrieval"}
    if width == 60:
        assert {"method", "retrieval"} <= set(omitted)
    rows = data("runs")
    assert isinstance(rows, list)
    for row in rows:
        if "EM" not in omitted:
            assert f"{row['em']:.3f}" in text
        if "Judge" not in omitted and row["n_judged"]:
            assert f"{row['judge']:.3f}" in text
        if "n" not in omitted:
            assert re.search(rf"│\s+{row['n_questions']} │", text)
        # The run id is there in full, folded onto lines of the first column at worst.
        first_column = "".join(
            line.split("│")[1].strip() for line in text.splitlines() if line.startswith("│")
        )
        assert row["run_id"] in first_column


def _pct(value: dict) -> str:
    return f"{100 * value['estimate']:.0f}% [{100 * value['ci_low']:.0f}, {100 * value['ci_high']:.0f}]"


@pytest.mark.usefixtures("use_demo_store")
@pytest.mark.parametrize("width", WIDTHS)
def test_estimate_prints_whole_intervals(width: int) -> None:
    args = ("estimate", "srag_v", "--annotator", "alice")
    text, _ = invoke(width, *args)
    check_shape(text, width)
    omitted = left_out(text, width)
    assert set(omitted) <= {
        "labelled / failures",
        "labels only",
        "n eff (labels only)",
        "PPI++",
        "n eff (PPI++)",
    }
    if width == 60:
        assert "n eff (labels only)" in omitted and "PPI++" not in omitted
    result = data(*args)
    lines = text.splitlines()
    for entry in result["codes"].values():
        for group in ["overall", *result["strata"]]:
            values = entry["overall"] if group == "overall" else entry["per_stratum"][group]
            for name, key in (("labels only", "labels_only"), ("PPI++", "ppi")):
                if name not in omitted and values[key] is not None:
                    interval = _pct(values[key])
                    assert any(interval in line for line in lines), (name, group, interval)


@pytest.mark.usefixtures("use_demo_store")
def test_a_wide_terminal_shows_every_column_and_no_note() -> None:
    text, _ = invoke(200, "table", *MEMEYE)
    assert "not shown at" not in text
    for label in ("X1", "X4", "Y3", "all", "macro"):
        assert f" {label} " in text
    text, _ = invoke(200, "estimate", "srag_v", "--annotator", "alice")
    assert "not shown at" not in text and "labelled / failures" in text


OTHER_TABLES = {
    "report memeye": ["report", "srag_v"],
    "report cue-mem": ["report", "cue_mm:p0"],
    "report dmv-bench": ["report", "dmv_f2_demo:TextOnly"],
    "compare": ["compare", "srag_t", "srag_v"],
    "rerun": ["rerun", "srag_v", "--alpha", "0.7", "--alpha", "0.5", "--resamples", "200"],
    "rerun question": ["rerun", "srag_v", "--question", "q37", "--alpha", "0.7"],
}
LIST_CUT = re.compile(r", … \(\+\d+\)")
"""compare's question lists end in "… (+N)" on purpose: that is a count, not a cut number."""


@pytest.mark.usefixtures("use_demo_store")
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", sorted(OTHER_TABLES))
def test_the_other_reports_cut_no_number_either(width: int, name: str) -> None:
    """report, compare and rerun fit their tables the same way."""
    text, _ = invoke(width, *OTHER_TABLES[name])
    check_shape(LIST_CUT.sub(",", text), width)
    lines = text.splitlines()
    boxed = [line for line in lines if line.startswith(("│", "┃"))]
    assert boxed and all(line.endswith(("│", "┃")) for line in boxed)  # no table over the edge
    if name == "report cue-mem":  # "1.000 (n=…" at 60 columns before
        assert "│ 1.000 (n=3) │" in text
    if name == "report dmv-bench":  # the level column was squeezed to nothing
        assert re.search(r"│\s+1 │\s+60 │ 0\.533 │\s+\[0\.37, 0\.69\] │", text)
    if name == "rerun":  # every interval on one line, whole
        for interval in re.findall(r"\[[^\]\n]*\]", text):
            assert re.fullmatch(r"\[[+-]\d\.\d{3}, [+-]\d\.\d{3}\]", interval), interval
