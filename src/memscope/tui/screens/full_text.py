"""The full text of a question's long fields (``t`` on the question screen).

The question screen bounds every field for display (``tui.text.DISPLAY_LIMIT``); this
screen shows them whole. A field may be tens of megabytes, so nothing lays the text out
at once: :class:`TextPager` is a Line-API widget that only records where each screen line
starts (wrapped at the widget's width) and sanitises the few lines it draws.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual.app import ComposeResult
from textual.binding import Binding
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

from memscope.textsafe import printable
from memscope.triage.evidence_chain import QuestionDetail
from memscope.triage.round_index import RoundDetail

TITLE = -1
GAP = -2
"""Markers in a screen line's start offset: the section's title, the blank after it."""
_TITLE_STYLE = Style(bold=True, color="cyan")


@dataclass(frozen=True)
class TextSection:
    """One named field and its whole text (untrusted: sanitised as it is drawn)."""

    title: str
    text: str


def question_sections(
    detail: QuestionDetail, selected_round: RoundDetail | None
) -> list[TextSection]:
    """The question's and the selected round's text fields, each whole, empty ones left out."""
    fields = [
        ("question", detail.question),
        ("gold answer", detail.gold),
        ("model answer", detail.pred),
        ("judge reasoning", detail.judge_reasoning),
    ]
    if selected_round is not None:
        name = f"round {selected_round.round_id}"
        fields += [(f"{name} · user", selected_round.user_text)]
        fields += [(f"{name} · assistant", selected_round.assistant_text)]
        fields += [
            (f"{name} · caption of {item.ref}", item.caption)
            for item in (*selected_round.images, *selected_round.audio)
        ]
        fields += [(f"{name} · transcript", text) for text in selected_round.transcripts]
        fields += [(f"{name} · background audio", selected_round.background_audio or "")]
    return [TextSection(title, text) for title, text in fields if text]


class TextPager(ScrollView, can_focus=True):
    """Sections of text, wrapped at the widget's width, drawn a line at a time."""

    # A stable gutter: the scroll bar appearing must not narrow the lines already wrapped.
    DEFAULT_CSS = "TextPager { height: 1fr; scrollbar-gutter: stable; }"

    def __init__(self, sections: list[TextSection], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.sections = sections
        self._section = array("i")
        self._start = array("q")
        self._end = array("q")
        self._width = 0

    @property
    def line_count(self) -> int:
        """Screen lines at the current width."""
        return len(self._start)

    def on_resize(self) -> None:
        self._layout(max(self.scrollable_content_region.width, 10))

    def _layout(self, width: int) -> None:
        if width == self._width:
            return
        self._width = width
        section, start, end = array("i"), array("q"), array("q")
        for index, item in enumerate(self.sections):
            section.append(index)
            start.append(TITLE)
            end.append(TITLE)
            text, position = item.text, 0
            while True:  # each text line, cut into pieces of the widget's width
                newline = text.find("\n", position)
                stop = len(text) if newline == -1 else newline
                pieces = range(position, stop, width) if stop > position else (position,)
                for piece in pieces:
                    section.append(index)
                    start.append(piece)
                    end.append(min(piece + width, stop))
                if newline == -1:
                    break
                position = newline + 1
            section.append(index)
            start.append(GAP)
            end.append(GAP)
        self._section, self._start, self._end = section, start, end
        self.virtual_size = Size(width, len(start))
        self.refresh()

    def line_text(self, y: int) -> str:
        """The text of screen line ``y`` as drawn (sanitised), for tests and copying."""
        if not 0 <= y < len(self._start):
            return ""
        item, start = self.sections[self._section[y]], self._start[y]
        if start == TITLE:
            return f"{printable(item.title, keep_newlines=False)} · {len(item.text):,} characters"
        if start == GAP:
            return ""
        return printable(item.text[start : self._end[y]], keep_newlines=False)

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        text = self.line_text(index)
        style = (
            _TITLE_STYLE if 0 <= index < len(self._start) and self._start[index] == TITLE else None
        )
        width = self.scrollable_content_region.width
        return Strip([Segment(text, style)]).crop(0, width).extend_cell_length(width)


class FullTextScreen(ModalScreen[None]):
    """The whole text of the fields the question screen cut; esc or t closes it."""

    BINDINGS = [
        Binding("escape,t,q", "close", "Close", id="full_text.close"),
        Binding("g,home", "top", "Top", show=False, id="full_text.top"),
        Binding("G,end", "bottom", "End", show=False, id="full_text.end"),
    ]
    DEFAULT_CSS = """
    FullTextScreen { align: center middle; }
    FullTextScreen > #full-text-box { width: 95%; height: 90%; border: round $accent;
        background: $surface; }
    """

    def __init__(self, heading: str, sections: list[TextSection]) -> None:
        super().__init__()
        self.heading, self.sections = heading, sections

    def compose(self) -> ComposeResult:
        from textual.containers import Vertical

        with Vertical(id="full-text-box"):
            yield Static(
                f"{printable(self.heading, keep_newlines=False)} — full text"
                "   ↑↓ pgup pgdn scroll · g/G top/end · esc closes",
                id="full-text-heading",
            )
            yield TextPager(self.sections, id="full-text")

    def on_mount(self) -> None:
        self.query_one(TextPager).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_top(self) -> None:
        self.query_one(TextPager).scroll_home(animate=False)

    def action_bottom(self) -> None:
        self.query_one(TextPager).scroll_end(animate=False)
