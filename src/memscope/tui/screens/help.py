"""The help screen (``?``): every binding with its keys and id, grouped by screen.

The ids are what the config file's ``[keys]`` table remaps (``memscope config path``
shows where that file is).
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from memscope.tui.keymap import BindingInfo, describe_keys
from memscope.tui.text import plain

SCOPE_TITLES = {
    "app": "Everywhere",
    "queue": "Queue",
    "question": "Question",
    "matrix": "Matrix",
    "runs": "Runs",
}
LEGEND = (
    "Timeline: ★ latest clue · ◆ earlier (stale) clue · ● gold clue · ▲ retrieved · ○ context · "
    "#3 retrieved rank (green: inside top-K) · ▣ image · ♪ audio.\n"
    "Re-ranking: s = α·sim + (1−α)·exp(−λ·age); α = 1 keeps the run's order, age = rounds before the question."
)


def help_table(bindings: Iterable[BindingInfo], config_path: str) -> Table:
    """The bindings as a Rich table (keys, what they do, binding id)."""
    title = plain(
        f"Keys (remap them by binding id in {config_path}, table [keys])", "bold", one_line=True
    )
    table = Table(title=title, title_justify="left", expand=True, show_lines=False, pad_edge=False)
    table.add_column("keys", style="bold cyan", no_wrap=True)
    table.add_column("does")
    table.add_column("binding id", style="dim", no_wrap=True)
    scope = None
    for info in bindings:
        if info.scope != scope:
            scope = info.scope
            table.add_row(Text(SCOPE_TITLES.get(scope, scope), style="bold underline"), "", "")
        table.add_row(
            Text(describe_keys(info.keys)),
            plain(info.description, one_line=True),
            Text(info.binding_id),
        )
    return table


class HelpScreen(ModalScreen[None]):
    """Every binding; any of escape, q or ? closes it."""

    BINDINGS = [
        Binding("escape,q,question_mark", "dismiss", "Close", id="help.close"),
    ]

    def __init__(self, bindings: list[BindingInfo], config_path: str) -> None:
        super().__init__()
        self.bindings = bindings
        self.config_path = config_path

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(
                Text.assemble(
                    ("memscope help", "bold"),
                    "  ",
                    ("esc closes · ctrl+p opens the command palette", "dim"),
                )
            )
            yield Static(help_table(self.bindings, self.config_path), id="help-table")
            yield Static(Text(LEGEND, style="dim"), id="help-legend")

    def on_mount(self) -> None:
        self.query_one("#help-box").focus()  # so the arrow and page keys scroll it

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
