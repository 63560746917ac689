"""The queue as a virtual table: only the visible lines are ever rendered, or read.

A 50,000-question queue is a numpy array of row numbers; the rows themselves stay in the
store. ``render_line`` asks the session's
:class:`~memscope.usecases.labels.queue_window.StoreQueue` for the rows on screen, which
reads them (with a margin of a few screens) in one query when any is missing, so opening,
filtering and scrolling cost the same at any size.
"""

from __future__ import annotations

import math

import numpy as np
from rich.cells import set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

from memscope.textsafe import printable
from memscope.tui import bindings
from memscope.tui.text import fit
from memscope.usecases.labels.queue_window import QueueRow, StoreQueue

FLEX = 0


COORDINATE_COLUMNS = (("qid", "qid", 6), ("x", "X", 3), ("y", "Y", 3))
"""The qid and the question table's x and y coordinates as columns (MemEye's X and Y)."""
QID_WIDTH = (6, 16)
"""The qid column's narrowest and widest (``q37``; a conversation's ``conv-26:q37``)."""


def column_layout(
    width: int,
    compare: bool,
    show_task: bool = False,
    axis_columns: tuple[tuple[str, str, int], ...] = COORDINATE_COLUMNS,
    sampled: bool = False,
) -> list[tuple[str, str, int]]:
    """(column key, header, width) for a table ``width`` cells wide; the question text
    takes what the fixed columns leave (task only when the run mixes tasks).
    ``axis_columns`` are the qid and the benchmark's two axes (MemEye's X and Y by default);
    ``sampled``: a sampled queue, whose ``plan`` column marks the questions its plan drew."""
    columns = [
        *(() if not sampled else (("planned", "plan", 4),)),
        *axis_columns,
        # An MCQ and its open twin ask the same question text; MCQ shows its rotations right.
        ("mode", "mode", 8),
        ("correct", "ok", 3),
        ("score", "EM|J", 6),  # EM for MCQ, Judge for open: compare's metric
    ]
    if compare:
        columns.append(("other", "other", 6))
    columns += [("suggested", "suggested", 11), ("label", "label", 16 if width >= 110 else 10)]
    left = width - sum(w + 1 for _, _, w in columns) - 1
    if show_task and left >= 40:
        columns.append(("task", "task", 16))
        left -= 17
    columns.append(("question", "question", max(8, left)))
    return columns


