"""``memscope config path`` and ``memscope config show``."""

from __future__ import annotations

import typer

from memscope.cli.app import SETUP, app, example
from memscope.cli.common import echo, handles_errors, stdout

config_app = typer.Typer(
    help="Locate and check the configuration file.",
    no_args_is_help=True,
    epilog=example("memscope config show"),
)
app.add_typer(config_app, name="config", rich_help_panel=SETUP)


@config_app.command("path", epilog=example("memscope config path"))
@handles_errors
def config_path_command() -> None:
    """Print where memscope reads its configuration file ($MEMSCOPE_CONFIG overrides)."""
    from memscope.paths import config_path

    echo(config_path())


MAX_SHOWN = 200
"""A setting longer than this is shown cut, with its length: `show` never dumps a whole file."""


def _shown(value: object) -> str:
    text = str(value)
    if len(text) <= MAX_SHOWN:
        return text
    return f"{text[:MAX_SHOWN]}… ({len(text):,} characters)"


@config_app.command("show", epilog=example("memscope config show"))
@handles_errors
def config_show() -> None:
    """Validate the configuration file and print the settings in effect.

    Each setting is printed on one line, at most 200 characters (a longer one is cut and
    its length given).
    """
    from memscope.config import load_config

    config = load_config()
    exists = "exists" if config.path.is_file() else "not created yet; defaults apply"
    lines = [f"config file: {config.path} ({exists})", f"annotator: {_shown(config.annotator)}"]
    for binding, keys in sorted(config.keys.items()):
        lines.append(f"key {_shown(binding)} = {_shown(keys)}")
    for code in config.extra_codes:
        lines.append(
            f"extra code {_shown(code['code'])}: {_shown(code['name'])} ({_shown(code['stage'])})"
        )
    engine = config.engine
    lines.append(
        f"engine: text_model={_shown(engine.text_model or 'default')} "
        f"image_model={_shown(engine.image_model or 'default')} device={_shown(engine.device)}"
    )
    for line in lines:
        stdout.print(line, markup=False)
