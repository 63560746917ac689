"""The footer (widgets/footer.py): the keys that fit, Help and Quit always among them, and
recomposed only when the keys it shows change (Textual recomposes a footer on every
bindings refresh, focus move and resize: a dozen keys removed, mounted and styled again).

A small app of its own, driven with Pilot: the footer's behaviour, not a screen's.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from memscope.tui.widgets.footer import FittingFooter

KEYS = [
    Binding("o", "open_item", "Open the highlighted question"),
    Binding("f", "filter", "Filter the queue"),
    Binding("s", "sort", "Sort by score"),
    Binding("n", "note", "Write a note"),
    Binding("question_mark", "help", "Help", key_display="?"),
    Binding("q", "quit", "Quit"),
]


class FooterApp(App[None]):
    BINDINGS = KEYS

    def __init__(self) -> None:
        super().__init__()
        self.note_enabled = True

    def compose(self) -> ComposeResult:
        yield Static("body")
        yield FittingFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "note" and not self.note_enabled else True

    def action_open_item(self) -> None: ...
    def action_filter(self) -> None: ...
    def action_sort(self) -> None: ...
    def action_note(self) -> None: ...
    def action_help(self) -> None: ...


def shown(app: FooterApp) -> list[tuple[int, str, bool]]:
    """Each key the footer shows: its widget's identity, its action, whether it is drawn
    disabled (Textual's footer keys say so with a class)."""
    return [(id(key), key.action, key.has_class("-disabled")) for key in app.query("FooterKey")]


async def test_the_footer_recomposes_only_when_its_keys_change() -> None:
    app = FooterApp()
    async with app.run_test(size=(160, 10)) as pilot:
        await pilot.pause()
        first = shown(app)
        assert [action for _, action, _ in first][:6] == [b.action for b in KEYS]
        assert not any(disabled for *_, disabled in first)

        # The same keys: a bindings refresh and a resize to the same width change nothing.
        app.screen.refresh_bindings()
        await pilot.resize_terminal(160, 12)
        await pilot.pause()
        await pilot.pause()
        assert shown(app) == first

        # A key that stops doing anything is shown disabled: the footer is recomposed.
        app.note_enabled = False
        app.screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        again = shown(app)
        assert {action: disabled for _, action, disabled in again}["note"] is True
        assert {key for key, *_ in again}.isdisjoint(key for key, *_ in first)

        # Narrower: keys are dropped, Help and Quit stay.
        await pilot.resize_terminal(50, 12)
        await pilot.pause()
        await pilot.pause()
        narrow = [action for _, action, _ in shown(app)]
        assert {"help", "quit"} <= set(narrow) and len(narrow) < len(again)
