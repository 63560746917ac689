"""A key bound twice (issue 25, item 19): refused where both bindings are active on one
screen (its own bindings, its widgets' and the app's), with both binding ids and the key;
the built-in shadows (``m`` on the matrix, ``q`` in help) and one key on two screens stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from memscope.config import load_config
from memscope.errors import ConfigError
from memscope.tui.app import make_app
from memscope.tui.open_request import OpenRequest


def _config(home: Path, text: str) -> Path:
    path = home / "config.toml"
    path.write_text(text)
    return path


REFUSED = [
    ('"question.undo" = "j"', "'j'", "question.next", "question.undo", "question"),
    ('"question.next" = "down"', "'down' (↓)", "question.next", "question.round_next", "question"),
    ('"app.quit" = "j"', "'j'", "app.quit", "queue.next", "queue"),
    ('"question.next" = "m"', "'m'", "app.matrix", "question.next", "question"),
    (
        '"question.code.RET-MISS" = "?"',
        "'question_mark' (?)",
        "app.help",
        "question.code.RET-MISS",
        "question",
    ),
    ('"queue.sort" = "f"', "'f'", "queue.kind", "queue.sort", "queue"),
    ('"runs.mark" = "enter"', "'enter' (⏎)", "runs.open", "runs.mark", "runs"),
]


@pytest.mark.parametrize(("keys", "key", "first", "second", "screen"), REFUSED)
def test_a_key_bound_twice_on_one_screen_is_refused(
    isolated_env: Path, keys: str, key: str, first: str, second: str, screen: str
) -> None:
    path = _config(isolated_env, f"[keys]\n{keys}\n")
    with pytest.raises(ConfigError) as raised:
        make_app(OpenRequest(["x"]))
    message = str(raised.value)
    assert f"key {key} is bound to both {first} and {second} on the {screen} screen" in message
    assert str(path) in message and "[keys]" in message


def test_an_extra_code_on_a_bound_key_is_refused(isolated_env: Path) -> None:
    _config(
        isolated_env,
        '[[taxonomy.codes]]\ncode = "ENC-OCR"\nname = "OCR miss"\nstage = "encode"\nkey = "u"\n',
    )
    with pytest.raises(ConfigError, match="bound to both question.undo and question.code.ENC-OCR"):
        make_app(OpenRequest(["x"]))


ACCEPTED = [
    "",  # the built-in keys shadow the app's in places on purpose
    '"runs.mark" = "c"',  # c is the question screen's (caption), not the runs screen's
    '"matrix.view" = "x"',  # x clears a label on the question screen only
    '"question.next" = "f6,J"\n"app.runs" = "R"\n"question.code.RET-MISS" = "r"',  # moved first
    '"question.next" = "j"',  # its own key again
]


@pytest.mark.parametrize("keys", ACCEPTED)
def test_one_key_on_two_screens_or_a_moved_key_is_accepted(isolated_env: Path, keys: str) -> None:
    _config(isolated_env, f"[keys]\n{keys}\n")
    app = make_app(OpenRequest(["x"]))
    assert app.user_keymap == {
        binding: value.replace("?", "question_mark")
        for binding, value in load_config().keys.items()
    }


def test_a_key_written_as_its_character_is_the_key_textual_delivers(isolated_env: Path) -> None:
    _config(isolated_env, '[keys]\n"app.help" = "?,f1"\n')
    assert make_app(OpenRequest(["x"])).user_keymap == {"app.help": "question_mark,f1"}
