"""The README followed top to bottom, in order, gives exactly the numbers it shows (issue 25).

Every ``memscope`` command of the README's shell and console blocks runs in document
order, on one fresh store, in a scratch folder that links the repository's runs/ and
fixtures/ (so whatever a command writes lands there), as a newcomer would run them: the
set-up block's ``memscope open runs/srag_v/`` is the app, driven with Pilot through the
first five minutes' labelling of q37; everything else goes through the CLI. Where the
README shows a command's output (the results tables) its lines must be what the command
prints; where it quotes numbers (the sample, the agreement, the estimate, the figures)
they must be the printed ones.

The point of the order: ``table`` brings the clue-only oracle ``oracle_v`` into the store
before ``estimate``. srag_v's suggestions keep the twin runs they were first made with
(none, when ``open`` made them), so the estimate is the README's; ``--twin oracle_v`` is
the README's other set of numbers.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from helpers import ready, settle
from typer.testing import CliRunner

from memscope.cli import app as cli
from memscope.store import Store
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest
from memscope.usecases.labels.events import current_labels

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
PROSE = " ".join(README.split())
runner = CliRunner()


def readme_steps() -> list[tuple[list[str], str]]:
    """Every memscope command of the shell and console blocks in document order, as argv,
    with the README text that follows its block (up to the next block)."""
    blocks = list(re.finditer(r"```(?:bash|console)\n(.*?)```", README, flags=re.S))
    steps = []
    for index, block in enumerate(blocks):
        after = README[block.end() : blocks[index + 1].start() if index + 1 < len(blocks) else None]
        for line in block.group(1).splitlines():
            line = line.split(" #")[0].strip().removeprefix("$ ")
            for part in line.split("&&"):
                words = shlex.split(part)
                if words[:1] == ["memscope"]:
                    steps.append((words[1:], after))
    return steps


def quoted(pattern: str) -> tuple[str, ...]:
    """The numbers the README's prose quotes where ``pattern`` matches (once, exactly)."""
    found = re.findall(pattern, PROSE)
    assert len(found) == 1, pattern
    return found[0] if isinstance(found[0], tuple) else (found[0],)


def pct(value: float) -> str:
    return f"{100 * value:.0f}"


def run(argv: list[str]):
    result = runner.invoke(cli, argv)
    assert result.exit_code == 0, (argv, result.output)
    assert "Traceback" not in result.output
    return result


def shown_table(text: str) -> list[str]:
    """The Markdown table rows of a text (its first table)."""
    lines = text.strip().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return lines[start:end]


async def open_as_the_first_five_minutes_do(argv: list[str], store: Store) -> None:
    """`memscope open RUN`: the app on the run, q37's suggestion accepted at alpha 0.7."""
    app = make_app(OpenRequest(argv[1:], annotator="newcomer", question="q37"))
    async with app.run_test(size=(140, 42)) as pilot:
        await ready(pilot)
        assert app.session.qid == "q37"
        for _ in range(3):
            await pilot.press("left_square_bracket")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
    assert current_labels(store, "srag_v", annotator="newcomer")["q37"].codes == ("SEL-STALE",)


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "runs").symlink_to(REPO / "runs")
    (folder / "fixtures").symlink_to(REPO / "fixtures")
    monkeypatch.chdir(folder)
    return folder


async def test_the_readme_in_order_gives_its_numbers(store: Store, scratch: Path) -> None:
    steps = readme_steps()
    names = [argv[0] for argv, _ in steps]
    assert names[0] == "open" and names.index("table") < names.index("estimate")
    checked = set()
    for argv, after in steps:
        if argv[0] == "open":
            await open_as_the_first_five_minutes_do(argv, store)
            continue
        result = run(argv)
        if argv[0] == "table":  # the README shows the table it prints
            assert shown_table(result.stdout) == shown_table(after), argv
            checked.add("table")
        elif argv[0] == "sample":
            (line,) = quoted(r'"(sample: 10 of 17 failures planned over \d+ \w+ strata, [^"]+)"')
            assert line in result.stderr
            checked.add("sample")
        elif argv[0] == "agreement":
            data = json.loads(run([*argv, "--format", "json"]).stdout)
            kappa, n = quoted(r"Kappa on the primary code is ([\d.]+) over the (\d+) questions")
            assert (f"{data['primary']['kappa']:.2f}", str(data["n"])) == (kappa, n)
            checked.add("agreement")
        elif argv[0] == "estimate":
            check_estimate(argv, result.stdout, result.stderr)
            checked.add("estimate")
        elif argv[0] == "plot":
            name = argv[argv.index("--out") + 1]
            assert (scratch / name).read_bytes() == (REPO / "docs" / name).read_bytes(), name
            checked.add("plot")
    assert checked == {"table", "sample", "agreement", "estimate", "plot"}
    assert not (scratch / "docs").exists()  # nothing was written over a shipped file


def check_estimate(argv: list[str], table: str, notes: str) -> None:
    """The estimate the README quotes, with the oracle in the store, and with --twin."""
    listed = json.loads(run(["runs", "--format", "json"]).stdout)
    assert "oracle_v" in [entry["run_id"] for entry in listed]  # `table` brought it in
    assert "Twin run oracle_v is in the store but not used by the suggestions of srag_v" in notes
    (agree,) = quoted(r"Here the rules agree with Alice on (\d+) %")
    assert f"rules agree with the labels on {agree}%" in table
    low_ppi = quoted(
        r"USE-EVID is (\d+) % \[(\d+), (\d+)\] of the failures with n eff (\d+), against "
        r"\[(\d+), (\d+)\] and n eff (\d+) from her labels alone"
    )
    result = json.loads(run([*argv, "--format", "json"]).stdout)
    assert result["twin_runs"] == []
    evid = result["codes"]["USE-EVID"]["overall"]
    ppi, labels = evid["ppi"], evid["labels_only"]
    printed = (
        pct(ppi["estimate"]),
        pct(ppi["ci_low"]),
        pct(ppi["ci_high"]),
        f"{ppi['effective_n']:.0f}",
        pct(labels["ci_low"]),
        pct(labels["ci_high"]),
        f"{labels['effective_n']:.0f}",
    )
    assert printed == low_ppi
    row = f"{printed[0]}% [{printed[1]}, {printed[2]}]"
    assert row in table  # and the table prints them so
    changed = quoted(r"four USE-EVID suggestions \(([^)]+)\) become ENC-PERC")[0].split(", ")
    twin_agree, twin_low, twin_high, twin_n = quoted(
        r"the rules agree with Alice on (\d+) %, and USE-EVID's PPI\+\+ interval is her "
        r"labels' own, \[(\d+), (\d+)\] with n eff (\d+)"
    )
    with_oracle = run([*argv, "--twin", "oracle_v", "--format", "json"])
    twin = json.loads(with_oracle.stdout)
    assert twin["twin_runs"] == ["oracle_v"] and pct(twin["rule_agreement"]) == twin_agree
    evid = twin["codes"]["USE-EVID"]["overall"]
    assert (pct(evid["ppi"]["ci_low"]), pct(evid["ppi"]["ci_high"])) == (twin_low, twin_high)
    assert f"{evid['ppi']['effective_n']:.0f}" == twin_n
    assert evid["ppi"]["ci_high"] == pytest.approx(evid["labels_only"]["ci_high"])
    said = " ".join(twin["notes"])
    assert all(
        f"{qid} now uses oracle_v: ENC-PERC instead of USE-EVID" in said for qid in changed[:3]
    )
    run([*argv, "--twin", "none"])  # back to the README's choice for the steps after
