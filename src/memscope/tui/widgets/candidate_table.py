"""The candidate table as a light line-API widget: a handful of rows redrawn on every key.

A DataTable rebuilt on every question and every alpha key cost more than everything else
on the question screen together; this draws the same columns straight from the candidate
rows. A cursor row (focus it with tab) selects that round in the timeline.
"""

from __future__ import annotations

from rich.cells import set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from memscope.textsafe import printable
from memscope.triage.candidate_rows import Candidate
from memscope.tui.text import num

COLUMNS = (
    ("#", 6),
    ("round", 8),
    ("", 13),
    ("sim", 6),
    ("score", 6),
    ("age", 4),
    ("recency", 7),
    ("text", 6),
    ("image", 6),
)
"""Header and width of each column, in the order drawn."""


def _marker(candidate: Candidate) -> tuple[str, Style]:
    if candidate.is_latest:
        return "★latest", Style(color="green", bold=True)
    if candidate.is_gold and candidate.is_stale:
        return "◆stale clue", Style(color="yellow", bold=True)
    if candidate.is_gold:
        return "●gold", Style(color="green", bold=True)
    if candidate.is_stale:
        return "stale", Style(color="yellow")
    return ("below K", Style(dim=True)) if not candidate.in_top_k else ("", Style())


def candidate_cells(candidate: Candidate) -> list[tuple[str, Style]]:
    """The text and style of each column for one candidate."""
    rank = str(candidate.rank)
    if candidate.original_rank and candidate.original_rank != candidate.rank:
        rank += f"←{candidate.original_rank}"
    rank_style = Style(color="green", bold=True) if candidate.in_top_k else Style(dim=True)
    if "←" in rank:
        rank_style += Style(color="yellow")
    return [
        (rank, rank_style),
        (printable(candidate.round_id, keep_newlines=False), Style(bold=candidate.is_gold)),
        _marker(candidate),
        (num(candidate.sim, 3), Style()),
        (num(candidate.score, 3), Style()),
        ("–" if candidate.age is None else str(candidate.age), Style()),
        (num(candidate.recency, 3), Style()),
        (num(candidate.text_score, 3), Style(dim=True)),
        (num(candidate.image_score, 3), Style(dim=True)),
    ]


class CandidateTable(ScrollView, can_focus=True):
    """Header line plus one line per candidate; posts Highlighted when the cursor moves."""

    COMPONENT_CLASSES = {"candidate-table--header", "candidate-table--cursor"}
    BINDINGS = [
        Binding("down", "cursor(1)", "Next candidate", show=False),
        Binding("up", "cursor(-1)", "Previous candidate", show=False),
    ]

    cursor: reactive[int] = reactive(0)

    class Highlighted(Message):
        """The cursor moved onto candidate ``index``."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.candidates: list[Candidate] = []
        self._lines: list[list[tuple[str, Style]]] = []

    def show(self, candidates: list[Candidate]) -> None:
        """Replace the rows (the cursor stays on the same rank when it can)."""
        self.candidates = candidates
        self._lines = [candidate_cells(c) for c in candidates]
        self.virtual_size = Size(sum(w + 1 for _, w in COLUMNS), len(candidates) + 1)
        self.set_reactive(CandidateTable.cursor, min(self.cursor, max(0, len(candidates) - 1)))
        self.refresh()

    def action_cursor(self, step: int) -> None:
        if self.candidates:
            self.cursor = max(0, min(len(self.candidates) - 1, self.cursor + step))

    def watch_cursor(self, cursor: int) -> None:
        self.refresh()
        if self.has_focus and self.candidates:
            self.post_message(self.Highlighted(cursor))

    def on_focus(self) -> None:
        self.refresh()
        if self.candidates:
            self.post_message(self.Highlighted(self.cursor))

    def on_blur(self) -> None:
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        line = event.y + int(self.scroll_offset.y) - 1
        if 0 <= line < len(self.candidates):
            self.cursor = line

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        line = y + int(self.scroll_offset.y)
        base = self.rich_style
        if line == 0:
            header = base + self.get_component_rich_style("candidate-table--header")
            text = "".join(set_cell_size(title, w) + " " for title, w in COLUMNS)
            return Strip([Segment(text, header)]).crop(
                int(self.scroll_offset.x), int(self.scroll_offset.x) + width
            )
        row = line - 1
        if row >= len(self._lines):
            return Strip.blank(width, base)
        if row == self.cursor and self.has_focus:
            base = base + self.get_component_rich_style("candidate-table--cursor")
        segments = [
            Segment(set_cell_size(text, w) + " ", base + style)
            for (text, style), (_, w) in zip(self._lines[row], COLUMNS, strict=True)
        ]
        x = int(self.scroll_offset.x)
        return Strip(segments).crop(x, x + width).extend_cell_length(width, base)
