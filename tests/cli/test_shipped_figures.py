"""The figures shipped in docs/ are what their stated commands make (issue 25, item 8).

scripts/figures.py states each figure's `memscope plot` line and the README steps it
rests on; run here into a scratch folder, they give the shipped bytes. The README shows
the same plot lines, writing into the working folder: no README command writes into
docs/, so following it never rewrites a tracked file.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")


def figures_script():
    spec = importlib.util.spec_from_file_location("figures", REPO / "scripts" / "figures.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def readme_commands() -> list[list[str]]:
    """Every memscope command of the README's bash and console blocks, as argv."""
    found = []
    for block in re.findall(r"```(?:bash|console)\n(.*?)```", README, flags=re.S):
        for line in block.splitlines():
            line = line.split(" #")[0].strip().removeprefix("$ ")
            for part in line.split("&&"):
                words = shlex.split(part)
                if words[:1] == ["memscope"]:
                    found.append(words[1:])
    return found


def test_the_readme_writes_no_tracked_file() -> None:
    commands = readme_commands()
    outs = [argv[argv.index("--out") + 1] for argv in commands if "--out" in argv]
    assert outs and not [out for out in outs if out.startswith("docs")]
    figures = figures_script().FIGURES
    for name, argv in figures.items():
        assert [*argv, "--out", name] in commands, name  # the README's line, outside docs/
        assert f"(docs/{name})" in README  # and the README shows the shipped one
    assert "/fig-*.svg" in (REPO / ".gitignore").read_text().splitlines()


def test_the_shipped_figures_are_what_their_commands_make(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    work = tmp_path / "work"
    work.mkdir()
    (work / "runs").symlink_to(REPO / "runs")
    (work / "fixtures").symlink_to(REPO / "fixtures")
    out = tmp_path / "figures"
    out.mkdir()
    written = figures_script().write_figures(out, cwd=work, scratch=tmp_path / "store")
    assert [path.name for path in written] == ["fig-failure-codes.svg", "fig-recency.svg"]
    for path in written:
        assert path.read_bytes() == (REPO / "docs" / path.name).read_bytes(), path.name
