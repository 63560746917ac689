"""The full-text screen: a 50 MB field opens at once and every character can be reached."""

from __future__ import annotations

import time

from textual.app import App

from memscope.tui.screens.full_text import FullTextScreen, TextPager, TextSection

HUGE = ("judge reasoning " * 3_200_000)[:50_000_000] + "THE END"


class _Host(App[None]):
    def __init__(self, sections: list[TextSection]) -> None:
        super().__init__()
        self.sections = sections

    def on_mount(self) -> None:
        self.push_screen(FullTextScreen("q7", self.sections))


async def test_a_50_mb_field_opens_fast_and_its_last_characters_are_reachable() -> None:
    started = time.perf_counter()
    app = _Host([TextSection("judge reasoning", HUGE), TextSection("question", "short")])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        pager = app.screen.query_one(TextPager)
        opened = time.perf_counter() - started
        # Lines are only indexed, never laid out: seconds would mean the text was rendered.
        assert opened < 20, opened
        width = pager.scrollable_content_region.width
        assert pager.line_count >= len(HUGE) // width
        assert pager.line_text(0).startswith("judge reasoning · 50,000,007 characters")
        await pilot.press("G")
        await pilot.pause()
        shown = [pager.line_text(pager.scroll_offset.y + y) for y in range(pager.size.height)]
        assert any(line.endswith("THE END") for line in shown)
        assert "short" in shown
        await pilot.press("escape")
        assert not isinstance(app.screen, FullTextScreen)


async def test_control_characters_are_drawn_visible_not_sent() -> None:
    app = _Host([TextSection("round D1:1", "before\x1b]52;c;aGk=\x07after\nnext line")])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        pager = app.screen.query_one(TextPager)
        lines = [pager.line_text(y) for y in range(pager.line_count)]
        assert all("\x1b" not in line and "\x07" not in line for line in lines)
        assert any(line.startswith("before") and line.endswith("after") for line in lines)
        assert "next line" in lines
