"""The app's repaint clock (tui/paint_clock.py), which the app benchmark times keys with."""

from __future__ import annotations

import time

from textual.app import App, ComposeResult
from textual.widgets import Static

from memscope.tui.paint_clock import PaintClock


class OneLabel(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("before", id="label")


async def test_the_clock_records_each_repaint_and_nothing_while_idle() -> None:
    app = OneLabel()
    clock = PaintClock().install(app)
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.pause()
        assert clock.times, "the first frame is a repaint"
        assert all(screen is app.screen for screen in clock.screens)
        assert clock.times == sorted(clock.times)
        clock.clear()
        await pilot.pause(0.1)
        assert clock.times == [] and clock.last() is None  # nothing changed, nothing drawn

        changed = time.perf_counter()
        app.query_one("#label", Static).update("after")
        await pilot.pause()
        first = clock.first_after(changed)
        assert first is not None and first >= changed
        assert clock.last() is not None and clock.last() >= first
        assert clock.first_after(time.perf_counter()) is None
        assert "after" in str(app.query_one("#label", Static).render())


async def test_an_app_without_a_clock_draws_as_before() -> None:
    app = OneLabel()
    clock = PaintClock()  # not installed: records nothing
    async with app.run_test(size=(40, 5)) as pilot:
        app.query_one("#label", Static).update("after")
        await pilot.pause()
    assert clock.times == []
    assert "_display" not in vars(app)


async def test_each_repaint_is_marked_with_the_app_state_then() -> None:
    app = OneLabel()
    state = {"open": False}
    clock = PaintClock(mark=lambda: state["open"]).install(app)
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.pause()
        state["open"] = True
        app.query_one("#label", Static).update("after")
        await pilot.pause()
    assert len(clock.marks) == len(clock.times) >= 2
    assert clock.marks[0] is False and clock.marks[-1] is True
