"""Shared test data locations and lookups (import as ``from support import ...``).

Kept out of conftest.py: a test module importing from ``conftest`` gets whichever conftest
pytest loaded last (tests/tui and tests/engine have their own).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
UPSTREAM_RUNS = DATA / "memeye_runner" / "runs" / "kitchen_renovation"


def upstream_run(name_part: str, mode: str) -> Path:
    """The upstream sample run whose directory name contains ``name_part`` and has ``mode``."""
    for run_dir in sorted(UPSTREAM_RUNS.iterdir()):
        if name_part in run_dir.name:
            first = json.loads((run_dir / "predictions.jsonl").read_text().splitlines()[0])
            if first["mode"] == mode:
                return run_dir
    raise LookupError(name_part)


SUPPORT_FILES = (
    "conftest.py",
    "cli_runner.py",
    "isolation.py",
    "support.py",
    "parallel.py",
    "shared_inputs.py",
    "alsa-null.conf",
)
"""What the real ``conftest.py`` needs beside it: a copy of the test tree takes them all."""


def notices(app: Any) -> list[Any]:
    """Every notification the app posted, expired ones included: a toast's timeout runs on
    the wall clock, so on a loaded machine it can expire before the test looks at
    ``app._notifications`` (conftest's ``notices_recorded`` keeps them)."""
    return list(app.__dict__.get("notices_posted", []))
