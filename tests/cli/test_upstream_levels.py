"""Per-level numbers checked against upstream's, with the counting named (issue 41 item 2).

The MemEye runner's ``metrics.json`` counts a question with several X / Y labels in every
bucket it names; the paper (and memscope's default) places it by its highest label. On
the srag_v demo six questions carry several labels: X2 is 0.475 (n 10) by the paper's
rule and 0.583 (n 15) by the runner's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memscope.cli import app

runner = CliRunner()
REPO = Path(__file__).parents[2]
SRAG_V = REPO / "runs" / "srag_v"
DIALOG = REPO / "fixtures" / "memeye" / "dialog"


def _invoke(*args: str):
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def _cells(*args: str) -> dict:
    table = json.loads(_invoke("table", *args, "--format", "json").stdout)
    return table["rows"][0]["cells"]


def test_membership_every_reproduces_the_runners_metrics_json() -> None:
    summary = json.loads((SRAG_V / "metrics.json").read_text())["summary"]
    cells = _cells(str(SRAG_V), "--membership", "every", "--by", "x,y,cell")
    compared = 0
    for key, axis in (("by_x", "x"), ("by_y", "y"), ("by_cell", "cell")):
        for level, means in summary[key].items():
            assert cells[f"{axis}:{level}"]["value"] == pytest.approx(means["em"]), (key, level)
            compared += 1
    assert compared == 4 + 3 + 12
    assert (cells["x:X2"]["value"], cells["x:X2"]["n"]) == (pytest.approx(0.5833, abs=1e-4), 15)
    default = _cells(str(SRAG_V), "--by", "x")
    assert (default["x:X2"]["value"], default["x:X2"]["n"]) == (0.475, 10)


def test_the_caption_names_the_counting() -> None:
    plain = _invoke("table", str(SRAG_V), "-f", "markdown").stdout.splitlines()[0]
    assert "a question in the column of its highest X / Y label (the paper's rule)" in plain
    every = _invoke("table", str(SRAG_V), "--membership", "every", "-f", "markdown")
    assert "every X / Y column it names (the runner's counting)" in every.stdout.splitlines()[0]


def test_membership_is_refused_where_it_means_nothing() -> None:
    dmv = Path(__file__).parents[2] / "runs" / "dmv_f2_demo"
    result = runner.invoke(app, ["table", str(dmv), "--membership", "every"])
    assert result.exit_code != 0 and "only MemEye" in result.output
    result = runner.invoke(app, ["table", str(SRAG_V), "--membership", "most"])
    assert result.exit_code != 0 and "--membership most" in result.output


def test_check_upstream_compares_every_level_and_says_what(tmp_path: Path) -> None:
    result = _invoke("table", str(SRAG_V), "--check-upstream", "-f", "json")
    checks = json.loads(result.stdout)["upstream"]["checks"]
    fields = {c["field"]: c for c in checks}
    assert fields["by_x.X2.em"]["agrees"] and fields["by_x.X2.em"]["memscope"] == pytest.approx(
        0.5833, abs=1e-4
    )
    assert {"by_y.Y3.judge", "by_cell.X4_Y3.f1"} <= set(fields)
    text = " ".join(
        _invoke("table", str(SRAG_V), "--check-upstream", "-f", "markdown").stderr.split()
    )
    assert "compared: metrics.json: by_x (em, f1, judge)" in text
    assert "a question in every bucket it names" in text
    # A per-level value upstream wrote differently is found (only overall was compared before).
    copy = tmp_path / "srag_v"
    shutil.copytree(SRAG_V, copy)
    metrics = json.loads((copy / "metrics.json").read_text())
    metrics["summary"]["by_x"]["X2"]["em"] = 0.9
    (copy / "metrics.json").write_text(json.dumps(metrics))
    text = " ".join(
        _invoke(
            "table", str(copy), "--check-upstream", "-f", "markdown", "--dataset", str(DIALOG)
        ).stderr.split()
    )
    assert "1 of" in text and "by_x.X2.em: upstream 0.9" in text


def test_ingest_says_what_it_compared_and_what_not(tmp_path: Path) -> None:
    copy = tmp_path / "srag_v"
    shutil.copytree(SRAG_V, copy)
    text = " ".join(_invoke("ingest", str(copy), "--dataset", str(DIALOG)).output.split())
    assert "in the 5 values recomputed: open_count, overall.{em, f1, bleu_1, judge}" in text
    assert "not compared here: by_x, by_y, by_cell" in text
