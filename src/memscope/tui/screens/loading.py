"""The loading screen shown while the run is ingested and read into memory."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Center, Middle
from textual.screen import Screen
from textual.widgets import LoadingIndicator, Static

from memscope.tui.text import plain


class LoadingScreen(Screen[None]):
    """A spinner and the current step (``update`` it as the loader progresses)."""

    BINDINGS = [("q", "app.quit", "Quit")]

    def __init__(self, what: str, step: str = "starting …") -> None:
        super().__init__()
        self.what = what
        self.step = step

    def compose(self) -> ComposeResult:
        with Middle():
            with Center():
                yield Static(
                    Text.assemble(
                        ("memscope", "bold cyan"),
                        " — opening ",
                        plain(self.what, "bold", one_line=True),
                    ),
                    id="loading-title",
                )
            with Center():
                yield LoadingIndicator(id="loading-spinner")
            with Center():
                yield Static(plain(self.step, "dim", one_line=True), id="loading-step")

    def update(self, step: str) -> None:
        """Show the loader's current step."""
        self.query_one("#loading-step", Static).update(plain(step, "dim", one_line=True))
