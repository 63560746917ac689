"""Helpers for driving the app with Pilot: wait until it is ready or its workers are done."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from textual.worker import WorkerFailed, WorkerState

from memscope.tui.app import MemscopeApp
from memscope.tui.screens.question import QuestionScreen
from memscope.tui.screens.queue import QueueScreen

TIMEOUT_S = 30.0
UNTIL_S = 120.0
"""How long ``until`` waits: generous, because a loaded machine stretches every step and a
condition that holds in the end is the behaviour under test, not how soon it held."""


async def settle(pilot: Any) -> None:
    """Wait until every worker finished and the screen repainted (twice: a finished worker's
    message may start another)."""
    app: MemscopeApp = pilot.app
    await workers_done(app)
    await pilot.pause()
    await workers_done(app)
    await pilot.pause()


async def workers_done(app: MemscopeApp) -> None:
    """Wait until no worker of the app is pending or running. A cancelled worker (an
    exclusive one replaced by a newer, or one whose screen went) counts as done; one that
    failed raises its ``WorkerFailed``. On a loaded machine a worker may still be pending
    (created, not yet started) when this looks: it is waited for too."""
    while True:
        unfinished = [worker for worker in app.workers if not worker.is_finished]
        if not unfinished:
            return
        started = [worker for worker in unfinished if worker.state != WorkerState.PENDING]
        outcomes = await asyncio.gather(
            *(worker.wait() for worker in started), return_exceptions=True
        )
        for outcome in outcomes:
            if isinstance(outcome, WorkerFailed):
                raise outcome
        if len(started) < len(unfinished):
            await asyncio.sleep(0.01)


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


async def until(pilot: Any, condition: Callable[[], object], what: str) -> float:
    """Pump the app until ``condition()`` holds (wall clock, ``UNTIL_S`` at most); return the
    seconds it took. For states a worker or a timer reaches some time after a key press."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > UNTIL_S:
            raise AssertionError(f"timed out after {UNTIL_S:.0f} s waiting for {what}")
        await pilot.pause(0.02)
    return time.monotonic() - started


def shown_text(widget: Any) -> str:
    """The plain text a Static-like widget shows."""
    return str(getattr(widget, "content", ""))


def table_rows(app: Any, rows: Any = None) -> np.ndarray:
    """The rows of the run's in-memory table (``session.run.table``, read whole for the
    check) holding the queue's questions: the queue names a question by its ``idx``."""
    table = app.session.run.table
    named = app.session.rows if rows is None else rows
    return np.searchsorted(table.idx, np.asarray(named, dtype=np.int64))
