"""Helpers for driving the app with Pilot: wait until it is ready or its workers are done."""

from __future__ import annotations

from typing import Any

import numpy as np

from memscope.tui.app import MemscopeApp
from memscope.tui.screens.question import QuestionScreen
from memscope.tui.screens.queue import QueueScreen

TIMEOUT_S = 30.0


async def settle(pilot: Any) -> None:
    """Wait until every worker finished and the screen repainted."""
    app: MemscopeApp = pilot.app
    await app.workers.wait_for_complete()
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def ready(pilot: Any) -> MemscopeApp:
    """Wait until the run is loaded and the queue or question screen shows."""
    app: MemscopeApp = pilot.app
    waited = 0.0
    while not (app.session.is_open and isinstance(app.screen, (QueueScreen, QuestionScreen))):
        await pilot.pause(0.05)
        waited += 0.05
        if waited > TIMEOUT_S:
            raise AssertionError(f"the app did not load; screen: {type(app.screen).__name__}")
    await settle(pilot)
    return app


def shown_text(widget: Any) -> str:
    """The plain text a Static-like widget shows."""
    return str(getattr(widget, "content", ""))


def table_rows(app: Any, rows: Any = None) -> np.ndarray:
    """The rows of the run's in-memory table (``session.run.table``, read whole for the
    check) holding the queue's questions: the queue names a question by its ``idx``."""
    table = app.session.run.table
    named = app.session.rows if rows is None else rows
    return np.searchsorted(table.idx, np.asarray(named, dtype=np.int64))
