"""Searching the memory bank from the question screen (the memory engine's index).

``s`` asks for words and lists the rounds that match ("brass compass"); ``i`` lists the
rounds whose images look like the selected round's. Choosing a hit shows that round.
When the engine has no index or models, the dialog says so and how to build one. While
a search runs, the dialog (and the status bar, when it is closed) show what it is doing:
"loading all-MiniLM-L6-v2 … 4 s", then "searching 12,345 rounds … 0 s".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from memscope.tui import bindings
from memscope.tui.messages import SearchFinished
from memscope.tui.text import clip, num, plain


def hit_fields(hit: object) -> tuple[str, float | None, str]:
    """(round id, score, text) of an engine hit, whatever its shape (dict or object)."""

    def get(name: str) -> Any:
        return hit.get(name) if isinstance(hit, dict) else getattr(hit, name, None)

    round_id = get("round_id") or get("id") or ""
    score = get("score")
    text = get("text") or get("user_text") or get("caption") or ""
    try:
        score = None if score is None else float(score)
    except (TypeError, ValueError):
        score = None
    return str(round_id), score, str(text)


class SearchDialog(ModalScreen[str | None]):
    """A query box (omitted for image similarity) and the hits; returns a round id."""

    BINDINGS = bindings.SEARCH
    AUTO_FOCUS = "#search-input, #search-hits"  # focused as the screen starts: no key is lost

    model_loaded = False
    """Whether a search has loaded the text model in this process (then no notice)."""

    def __init__(
        self, title: str, ask: bool, on_query: Callable[[str], object] | None = None
    ) -> None:
        super().__init__()
        self.title_text, self.ask = title, ask
        self.on_query = on_query
        """Starts a search for the words typed (the question screen's)."""
        self.hit_rounds: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog dialog-tall"):
            yield Static(
                Text.assemble(
                    (self.title_text, "bold"), ("   enter: show the round · esc: close", "dim")
                )
            )
            if self.ask:
                yield Input(placeholder="words to look for in the memory bank", id="search-input")
            yield Static(
                Text(
                    "searching …"
                    if not self.ask
                    else ""
                    if SearchDialog.model_loaded
                    else "the first search loads the text model (takes a while)",
                    style="dim italic",
                ),
                id="search-status",
            )
            yield OptionList(id="search-hits")

    def on_mount(self) -> None:
        if self.ask:
            self.query_one(Input).focus()
        else:
            self.query_one(OptionList).focus()

    @on(Input.Submitted)
    def _submitted(self, message: Input.Submitted) -> None:
        if message.value.strip() and self.on_query is not None:
            self.on_query(message.value.strip())

    def show_step(self, line: str | None) -> None:
        """The running search's progress line (``loading all-MiniLM-L6-v2 … 4 s``);
        the question screen redraws it as the search moves on and its seconds count up."""
        if line is not None:
            self.query_one("#search-status", Static).update(
                plain(line, "dim italic", one_line=True)
            )

    def show_results(self, message: SearchFinished) -> None:
        """Fill the hit list (or say why there is none)."""
        status = self.query_one("#search-status", Static)
        hits = self.query_one(OptionList)
        hits.clear_options()
        if message.error:
            status.update(plain(message.error, "yellow"))
            return
        if self.ask:  # the notice goes: the text model is loaded now
            SearchDialog.model_loaded = True
        status.update(Text(f"{len(message.hits)} hit(s)", style="dim"))
        self.hit_rounds = []
        for i, hit in enumerate(message.hits):
            round_id, score, text = hit_fields(hit)
            self.hit_rounds.append(round_id)
            line = Text.assemble(
                plain(round_id.ljust(8), "bold", one_line=True),
                f"  {num(score, 3)}  ",
                plain(clip(text, 70), "dim", one_line=True),
            )
            hits.add_option(Option(line, id=f"hit-{i}"))
        if message.hits:
            hits.highlighted = 0
            hits.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, message: OptionList.OptionSelected) -> None:
        index = message.option_index
        self.dismiss(self.hit_rounds[index] if 0 <= index < len(self.hit_rounds) else None)

    def action_cancel(self) -> None:
        self.dismiss(None)
