"""The app's own repaint timestamps, for the benchmark (benchmarks/bench_app.py).

Textual draws a screen by rendering its compositor's update and handing it to
``App._display``; that happens once per repaint, headless or not. A :class:`PaintClock`
wraps that call on one app instance and records when each non-empty update was handed
over and which screen it was. "Settled" after a key is then the time of the last repaint
it caused, as the app itself saw it, instead of however long a test driver chose to wait.

Nothing installs a clock but the benchmark: the app pays nothing for it otherwise.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen


@dataclass
class PaintClock:
    """Repaint times (``time.perf_counter()``) of one app, with the screen each drew.

    ``mark``, if given, is called at each repaint and what it returns kept in ``marks``:
    the app's state when that frame was drawn (e.g. whether the run was open yet).
    """

    mark: Callable[[], object] | None = None
    times: list[float] = field(default_factory=list)
    screens: list[Screen[Any]] = field(default_factory=list)
    marks: list[object] = field(default_factory=list)

    def install(self, app: App[Any]) -> PaintClock:
        """Start recording ``app``'s repaints (for the rest of its life); return the clock."""
        display = app._display

        def display_and_record(screen: Screen[Any], renderable: Any) -> None:
            display(screen, renderable)
            if renderable is not None:  # None: nothing was dirty, nothing drawn
                self.times.append(time.perf_counter())
                self.screens.append(screen)
                self.marks.append(None if self.mark is None else self.mark())

        app._display = display_and_record  # type: ignore[method-assign]
        return self

    def clear(self) -> None:
        """Forget the repaints so far (keeps memory flat over many keys)."""
        self.times.clear()
        self.screens.clear()
        self.marks.clear()

    def first_after(self, moment: float) -> float | None:
        """The first repaint at or after ``moment``, if any."""
        return next((at for at in self.times if at >= moment), None)

    def last(self) -> float | None:
        """The latest repaint, if any."""
        return self.times[-1] if self.times else None
