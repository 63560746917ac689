"""The private Textual and Typer APIs memscope leans on, held to what it needs from them.

Textual offers no public way to add a binding *with an id* to one screen instance
(``BindingsMap.bind`` takes none, and keymaps address bindings by id), nor a public
character → key-name function; Typer offers no hook for the console its usage errors go
to. memscope uses the private ones (pinned: textual <9, typer <0.29 in pyproject.toml);
these tests fail first when an upgrade moves them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from textual.binding import Binding, BindingsMap
from textual.keys import _character_to_key, key_to_character
from typer.testing import CliRunner

from memscope.taxonomy import load_taxonomy
from memscope.tui.keymap import code_binding_id, code_bindings


@pytest.mark.parametrize(
    ("character", "key"), [("1", "1"), ("x", "x"), ("?", "question_mark"), ("/", "slash")]
)
def test_character_to_key_names_the_key_textual_delivers(character: str, key: str) -> None:
    assert _character_to_key(character) == key
    if character != "/":  # Textual's public inverse does not know "slash"
        assert key_to_character(key) == character


def test_every_shipped_code_key_becomes_a_binding_with_its_id() -> None:
    codes = [code for code in load_taxonomy().codes if code.key]
    assert codes
    bindings = code_bindings(codes)
    assert [b.id for b in bindings] == [code_binding_id(code.code) for code in codes]
    for binding, code in zip(bindings, codes, strict=True):
        assert key_to_character(binding.key) == code.key


def test_add_binding_makes_a_binding_reachable_by_its_key() -> None:
    bindings = BindingsMap()
    binding = Binding("question_mark", "toggle_code('X')", "X", show=False, id="question.code.X")
    bindings._add_binding(binding)
    assert bindings.get_bindings_for_key("question_mark") == [binding]


def test_typer_usage_errors_go_through_the_sanitised_console() -> None:
    from typer import rich_utils

    from memscope.cli import app

    assert getattr(rich_utils._get_rich_console, "memscope_sanitised", False)
    result = CliRunner().invoke(app, ["report", "--frmat\x1b[31mred"])
    assert result.exit_code != 0
    assert "\x1b[31m" not in result.output
    assert "frmat" in result.output


def test_typer_usage_errors_are_sanitised_in_a_fresh_process(tmp_path: Path) -> None:
    """In a ``memscope`` process Typer's printer is imported only for the error, and the
    patch is applied as it is imported (cli/typer_errors.py)."""
    for argv in (["report", "--frmat\x1b[31mred"], ["no\x1b]0;title\x07such"]):
        done = subprocess.run(
            [sys.executable, "-m", "memscope", *argv],
            capture_output=True,
            text=True,
            env={**os.environ, "MEMSCOPE_DB": str(tmp_path / "store.duckdb")},
        )
        assert done.returncode == 2, done.stderr
        assert "\x1b" not in done.stderr and "\x07" not in done.stderr, done.stderr
        assert "Usage: python -m memscope" in done.stderr
