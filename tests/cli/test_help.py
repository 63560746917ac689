"""Every command's ``--help`` ends with an example that is a valid invocation, and the
README links the reference documents the help points to.

The commands are collected from the registered Typer application (every command and
sub-command, and the root), so a command added later fails here until it has an example.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from memscope.cli import app
from memscope.cli.app import EXAMPLE

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield path
    if _is_group(command):
        for name, sub in sorted(command.commands.items()):
            if not sub.hidden:
                yield from _commands(sub, (*path, name))


def _is_group(command: Any) -> bool:
    return hasattr(command, "commands")  # Typer's own (vendored) click Group


ROOT_COMMAND = typer.main.get_command(app)
COMMANDS = list(_commands(ROOT_COMMAND))


def _parse(words: list[str]) -> tuple[str, ...]:
    """Parse ``words`` (after ``memscope``) as click does before it runs a command: every
    option, argument, type and choice is checked, nothing is run. Returns the command's path."""
    command: Any = ROOT_COMMAND
    context = typer.Context(command, info_name="memscope")
    path: tuple[str, ...] = ()
    while _is_group(command) and words and not words[0].startswith("-"):
        sub = command.get_command(context, words[0])
        assert sub is not None, f"no command {words[0]!r}"
        command, context = sub, typer.Context(sub, info_name=words[0], parent=context)
        path, words = (*path, words[0]), words[1:]
    command.make_context(context.info_name, list(words), parent=context.parent)
    return path


def test_every_command_is_collected() -> None:
    names = {" ".join(path) for path in COMMANDS}
    assert {"", "open", "report", "label", "config", "config show", "search"} <= names
    assert len(names) >= 24


@pytest.mark.parametrize("path", COMMANDS, ids=lambda path: " ".join(path) or "memscope")
def test_help_ends_with_an_example_that_parses(path: tuple[str, ...]) -> None:
    # 80 columns: an example too long for a terminal would wrap and fail here.
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "80", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    lines = [line.strip() for line in result.output.splitlines() if line.strip()]
    last = lines[-1]
    assert last.startswith(EXAMPLE), f"{' '.join(path) or 'memscope'}: help ends with {last!r}"
    words = shlex.split(last[len(EXAMPLE) :].strip("`"))
    assert words[0] == "memscope"
    parsed = _parse(words[1:])
    # A command's example runs that command (a group's, one of its commands; the root's, any).
    assert parsed[: len(path)] == path and parsed, (path, words)


def test_a_bad_example_would_be_caught() -> None:
    """The parser the test uses refuses what click would refuse."""
    with pytest.raises(typer.BadParameter, match="question"):
        _parse(["label", "srag_v", "--code", "SEL-STALE"])  # --question is required
    with pytest.raises(typer.TyperException, match="--no-such-option"):
        _parse(["report", "--no-such-option"])
    with pytest.raises(typer.BadParameter, match="yaml"):
        _parse(["runs", "--format", "yaml"])
    with pytest.raises(AssertionError):
        _parse(["no-such-command"])
    assert _parse(["config", "show"]) == ("config", "show")


def test_report_help_says_where_the_metrics_are_defined() -> None:
    result = runner.invoke(app, ["report", "--help"], env={"COLUMNS": "200"})
    assert "docs/metrics.md" in result.output
    for section in ("§2 answer quality", "§3 retrieval access", "§4 temporal authority"):
        assert section in result.output


def test_the_readme_links_the_reference_documents() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\((docs/[\w-]+\.md)\)", readme))
    for doc in ("docs/metrics.md", "docs/taxonomy.md", "docs/formats.md"):
        assert doc in linked, f"README.md does not link {doc}"
        assert (ROOT / doc).is_file()
