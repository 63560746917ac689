"""The help screen (``?``): the current screen's keys first, then the rest, grouped by
screen, with their ids; then a legend of every symbol the screens show.

The ids are what the config file's ``[keys]`` table remaps (``memscope config path``
shows where that file is).
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from memscope.tui import bindings
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
    ("★", "the latest clue (the one a latest-state question's answer must come from)"),
    ("◆", "an earlier clue, superseded by a later one (stale)"),
    ("●", "a gold clue (not a latest-state question's latest / stale one)"),
    ("▲", "a retrieved round that is no clue"),
    ("○", "a context round (neither gold nor retrieved)"),
    ("▣", "the round has an image (♪: audio)"),
    ("#3", "its retrieved rank (green: inside the top-K); 1←2: now 1, was 2"),
    ("stale", "a retrieved round older than the latest clue on the same subject"),
    ("CODE*", "on a failure code in the label bar: the label's primary code"),
    ("EM|J", "the queue's score: EM for an MCQ question, the judge score for an open one"),
    ("mode", "MCQ or open: an MCQ and its open twin ask the same question text"),
    ("α λ K", "re-ranking s = α·sim + (1−α)·exp(−λ·age); α = 1 keeps the run's order"),
    (
        "● │",
        "in a figure (f on the matrix: the benchmark's curves; f on a question: the run's "
        "recency sweep): a value and its 95% interval; a grey │ marks the current α",
    ),
)
"""Every symbol the screens show, with what it means."""


def ordered_for(bindings: Iterable[BindingInfo], scope: str | None) -> list[BindingInfo]:
    """The bindings with the current screen's first, then those that work everywhere,
    then the other screens' (each group in its own order)."""
    items = list(bindings)
    rank = {scope: 0, "app": 1}
    return sorted(items, key=lambda info: rank.get(info.scope, 2))


def legend_table() -> Table:
    """The symbol legend as a Rich table."""
    table = Table(title="Symbols", title_justify="left", expand=True, show_header=False)
    table.add_column("symbol", style="bold", no_wrap=True)
    table.add_column("means")
    for symbol, meaning in LEGEND:
        table.add_row(symbol, meaning)
    return table


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
    first = True
    for info in bindings:
        if info.scope != scope:
            scope = info.scope
            heading = str(SCOPE_TITLES.get(scope, scope))
            if first and scope != "app":
                heading = f"This screen: {heading}"
            first = False
            table.add_row(Text(heading, style="bold underline"), "", "")
        table.add_row(
            Text(describe_keys(info.keys)),
            plain(info.description, one_line=True),
            Text(info.binding_id),
        )
    return table


class HelpScreen(ModalScreen[None]):
    """Every binding; any of escape, q or ? closes it."""

    BINDINGS = bindings.HELP

    def __init__(
        self, bindings: list[BindingInfo], config_path: str, scope: str | None = None
    ) -> None:
        super().__init__()
        self.bindings = ordered_for(bindings, scope)
        self.scope = scope
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
            yield Static(legend_table(), id="help-legend")

    def on_mount(self) -> None:
        self.query_one("#help-box").focus()  # so the arrow and page keys scroll it

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