class QueueTable(ScrollView, can_focus=True):
    """Rows of the triage queue with a cursor; posts Highlighted / Selected."""

    COMPONENT_CLASSES = {"queue-table--cursor", "queue-table--labelled", "queue-table--header"}
    BINDINGS = bindings.QUEUE_TABLE

    cursor: reactive[int] = reactive(0, always_update=True)

    class Highlighted(Message):
        """The cursor moved to ``row`` (a row of the run, or -1 when empty)."""

        def __init__(self, row: int) -> None:
            super().__init__()
            self.row = row

    class Selected(Message):
        """Enter on ``row``."""

        def __init__(self, row: int) -> None:
            super().__init__()
            self.row = row

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.queue: StoreQueue | None = None
        self.rows = np.zeros(0, dtype=np.int64)
        self.compare = False
        self.show_task = False
        self.axis_columns = COORDINATE_COLUMNS
        self.suggestions_ready = True
        self.planned: frozenset[str] | None = None

    def show(
        self,
        queue: StoreQueue,
        rows: np.ndarray,
        cursor: int = 0,
        suggestions_ready: bool = True,
        planned: frozenset[str] | None = None,
    ) -> None:
        """Display ``rows`` of ``queue`` with the cursor on position ``cursor`` (``…`` in the
        suggested column until ``suggestions_ready``; ``planned``: on a sampled queue, the
        questions its plan drew, marked ● in the ``plan`` column)."""
        self.planned = planned
        self.queue = queue
        self.suggestions_ready = suggestions_ready
        self.rows = rows
        self.compare = queue.compare
        self.show_task = queue.mixes_tasks
        self.axis_columns = axis_columns_of(queue)
        self.virtual_size = Size(0, len(rows))
        self.cursor = max(0, min(cursor, len(rows) - 1)) if len(rows) else 0
        self.refresh()

    @property
    def current_row(self) -> int:
        """The run's row under the cursor (-1 when the queue is empty)."""
        return int(self.rows[self.cursor]) if len(self.rows) else -1

    def watch_cursor(self, cursor: int) -> None:
        self.scroll_to_cursor()
        self.refresh()
        self.post_message(self.Highlighted(self.current_row))

    def scroll_to_cursor(self) -> None:
        """Keep the cursor line visible."""
        height = max(1, self.scrollable_content_region.height)
        top = int(self.scroll_offset.y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(0, len(self.rows))
        self.scroll_to_cursor()

    def action_cursor(self, step: int) -> None:
        if len(self.rows):
            self.cursor = max(0, min(len(self.rows) - 1, self.cursor + step))

    def action_page(self, direction: int) -> None:
        self.action_cursor(direction * max(1, self.scrollable_content_region.height - 1))

    def action_jump(self, where: int) -> None:
        if len(self.rows):
            self.cursor = len(self.rows) - 1 if where < 0 else 0

    def action_select(self) -> None:
        if len(self.rows):
            self.post_message(self.Selected(self.current_row))

    def on_click(self, event: events.Click) -> None:
        line = event.y + int(self.scroll_offset.y)
        if 0 <= line < len(self.rows):
            if line == self.cursor:
                self.action_select()
            self.cursor = line

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        line = y + int(self.scroll_offset.y)
        if self.queue is None or line >= len(self.rows):
            return Strip.blank(width, self.rich_style)
        row = int(self.rows[line])
        if self.queue.cached(row) is None:  # one read for the screen and a margin
            top = int(self.scroll_offset.y)
            self.queue.window(self.rows, top, max(1, self.scrollable_content_region.height))
        base = self.rich_style
        if line == self.cursor:
            base = base + self.get_component_rich_style("queue-table--cursor")
        segments = []
        for key, _, column_width in column_layout(
            width, self.compare, self.show_task, self.axis_columns, self.planned is not None
        ):
            text, style = self._cell(key, row)
            segments.append(
                Segment(set_cell_size(fit(text, column_width), column_width) + " ", base + style)
            )
        return Strip(segments).crop(0, width).extend_cell_length(width, base)

    def _item(self, row: int) -> QueueRow | None:
        queue = self.queue
        if queue is None:
            return None
        item = queue.cached(row)
        if item is None:
            item = queue.read_rows(np.array([row], dtype=np.int64)).get(row)
        return item

    def _cell(self, key: str, row: int) -> tuple[str, Style]:
        item = self._item(row)
        if item is None:
            return "", Style(dim=True)
        if key == "planned":
            return (
                ("  ●", Style(color="yellow", bold=True))
                if self.planned is not None and item.qid in self.planned
                else ("  ·", Style(dim=True))
            )
        if key in ("correct", "other"):
            value = item.correct if key == "correct" else item.other_correct
            if math.isnan(value):
                return " ?", Style(dim=True)
            return (
                (" ✓", Style(color="green", bold=True))
                if value >= 1.0
                else (" ✗", Style(color="red", bold=True))
            )
        if key == "score":
            value = item.score
            return ("     –" if math.isnan(value) else f"{value:6.2f}"), Style()
        if key == "label":
            text = item.label
            return (
                (printable(text, keep_newlines=False), Style(color="cyan", bold=True))
                if text
                else ("·", Style(dim=True))
            )
        if key == "suggested":
            if not item.suggested and not self.suggestions_ready:
                return "…", Style(dim=True)
            return printable(item.suggested, keep_newlines=False) or "·", Style(
                color="yellow"
            ) if item.suggested else Style(dim=True)
        if key == "question":
            return printable(item.question, keep_newlines=False), Style()
        if key == "mode":
            mode = item.mode
            rotations = item.rotations
            shown = (
                f"MCQ {rotations}"
                if mode == "mcq" and rotations
                else "MCQ"
                if mode == "mcq"
                else mode
            )
            return shown, Style(dim=mode != "mcq")
        if key.startswith("axis:"):
            axis = self.queue.axes.require(key[5:]) if self.queue is not None else None
            if axis is None:
                return "", Style(dim=True)
            level = item.axes.get(axis.key, "")
            return (printable(axis.short(level), keep_newlines=False) or "·"), Style(dim=not level)
        text = {"qid": item.qid, "task": item.task, "x": item.x, "y": item.y}[key]
        return printable(text, keep_newlines=False), Style(bold=key == "qid")


def axis_columns_of(queue: StoreQueue) -> tuple[tuple[str, str, int], ...]:
    """The queue's qid column (as wide as the run's qids need) and its columns for the
    run's benchmark axes: an axis read from the x or y coordinate column is that column
    (MemEye's X and Y, sortable as ``x`` / ``y``), any other its labels."""
    columns = [("qid", "qid", max(QID_WIDTH[0], min(QID_WIDTH[1], queue.qid_width)))]
    for axis in queue.axes.queue_axes:
        coordinate = next(
            (name for kind, name in axis.sources() if kind == "column" and name in ("x", "y")),
            None,
        )
        if coordinate is not None:
            columns.append((coordinate, coordinate.upper(), axis.column_width))
        else:
            columns.append((f"axis:{axis.key}", axis.key, axis.column_width))
    return tuple(columns)


class QueueHeader(Static):
    """The column titles above a :class:`QueueTable`, laid out like its rows."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.compare = False
        self.show_task = False
        self.axis_columns = COORDINATE_COLUMNS
        self.sampled = False

    def render(self) -> Text:
        width = self.content_region.width or self.size.width
        return Text(
            "".join(
                set_cell_size(title, w) + " "
                for _, title, w in column_layout(
                    width, self.compare, self.show_task, self.axis_columns, self.sampled
                )
            )[:width]
        )
