"""The Typer command line: parse, call the use cases, render. ``main`` is the entry point.

Every module in this package (other than ``app``, ``common`` and ``streams``) defines commands and
registers them on :data:`memscope.cli.app.app` when imported; they are imported here, so a
new command module needs no edit elsewhere. A process started as ``memscope open …`` or
``memscope ingest …`` imports that command's module alone: the app's start, or a script
ingesting runs one by one, does not pay for every other command's imports (about 0.4 s of
use cases, renderers and option tables for ``open``, 60 ms for ``ingest``).
"""

from __future__ import annotations

import importlib
import pkgutil
import signal
import sys
from pathlib import Path

ALONE = ("open", "ingest")
"""Commands whose process imports their own module only (see :func:`_started_as`); each
names its module."""


def _started_as(command: str) -> bool:
    """Whether this process is ``memscope COMMAND …``: the console script or ``python -m
    memscope``, with ``command`` first (never in-process callers such as the tests' runner,
    which need every command)."""
    started = Path(sys.argv[0]) if sys.argv else Path()
    ours = started.name == "memscope" or (
        started.name == "__main__.py" and started.parent.name == "memscope"
    )
    return ours and len(sys.argv) > 1 and sys.argv[1] == command


try:  # Ctrl-C while the commands load (start-up): one word, no traceback
    from memscope.cli.app import app

    # Commands appear in --help in registration order: the triage app first, setup last.
    _FIRST = (
        "open",
        "demo",
        "ingest",
        "report",
        "compare",
        "table",
        "rerun",
        "suggest",
        "labels",
        "engine",
    )
    _alone = next((command for command in ALONE if _started_as(command)), None)
    for _name in (
        (_alone,)
        if _alone is not None
        else (
            *_FIRST,
            *sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name not in _FIRST),
        )
    ):
        if _name not in ("app", "common", "streams"):
            importlib.import_module(f"{__name__}.{_name}")
except KeyboardInterrupt:
    sys.stderr.write("interrupted\n")
    raise SystemExit(130) from None

__all__ = ["app", "main"]


def main() -> None:
    """Run the memscope command line (Ctrl-C anywhere: "interrupted", exit 130)."""
    from memscope.cli.streams import prepare_streams, stop_quietly

    prepare_streams()
    try:
        app()
    except BrokenPipeError:  # whatever slipped past the consoles: as quiet as they are
        stop_quietly()
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(130) from None
    finally:
        # The command is done (its output written, its store committed): a Ctrl-C during
        # the interpreter's shutdown would only kill it by signal, with no message.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
