"""``memscope demo [DIR]``: the shipped demo, written where the user asks, opens with no flags.

Here memscope runs from the checkout, so the demo comes from the repository's own
``fixtures/`` and ``runs/``; test_wheel.py checks the wheel carries the same bytes.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memscope.cli import app as cli
from memscope.usecases.runs.demo import demo_source

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()


def repository_demo_files() -> dict[str, bytes]:
    """The demo as the repository has it: every tracked file under fixtures/ and runs/."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "fixtures", "runs"],
            cwd=REPO,
            capture_output=True,
            check=True,
        ).stdout.split(b"\0")
        names = [name.decode() for name in listed if name]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout
        names = [
            str(path.relative_to(REPO))
            for tree in ("fixtures", "runs")
            for path in (REPO / tree).rglob("*")
            if path.is_file() and "__pycache__" not in path.parts
        ]
    return {name: (REPO / name).read_bytes() for name in names}


def written_files(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in root.rglob("*")
        if path.is_file() and ".memscope" not in path.parts
    }


def test_a_checkout_uses_its_own_folders() -> None:
    assert demo_source() == REPO


def test_demo_writes_the_repositorys_demo_and_says_how_to_open_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(cli, ["demo"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "cd memscope-demo && memscope open runs/srag_v/"
    expected = repository_demo_files()
    assert len(expected) > 100
    assert written_files(tmp_path / "memscope-demo") == expected
    assert not list((tmp_path / "memscope-demo").glob(".memscope-demo-*"))  # no scratch left


def test_the_copy_opens_with_no_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert runner.invoke(cli, ["demo", str(tmp_path / "my demo")]).exit_code == 0
    monkeypatch.chdir(tmp_path / "my demo")
    monkeypatch.delenv("MEMSCOPE_DB", raising=False)
    ingested = runner.invoke(cli, ["ingest", "runs"])
    assert ingested.exit_code == 0, ingested.output
    runs = {line.split()[1] for line in ingested.output.splitlines() if line.startswith("ingested")}
    assert runs == {
        *("srag_v", "srag_t", "fc_v", "oracle_v", "qonly"),
        *("cue_mm:p0", "cue_text:history_with_qa_p0"),
        *("dmv_f2_demo:DualMem-a75", "dmv_f2_demo:TextOnly", "dmv_f2_demo:NoMemory"),
    }
    report = runner.invoke(cli, ["report", "runs/srag_v/", "--format", "json"])
    assert report.exit_code == 0, report.output
    assert json.loads(report.stdout)["run"]["n_questions"] == 47
    assert (tmp_path / "my demo" / ".memscope" / "memscope.duckdb").is_file()


def test_an_existing_demo_is_kept_unless_forced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert runner.invoke(cli, ["demo", "d"]).exit_code == 0
    mine = tmp_path / "d" / "runs" / "srag_v" / "predictions.jsonl"
    mine.write_text("edited\n")
    (tmp_path / "d" / "notes.txt").write_text("keep me\n")
    refused = runner.invoke(cli, ["demo", "d"])
    assert refused.exit_code == 1
    assert "d already has fixtures/ and runs/" in refused.output
    assert "--force" in refused.output and "Traceback" not in refused.output
    assert mine.read_text() == "edited\n"
    forced = runner.invoke(cli, ["demo", "d", "--force"])
    assert forced.exit_code == 0, forced.output
    assert mine.read_bytes() == (REPO / "runs" / "srag_v" / "predictions.jsonl").read_bytes()
    assert (tmp_path / "d" / "notes.txt").read_text() == "keep me\n"


def test_a_file_in_the_way_is_one_message(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("")
    result = runner.invoke(cli, ["demo", str(tmp_path / "taken")])
    assert result.exit_code == 1
    assert "the demo folder is a file" in result.output and "Traceback" not in result.output
