"""memscope: diagnose why multimodal agent-memory benchmark questions fail.

Importing the package is cheap on purpose: it loads no DuckDB, Textual or torch.
"""

__version__ = "0.1.0"

import os as _os
import sys as _sys


def _interrupted_quietly(kind, value, traceback, _previous=_sys.excepthook):  # type: ignore[no-untyped-def]
    """Ctrl-C before the command line has loaded (start-up): one word, not a traceback."""
    if issubclass(kind, KeyboardInterrupt):
        _sys.stderr.write("interrupted\n")
        return
    _previous(kind, value, traceback)


# Only for the memscope command itself: a program importing memscope keeps its own hook.
if _os.path.basename(_sys.argv[0] if _sys.argv else "") == "memscope":
    _sys.excepthook = _interrupted_quietly
