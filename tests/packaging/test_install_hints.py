"""Every install command memscope prints or documents names the distribution pyproject.toml
declares: ``memscope`` on the package index is an unrelated project, so a hint saying
``pip install memscope`` installs the wrong thing (issue 25).

The hints the CLI prints are collected from real output: ``memscope --help`` and an engine
command in a process where the engine's libraries are hidden (``no_engine/``), and
``memscope plot`` without matplotlib. Every file a user or a developer reads (sources,
scripts, README and docs) is scanned for install commands too, so a new hint cannot slip in
with the old name.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from test_core_without_engine import no_engine_env
from typer.testing import CliRunner

from builders import small_run
from memscope.cli import app as cli
from memscope.distribution import DISTRIBUTION, install_command

REPO = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
DECLARED = PROJECT["name"]

INSTALL = re.compile(
    r"\b(?:pipx|pip|uv pip|uv tool) install(?:\s+-{1,2}[a-z-]+)*\s+[\"']?([A-Za-z0-9_.\-]+)"
)
"""An install command and the first package (or wheel file) it names."""

runner = CliRunner()


def memscope_targets(text: str) -> list[str]:
    """The packages or wheels named by the install commands in ``text`` that are memscope's."""
    return [
        target
        for target in INSTALL.findall(text)
        if target.lower().replace("_", "-").startswith("memscope")
    ]


def names_the_declared_distribution(target: str) -> bool:
    if target.endswith(".whl"):  # a wheel's file name: the name with "_", then "-version"
        return target.startswith(DECLARED.replace("-", "_") + "-")
    return target == DECLARED


def test_the_distribution_is_the_one_pyproject_declares() -> None:
    assert DISTRIBUTION == DECLARED != "memscope"
    assert PROJECT["scripts"] == {"memscope": "memscope.cli:main"}  # the command stays
    assert install_command() == f"pip install {DECLARED}"
    assert install_command("engine") == f"pip install '{DECLARED}[engine]'"
    assert set(PROJECT["optional-dependencies"]) >= {"engine", "plot"}


def test_the_scanner_finds_a_wrong_name() -> None:
    """The scan below would catch the old hints (it is not vacuous)."""
    old = "needs pip install 'memscope[engine]'; pipx install memscope; pip install -q memscope-0.1.0-py3-none-any.whl"
    found = memscope_targets(old)
    assert found == ["memscope", "memscope", "memscope-0.1.0-py3-none-any.whl"]
    assert not any(names_the_declared_distribution(target) for target in found)
    assert memscope_targets("pip install sounddevice; pip install -e .") == []


def test_every_hint_the_cli_prints_names_the_distribution(tmp_path: Path, monkeypatch) -> None:
    printed: list[str] = []
    helped = runner.invoke(cli, ["--help"])
    assert helped.exit_code == 0
    printed.append(helped.output)

    refused = subprocess.run(
        [sys.executable, "-m", "memscope", "index", str(tmp_path / "dialog.json")],
        cwd=tmp_path,
        env=no_engine_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 1, refused.stderr
    printed.append(refused.stderr)

    run_dir = small_run(tmp_path)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    plotted = runner.invoke(
        cli, ["plot", "heatmap", str(run_dir), "--out", str(tmp_path / "grid.svg")]
    )
    assert plotted.exit_code == 1
    printed.append(plotted.output)

    hints = [memscope_targets(output) for output in printed]
    assert all(hints), printed  # each of them does print an install hint
    for target in (target for found in hints for target in found):
        assert names_the_declared_distribution(target), target


def documented_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.split(b"\0")
    paths = [REPO / name.decode() for name in listed if name]
    # Untracked new files count too (a hint added in this change and not yet committed).
    paths += [path for path in (REPO / "src").rglob("*.py") if path not in paths]
    return [
        path
        for path in paths
        if path.suffix in {".py", ".md", ".sh", ".toml", ".txt", ".in", ""}
        and path.is_file()
        and "fixtures" not in path.relative_to(REPO).parts
    ]


@pytest.mark.parametrize("tree", ["src", "scripts", "docs", "tests", "benchmarks", "."])
def test_no_file_tells_to_install_another_distribution(tree: str) -> None:
    wrong = []
    for path in documented_files():
        relative = path.relative_to(REPO)
        top = relative.parts[0] if len(relative.parts) > 1 else "."
        if top != tree or path == Path(__file__).resolve():
            continue
        for target in memscope_targets(path.read_text(errors="replace")):
            if not names_the_declared_distribution(target):
                wrong.append(f"{relative}: {target}")
    assert wrong == []
