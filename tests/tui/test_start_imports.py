"""The app's start imports what the loading and queue screens need, and nothing more.

``memscope open`` imports ``tui.app`` and builds the app (``make_app``: the config, the
binding catalogue, the session) before the first paint; every other screen, the question
view models, the re-rank probe and figures are imported the first time they are used.
(DuckDB and the installed benchmarks, read from their entry points, come with the app
module: every open needs them, and ``memscope open``'s options read the benchmarks too.) Each check runs in a fresh interpreter and looks
at ``sys.modules`` (not at a time), so it fails exactly when one of them creeps back in.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

AT_START = (
    "memscope.tui.screens.loading",
    "memscope.tui.screens.queue",
    "memscope.tui.widgets.queue_table",
)
"""What the first paints need (a sanity check that the probe below sees the app at all)."""

NOT_AT_START = (
    # the other screens and dialogs, and their widgets
    "memscope.tui.screens.question",
    "memscope.tui.screens.matrix",
    "memscope.tui.screens.runs",
    "memscope.tui.screens.search",
    "memscope.tui.screens.help",
    "memscope.tui.screens.dialogs",
    "memscope.tui.screens.full_text",
    "memscope.tui.widgets.figure",
    "memscope.tui.widgets.timeline",
    "memscope.tui.widgets.candidates",
    "memscope.tui.widgets.label_bar",
    "memscope.tui.widgets.image_preview",
    "memscope.tui.widgets.question_panel",
    # their view models and use cases
    "memscope.triage.question_view",
    "memscope.triage.evidence_chain",
    "memscope.triage.triage_matrix",
    "memscope.usecases.question_panels",
    "memscope.usecases.runs.panel_reads",
    "memscope.adapters.dmv.probe",  # a benchmark's own panel, imported when first shown
    "memscope.usecases.rerun.question_rerank",
    "memscope.usecases.rerun.run_rerank",
    "memscope.usecases.report.build",
    "memscope.usecases.figures.data",
    "memscope.usecases.suggest.rules",
    # libraries only they need
    "textual_plotext",
    "textual_image",
    "pyarrow",
    "pandas",
)


def loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    probe = f"import sys\n{code}\nprint('\\n'.join(sorted(sys.modules)))"
    output = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return set(output.split())


def test_importing_the_app_loads_only_the_start_screens() -> None:
    loaded = loaded_after("import memscope.tui.app")
    assert set(AT_START) <= loaded
    assert sorted(loaded & set(NOT_AT_START)) == []


def test_building_the_app_loads_only_the_start_screens(tmp_path: Path) -> None:
    """``make_app`` checks the keymap against every screen's bindings without importing
    the screens (``tui/bindings.py`` holds them as data)."""
    db = tmp_path / "store.duckdb"
    loaded = loaded_after(
        "from memscope.tui.app import make_app\n"
        "from memscope.tui.open_request import OpenRequest\n"
        f"make_app(OpenRequest([], db={str(db)!r}))"
    )
    assert set(AT_START) <= loaded
    assert sorted(loaded & set(NOT_AT_START)) == []
    assert not db.exists()  # building the app opens no store
