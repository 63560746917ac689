"""The Typer command line: parse, call the use cases, render. ``main`` is the entry point.

Every module in this package (other than ``app``, ``common`` and ``streams``) defines commands and
registers them on :data:`memscope.cli.app.app` when imported; they are imported here, so a
new command module needs no edit elsewhere. A process started as ``memscope COMMAND …``
imports that command's module alone (:data:`COMMAND_MODULES`): the app's start, a script
ingesting runs one by one or a report does not pay for every other command's imports
(about 0.3 s of use cases, renderers and option tables). ``memscope --help``, an unknown
command and in-process callers import every module.
"""

from __future__ import annotations

import importlib
import pkgutil
import signal
import sys
from pathlib import Path

COMMAND_MODULES = {
    "open": "open",
    "demo": "demo",
    "ingest": "ingest",
    "runs": "ingest",
    "report": "report",
    "compare": "compare",
    "table": "table",
    "rerun": "rerun",
    "suggest": "suggest",
    "label": "labels",
    "export-labels": "labels",
    "agreement": "labels",
    "sample": "sample",
    "index": "engine",
    "retrieve": "engine",
    "recompute": "engine",
    "search": "engine",
    "audit": "audit",
    "benchmarks": "benchmarks",
    "estimate": "estimate",
    "import-labels": "import_labels",
    "plot": "plot",
    "config": "config",
    "store": "store",
}
"""The module that registers each top-level command (a test checks it against the
registrations): a process started as ``memscope COMMAND`` imports that module alone."""


def _started_command() -> str | None:
    """The command this process was started for, when it is ``memscope COMMAND …`` (the
    console script or ``python -m memscope``) and COMMAND is known; None otherwise (``--help``,
    an unknown command, in-process callers such as the tests' runner: every command)."""
    started = Path(sys.argv[0]) if sys.argv else Path()
    ours = started.name == "memscope" or (
        started.name == "__main__.py" and started.parent.name == "memscope"
    )
    command = sys.argv[1] if ours and len(sys.argv) > 1 else None
    return command if command in COMMAND_MODULES else None


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
    _alone = _started_command()
    for _name in (
        (COMMAND_MODULES[_alone],)
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
