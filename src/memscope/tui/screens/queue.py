"""The queue screen: the questions to triage, filtered and sorted, with progress.

The filter line (``/``) takes field terms and words (``y:Y3 code:SEL-STALE compost``);
``f`` cycles failing / all / unlabelled, ``s`` the sort column, ``o`` the order, and
``enter`` opens the question under the cursor.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.widgets import Input, Static

from memscope.tui import bindings
from memscope.tui.messages import PositionMoved, ShowScreen
from memscope.tui.screens.base import SessionScreen
from memscope.tui.text import whole_hints
from memscope.tui.widgets.footer import FittingFooter
from memscope.tui.widgets.queue_table import QueueHeader, QueueTable
from memscope.tui.widgets.status_bar import StatusBar
from memscope.usecases.labels.queue import FILTER_FIELDS, QUEUE_KINDS, SORT_KEYS

FILTER_HELP = f"filter: {' '.join(f'{name}:…' for name in FILTER_FIELDS)}, or words of the question · enter apply · esc cancel"


class QueueScreen(SessionScreen):
    """The triage queue."""

    SCOPE = "queue"

    BINDINGS = bindings.QUEUE

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        yield Static(id="queue-title", classes="screen-title")
        yield QueueHeader(id="queue-header")
        yield QueueTable(id="queue-table")
        yield Static(id="queue-empty", classes="empty-note")
        yield Input(placeholder="y:Y3 code:SEL-STALE words…", id="queue-filter")
        yield Static(FILTER_HELP, id="queue-filter-help", classes="hint")
        yield FittingFooter()

    def on_mount(self) -> None:
        self._show_filter(False)
        self.query_one(QueueTable).focus()

    def on_screen_resume(self) -> None:
        self.refresh_queue()

    def on_resize(self) -> None:
        self.refresh_queue()

    def refresh_queue(self) -> None:
        """Redraw the table, title, status and empty note from the session."""
        state = self.session
        if state.run is None:
            return
        table = self.query_one(QueueTable)
        sample = state.run.sample
        planned = (
            frozenset(sample.planned)
            if sample is not None and state.spec.kind == "sample"
            else None
        )
        table.show(
            state.run.queue, state.rows, state.position, state.run.suggestions_ready, planned
        )
        header = self.query_one(QueueHeader)
        header.compare, header.show_task = table.compare, table.show_task
        header.sampled = planned is not None
        header.axis_columns = table.axis_columns
        header.refresh()
        _labelled, total = state.progress
        keys = self.keys.keys_for
        described = state.spec.describe()
        hints = [
            f"{keys('app.help')} all keys",
            f"{keys('queue.open')} open",
            f"{keys('queue.filter')} filter",
            f"{keys('queue.sort')} sort",
            f"{keys('queue.reverse')} reverse",
            f"{keys('queue.kind')} failing/all/unlabelled",
            f"{keys('app.matrix')} matrix",
        ]
        room = (self.size.width or 100) - len("Queue ") - len(described) - len("  ·  ") - 2
        title = Text.assemble(
            ("Queue ", "bold"),
            (described, "bold cyan"),
            ("  ·  " + whole_hints(hints, room), "dim"),
        )
        title.no_wrap, title.overflow = True, "ellipsis"
        self.query_one("#queue-title", Static).update(title)
        empty = self.query_one("#queue-empty", Static)
        empty.display = total == 0 and state.counted
        if empty.display:
            empty.update(
                Text(
                    f"No question in this queue. Press {keys('queue.kind')} for another queue "
                    f"(failing / all / unlabelled) or {keys('queue.clear_filter')} to clear the filter.",
                    style="italic",
                )
            )
        self.query_one(StatusBar).show(state.status_view(with_question=False))

    @on(QueueTable.Highlighted)
    def _highlighted(self, message: QueueTable.Highlighted) -> None:
        state = self.session
        if (
            state.is_open
            and len(state.rows)
            and state.position != self.query_one(QueueTable).cursor
        ):
            state.go_to(self.query_one(QueueTable).cursor)
            self.post_message(PositionMoved())

    @on(QueueTable.Selected)
    def _selected(self, message: QueueTable.Selected) -> None:
        if self.session.is_open:
            self.session.go_to(self.query_one(QueueTable).cursor)
            self.post_message(ShowScreen("question"))

    def _show_filter(self, visible: bool) -> None:
        box = self.query_one("#queue-filter", Input)
        box.display = visible
        self.query_one("#queue-filter-help", Static).display = visible
        if visible:
            box.value = self.session.spec.text if self.session.is_open else ""
            box.focus()
        else:
            self.query_one(QueueTable).focus()

    def action_filter(self) -> None:
        self._show_filter(True)

    @on(Input.Submitted, "#queue-filter")
    def _filter_submitted(self, message: Input.Submitted) -> None:
        if self.change_queue(text=message.value):
            self._show_filter(False)

    def action_escape(self) -> None:
        if self.query_one("#queue-filter", Input).display:
            self._show_filter(False)
        elif self.session.back_to_matrix():
            self.post_message(ShowScreen("matrix"))
        elif self.session.is_open and (self.session.spec.text or self.session.spec.cell):
            self.action_clear_filter()

    def action_clear_filter(self) -> None:
        self.change_queue(text="", cell=None)

    def action_cycle_kind(self) -> None:
        kind = self.session.spec.kind
        self.change_queue(kind=QUEUE_KINDS[(QUEUE_KINDS.index(kind) + 1) % len(QUEUE_KINDS)])

    def action_cycle_sort(self) -> None:
        sort = self.session.spec.sort
        self.change_queue(sort=SORT_KEYS[(SORT_KEYS.index(sort) + 1) % len(SORT_KEYS)])

    def action_reverse(self) -> None:
        self.change_queue(descending=not self.session.spec.descending)
