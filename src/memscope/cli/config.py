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


@config_app.command("show", epilog=example("memscope config show"))
@handles_errors
def config_show() -> None:
    """Validate the configuration file and print the settings in effect."""
    from memscope.config import load_config

    config = load_config()
    exists = "exists" if config.path.is_file() else "not created yet; defaults apply"
    stdout.print(f"config file: {config.path} ({exists})", markup=False)
    stdout.print(f"annotator: {config.annotator}", markup=False)
    for binding, keys in sorted(config.keys.items()):
        stdout.print(f"key {binding} = {keys}", markup=False)
    for code in config.extra_codes:
        stdout.print(f"extra code {code['code']}: {code['name']} ({code['stage']})", markup=False)
    engine = config.engine
    stdout.print(
        f"engine: text_model={engine.text_model or 'default'} image_model={engine.image_model or 'default'} device={engine.device}",
        markup=False,
    )
