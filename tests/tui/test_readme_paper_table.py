"""The README's "From labels to a paper table", step by step, on the demo run.

The commands of the section's console blocks are run as written (in a scratch folder
that links the repository's runs/ and fixtures/, so figures land in it),
the app step is driven with Pilot, and the numbers the prose quotes are checked
against what the commands print.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from helpers import ready
from typer.testing import CliRunner

from memscope.cli import app as cli
from memscope.store import Store
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.tui.widgets.status_bar import status_view_text
from memscope.usecases.labels.sample import open_sample
from memscope.usecases.runs.ingest import resolve_run

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
SECTION = README.split("## From labels to a paper table", 1)[1].split("\n## ", 1)[0]
runner = CliRunner()


def section_commands() -> list[list[str]]:
    """Every ``$ memscope ...`` line of the section's console blocks, as argv."""
    commands = []
    for block in re.findall(r"```console\n(.*?)```", SECTION, flags=re.S):
        for line in block.splitlines():
            line = line.strip()
            if line.startswith("$ memscope "):
                commands.append(shlex.split(line)[2:])
    return commands


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "runs").symlink_to(REPO / "runs")
    (folder / "fixtures").symlink_to(REPO / "fixtures")
    monkeypatch.chdir(folder)
    return folder


def _run(argv: list[str]):
    result = runner.invoke(cli, argv)
    assert result.exit_code == 0, (argv, result.output)
    assert "Traceback" not in result.output
    return result


async def test_from_labels_to_a_paper_table(store: Store, scratch: Path) -> None:
    commands = section_commands()
    assert [argv[0] for argv in commands] == [
        "sample", "import-labels", "agreement", "estimate", "plot", "plot",
    ]  # fmt: skip

    # 1. Plan a sample: the app's sampled queue, its one line and its status bar.
    assert "memscope open runs/srag_v/ --queue sample --sample-size 10 --seed 7" in SECTION
    run_id = resolve_run(store, "runs/srag_v/")
    plan, _ = open_sample(store, run_id, seed=7, sample_size=10)
    assert plan.describe() in SECTION.replace("\n   ", " ")
    app = make_app(OpenRequest(["runs/srag_v/"], annotator="alice", queue="sample"))
    async with app.run_test() as pilot:
        await ready(pilot)
        status = status_view_text(app.session.status_view(with_question=False)).plain
        quoted = re.search(r'"(sample: 0 of 10 planned · stratum \w+ 0/\d)"', SECTION)
        assert quoted and quoted.group(1) in status
    shown = _run(commands[0])
    assert "stored sample: 10 of 17 failures planned" in shown.output  # the same plan, kept

    # 2. Merge the annotators (twice: the second import adds nothing).
    imported = _run(commands[1])
    assert "imported 18 event(s), skipped 0 already present" in imported.output
    again = _run(commands[1])
    assert "imported 0 event(s), skipped 18 already present" in again.output
    _run(commands[2])
    agreement = json.loads(_run([*commands[2], "--format", "json"]).stdout)
    assert f"Kappa on the primary code is {agreement['primary']['kappa']:.2f}" in SECTION
    assert f"over the {agreement['n']} questions both labelled" in SECTION
    disagreeing = [entry["qid"] for entry in agreement["disagreements"]]
    assert "the two\n   disagreements are q8 and q33" in SECTION and disagreeing == ["q8", "q33"]

    # 3. Estimate: the numbers the prose quotes.
    table = _run(commands[3])
    assert "PPI++" in table.output and "10 of 17 failures labelled by alice" in table.output
    result = json.loads(_run([*commands[3], "--format", "json"]).stdout)
    assert result["design"] == "sample plan: cell strata, seed 7"
    assert f"agree with Alice on {100 * result['rule_agreement']:.0f} %" in SECTION
    evid = result["codes"]["USE-EVID"]["overall"]
    ppi, labels = evid["ppi"], evid["labels_only"]
    prose = " ".join(SECTION.split())
    assert (
        f"USE-EVID is {100 * ppi['estimate']:.0f} % [{100 * ppi['ci_low']:.0f}, "
        f"{100 * ppi['ci_high']:.0f}] of the failures with n eff {ppi['effective_n']:.0f}"
    ) in prose
    assert (
        f"against [{100 * labels['ci_low']:.0f}, {100 * labels['ci_high']:.0f}] and n eff "
        f"{labels['effective_n']:.0f} from her labels alone"
    ) in prose
    assert ppi["ci_high"] - ppi["ci_low"] < labels["ci_high"] - labels["ci_low"]

    # 4. Figures: written into the working folder, byte for byte the ones in docs/.
    for argv in commands[4:]:
        _run(argv)
        name = argv[argv.index("--out") + 1]
        assert "/" not in name
        assert (scratch / name).read_bytes() == (REPO / "docs" / name).read_bytes()

    # 5. The same figures in the app (tests/tui/test_figures.py holds their numbers equal to
    # the figures above): the keys the section names are the app's.
    keys = app.binding_catalogue()
    assert keys["matrix.figure"].keys == "f" and keys["question.sweep"].keys == "f"
    assert "`f` on the matrix (`m`)" in SECTION and "`f` on a\n   question" in SECTION
