"""The memory-engine search running now, as the status bar reports it."""

from __future__ import annotations

import time
from dataclasses import dataclass

from memscope.usecases.runs.session_io import EngineStep


@dataclass
class SearchProgress:
    """The memory-engine search running now, if any, and the step it reported last."""

    serial: int = 0
    """The id of the latest search started (older searches' reports are stale)."""
    step: EngineStep | None = None
    """What the running search does now (None: no search runs)."""

    def begin(self) -> int:
        """A new search starts; its id."""
        self.serial += 1
        self.step = EngineStep("starting the memory engine", time.monotonic())
        return self.serial

    def progressed(self, search_id: int, step: EngineStep) -> bool:
        """A search reached ``step``; False when it is stale (a newer one runs)."""
        if search_id != self.serial:
            return False
        self.step = step
        return True

    def end(self, search_id: int) -> bool:
        """A search ended; False when it is stale."""
        if search_id != self.serial:
            return False
        self.step = None
        return True

    def line(self) -> str | None:
        """``loading all-MiniLM-L6-v2 … 4 s`` while a search runs, else None."""
        return self.step.line() if self.step is not None else None
