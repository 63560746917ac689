"""The README's LoCoMo commands, as written, on LoCoMo's real download (issue 41.17).

The README's ``sh`` blocks that name ``LoCoMo/`` run in a scratch folder where ``LoCoMo``
is LoCoMo's layout (``data/``, ``results/``: the shared samples, CC BY-NC, linked, never
copied into the repository), ``zep`` and ``memobase`` two systems' harness folders (the
shared Zep and mem0-harness Memobase files, copied into the scratch folder under the names
the README gives them) and ``tests`` the clone's, so ``import-labels tests/data/verdicts/…`` is the
project's own verdict file; the audit's output gives the numbers the prose quotes. Where
the samples are not on the machine, the test skips and says so. ``retrieve`` needs the
memory engine and three CPU-minutes (``tests/engine/test_engine_locomo.py`` covers it),
and ``open`` is the app (``tests/tui/test_locomo_app.py``): both are left out here.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_locomo import shared_locomo
from builders_locomo_harness import shared_harnesses
from memscope.cli import app

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
PROSE = " ".join(README.split())
LEFT_OUT = {"retrieve", "open"}
"""Commands run elsewhere (see the module docstring), and what follows from them."""
runner = CliRunner()


def locomo_commands() -> list[list[str]]:
    """Every memscope line of the README's sh blocks that work on ``LoCoMo/``, in order."""
    commands: list[list[str]] = []
    for block in re.findall(r"```sh\n(.*?)```", README, flags=re.S):
        if "LoCoMo/" not in block and "rsr_0612" not in block and "zep/" not in block:
            continue
        for line in block.splitlines():
            words = shlex.split(line.split(" #")[0])
            if words[:1] == ["memscope"]:
                commands.append(words[1:])
    return commands


def test_the_readme_names_locomos_own_layout() -> None:
    """LoCoMo's download has ``results/`` (its runs) beside ``data/``; no ``outputs/``."""
    paths = [word for argv in locomo_commands() for word in argv if word.startswith("LoCoMo/")]
    assert paths and "LoCoMo/outputs/" not in README
    assert all(word.split("/")[1] in {"data", "results"} for word in paths), paths


def test_the_readme_locomo_commands_run_and_give_its_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = shared_locomo()  # skips, naming the missing samples, where they are absent
    (tmp_path / "LoCoMo").symlink_to(root, target_is_directory=True)
    (tmp_path / "tests").symlink_to(REPO / "tests", target_is_directory=True)
    harnesses = shared_harnesses()  # skips, naming them, where they are absent
    for name, folder in (("zep", "zep"), ("memobase", "mem0-evals")):
        (tmp_path / name).mkdir()
        for source in (harnesses / folder).glob("*.json"):
            shutil.copyfile(source, tmp_path / name / source.name)
    monkeypatch.chdir(tmp_path)
    outputs: dict[str, str] = {}
    for argv in locomo_commands():
        if argv[0] in LEFT_OUT or "locomo_minilm" in argv:
            continue
        result = runner.invoke(app, argv)
        assert result.exit_code == 0, (argv, result.output)
        assert "Traceback" not in result.output
        outputs[" ".join(argv)] = result.output
    assert (
        "agree with the benchmark's own summary"
        in outputs["table rsr_0612:honcho --by category --metric judge --check-upstream"]
    )
    imported = outputs[
        "import-labels tests/data/verdicts/honcho_conv26.csv --run rsr_0612:honcho --annotator team"
    ]
    assert "40 verdict(s) imported as team" in imported
    audit = " ".join(outputs["audit rsr_0612:honcho"].split())
    agreement, n = re.search(r"agrees with people on (\d+) % of (\d+) answers", PROSE).groups()
    assert f"agreement {agreement}% " in audit and f"of {n} ·" in audit, audit
    (kappa,) = re.search(r"kappa (0\.\d\d): it passed", PROSE).groups()
    assert f"kappa {kappa}" in audit
    grader, corrected, verdicts_only = re.search(
        r"The judge's ([\d.]+) % becomes ([\d.]+ % \[\d+, \d+\]) corrected, against "
        r"(\[\d+, \d+\]) from the verdicts alone",
        PROSE,
    ).groups()
    all_row = next(
        line for line in outputs["audit rsr_0612:honcho"].splitlines() if "│ all " in line
    )
    assert f"{grader}%" in all_row and corrected.replace(" %", "%") in all_row, all_row
    assert verdicts_only in all_row, all_row
    (plugin,) = re.search(
        r"plug-in interval \(`--variance plugin`\) is (\[\d+, \d+\])", PROSE
    ).groups()
    plugin_audit = runner.invoke(app, ["audit", "rsr_0612:honcho", "--variance", "plugin"])
    row = next(line for line in plugin_audit.output.splitlines() if "│ all " in line)
    assert plugin in row.split("│")[-3], row
