"""Small modal dialogs: the note editor, the failure-code picker and the error box."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from memscope.errors import MemscopeError
from memscope.tui import bindings
from memscope.tui.text import name, plain

if TYPE_CHECKING:
    from memscope.taxonomy import FailureCode


class NoteDialog(ModalScreen[str | None]):
    """Edit a question's note; enter saves, escape cancels (returns None)."""

    BINDINGS = bindings.NOTE

    def __init__(self, qid: str, note: str) -> None:
        super().__init__()
        self.qid, self.note = qid, note

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(
                Text.assemble(
                    ("Note for ", "bold"),
                    plain(self.qid, "bold cyan", one_line=True),
                    ("   enter saves · esc cancels", "dim"),
                )
            )
            yield Input(value=self.note, placeholder="why did it fail?", id="note-input")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, message: Input.Submitted) -> None:
        self.dismiss(message.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class CodePicker(ModalScreen[str | None]):
    """Every failure code (also those without a key); enter toggles the highlighted one."""

    BINDINGS = bindings.CODES

    def __init__(
        self, codes: Sequence[FailureCode], current: set[str], keys: dict[str, str]
    ) -> None:
        super().__init__()
        self.codes, self.current, self.keys = codes, current, keys

    def compose(self) -> ComposeResult:
        options = []
        for code in self.codes:
            name = str(code.code)
            line = Text("✓ " if name in self.current else "  ", style="bold green")
            line.append_text(plain(name, "bold", one_line=True))
            line.append_text(plain(f"  {code.name} ({code.stage})", one_line=True))
            if self.keys.get(name):
                line.append(f"  key {self.keys[name]}", "cyan")
            if code.definition:
                line.append("\n    ")
                line.append_text(plain(code.definition, "dim", one_line=True))
            options.append(Option(line, id=name))
        with Vertical(classes="dialog dialog-tall"):
            yield Static(
                Text.assemble(
                    ("Toggle a failure code", "bold"), ("   enter toggles · esc closes", "dim")
                )
            )
            yield OptionList(*options, id="code-list")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _selected(self, message: OptionList.OptionSelected) -> None:
        self.dismiss(message.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ErrorDialog(ModalScreen[None]):
    """A blocking error: what, where and what to do; any key in BINDINGS closes it."""

    BINDINGS = bindings.ERROR

    def __init__(self, title: str, error: MemscopeError) -> None:
        super().__init__()
        self.title_text, self.error = title, error

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog dialog-error"):
            yield Static(
                Text.assemble(
                    (f"{self.error.title}: ", "bold red"),
                    plain(self.title_text, "bold", one_line=True),
                )
            )
            yield Static(plain(self.error.message))
            yield Static(Text("enter / esc: close", style="dim"))

    def action_close(self) -> None:
        self.dismiss(None)


class ExportDialog(ModalScreen[str | None]):
    """Where to export the run's labels; the file name's ending picks the format."""

    BINDINGS = bindings.EXPORT

    def __init__(self, run_id: str, path: str) -> None:
        super().__init__()
        self.run_id, self.path = run_id, path

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(
                Text.assemble(
                    ("Export the labels of ", "bold"),
                    name(self.run_id, "bold cyan"),
                    ("   enter exports · esc cancels", "dim"),
                )
            )
            yield Input(value=self.path, id="export-path")
            yield Static(
                Text(
                    "The ending picks the format: .csv, .jsonl (or .json) or .parquet. "
                    "The same file as `memscope export-labels RUN --out PATH`.",
                    style="dim",
                )
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, message: Input.Submitted) -> None:
        self.dismiss(message.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
