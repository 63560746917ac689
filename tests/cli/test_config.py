"""The config file: defaults, a valid file, and one clear error per kind of mistake."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memscope.cli import app
from memscope.config import load_config
from memscope.errors import ConfigError

GOOD = """
[user]
annotator = "alice"

[keys]
"question.next" = "j,down"

[[taxonomy.codes]]
code = "ENC-OCR"
name = "OCR miss"
stage = "encode"
key = "0"

[engine]
device = "cpu"
"""


def test_missing_file_means_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path / "none.toml")
    assert config.keys == {} and config.extra_codes == [] and config.engine.device == "auto"
    assert config.annotator  # the OS user


def test_good_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(GOOD)
    config = load_config(path)
    assert config.annotator == "alice"
    assert config.keys == {"question.next": "j,down"}
    assert config.extra_codes == [
        {"code": "ENC-OCR", "name": "OCR miss", "stage": "encode", "key": "0"}
    ]
    assert config.engine.device == "cpu"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("[user\n", "not valid TOML"),
        ("[colours]\nx = 1\n", "unknown setting 'colours'"),
        ("[user]\nname = 'x'\n", "unknown setting user.'name'"),
        ('[keys]\n"question.next" = 3\n', "'keys.question.next' must be a str"),
        ("[[taxonomy.codes]]\ncode = 'X'\nname = 'y'\n", "has no 'stage'"),
        (
            "[[taxonomy.codes]]\ncode = 'X'\nname = 'y'\nstage = 'use'\ncolour = 'red'\n",
            "unknown setting taxonomy.codes[1].'colour'",
        ),
        ("[engine]\ndevice = 0\n", "'engine.device' must be a str"),
    ],
)
def test_bad_files_name_the_file_and_the_key(tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(content)
    with pytest.raises(ConfigError) as excinfo:
        load_config(path)
    assert expected in str(excinfo.value)
    assert str(path) in str(excinfo.value)


def test_config_commands(isolated_env: Path) -> None:
    runner = CliRunner()
    located = runner.invoke(app, ["config", "path"])
    assert located.exit_code == 0 and located.stdout.strip() == str(isolated_env / "config.toml")
    (isolated_env / "config.toml").write_text("[user]\nannotator = 'bob'\n")
    shown = runner.invoke(app, ["config", "show"])
    assert shown.exit_code == 0 and "annotator: bob" in shown.stdout
    (isolated_env / "config.toml").write_text("[nope]\n")
    broken = runner.invoke(app, ["config", "show"])
    assert broken.exit_code == 1 and "unknown setting 'nope'" in broken.stderr
