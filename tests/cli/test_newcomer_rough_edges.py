"""Rough edges a newcomer hit on the command line (issue 41.20): a new store's schema said
as current, not as a list of numbers with gaps; ``rerun --question`` showing the answer's
own scores; the default annotator (the OS user) said once, at first use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memscope.cli import app
from memscope.store.migrations import shipped_names

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()


def invoke(*args: str):
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def srag_v(store) -> str:
    invoke("ingest", str(REPO / "runs" / "srag_v"))
    return "srag_v"


def test_store_check_calls_a_new_store_current_and_names_its_migrations(srag_v: str) -> None:
    said = " ".join(invoke("store", "check").stdout.split())
    assert "versions 1, 2, 3" not in said
    names = shipped_names()
    assert f"schema: current: all {len(names)} migrations of this memscope applied" in said
    assert "1 core" in said and f"{max(names)} {names[max(names)]}" in said


def test_rerun_of_a_question_shows_the_answers_own_scores(srag_v: str) -> None:
    shown = invoke("rerun", srag_v, "--question", "q37", "--alpha", "0.7").stdout
    rows = {line.split("│")[1].strip(): line for line in shown.splitlines() if line.count("│") > 3}
    assert "0.000" in rows["EM (answer)"] and "same answer" in rows["EM (answer)"]
    assert "0.000" in rows["Judge (answer)"]
    data = json.loads(
        invoke("rerun", srag_v, "--question", "q37", "--alpha", "0.7", "-f", "json").stdout
    )
    assert data["answer"]["em"] == 0.0 and data["answer"]["judge"] == 0.0


def test_the_default_annotator_is_said_once_at_first_use(srag_v: str) -> None:
    import getpass

    first = invoke("label", srag_v, "-q", "q37", "--code", "SEL-STALE")
    said = " ".join(first.stderr.split())
    assert f"recorded as {getpass.getuser()!r}, your OS user name (the default)" in said
    assert 'annotator = "NAME" under [user]' in said and "--annotator NAME" in said
    second = invoke("label", srag_v, "-q", "q8", "--code", "RET-MISS")
    assert "your OS user name" not in second.stderr
    named = invoke("label", srag_v, "-q", "q1", "--verdict", "correct", "--annotator", "bob")
    assert "your OS user name" not in named.stderr


def test_a_configured_annotator_is_never_told(srag_v: str, tmp_path: Path, monkeypatch) -> None:
    config = tmp_path / "configured.toml"
    config.write_text('[user]\nannotator = "alice"\n')
    monkeypatch.setenv("MEMSCOPE_CONFIG", str(config))
    result = invoke("label", srag_v, "-q", "q37", "--verdict", "wrong")
    assert "your OS user name" not in result.stderr and "alice" in result.stderr


def test_runs_lists_each_benchmarks_own_score_and_no_blank_model(store, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    invoke("ingest", str(REPO / "runs" / "srag_v"))
    invoke("ingest", str(REPO / "runs" / "dmv_f2_demo"))
    shown = invoke("runs").stdout
    rows = {
        cells[0]: cells
        for line in shown.splitlines()
        if line.startswith("│")
        for cells in [[cell.strip() for cell in line.strip("│").split("│")]]
    }
    header = next(line for line in shown.splitlines() if line.startswith("┃"))
    assert " EM " not in header and "score" in header
    assert "EM 0.495" in rows["srag_v"]
    dual = rows["dmv_f2_demo:DualMem-a75"]
    assert "TSR 0.744" in dual and "" not in dual, dual
