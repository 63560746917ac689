"""The question's timeline: sessions and the rounds that matter, each with its markers.

Where the question has its own haystack (a benchmark declaring one history per question), a
first line sums it up (sessions, rounds, dates) and every session of it is listed with its
date and round count, the rounds that matter under it; gaps count rounds of that history only.

One line per round: ★ latest clue, ◆ earlier (stale) clue, ● gold clue, ▲ retrieved,
○ context; the retrieved rank (``#3``, green when inside top-K); ▣ / ♪ when the round has
an image or audio; then the start of the user's text. Moving the highlight selects the
round shown in full beside it. Drawn line by line (the timeline is rebuilt on every key).
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from memscope.triage.evidence_chain import TimelineEntry
from memscope.tui import bindings
from memscope.tui.text import clip, plain
from memscope.tui.widgets.text_view import settle_scrollbar


def entry_line(entry: TimelineEntry) -> Text:
    """One timeline line as literal text with markers."""
    if entry.kind == "history":
        return Text.assemble(
            (f"own history: {count(entry.sessions, 'session')} · ", "bold"),
            (count(entry.rounds, "round"), "bold"),
            plain(f"  {entry.date}" if entry.date else "", "dim", one_line=True),
        )
    if entry.kind == "session":
        return Text.assemble(
            plain(f"{entry.session_id}", "bold underline", one_line=True),
            plain(f"  {entry.date}" if entry.date else "", "dim", one_line=True),
            (f"  {count(entry.rounds, 'round')}" if entry.rounds else "", "dim"),
        )
    if entry.kind == "gap":
        return Text(f"   ⋯ {entry.skipped} round{'s' if entry.skipped != 1 else ''}", style="dim")
    if entry.is_latest:
        symbol, style = "★", "bold green"
    elif entry.is_stale_clue:
        symbol, style = "◆", "bold yellow"
    elif entry.is_gold:
        symbol, style = "●", "bold green"
    elif entry.rank:
        symbol, style = "▲", "yellow" if entry.is_stale else "cyan"
    else:
        symbol, style = "○", "dim"
    rank = f"#{entry.rank:<3}" if entry.rank else "    "
    rank_style = "bold green" if entry.rank and entry.in_top_k else "dim"
    media = ("▣" if entry.has_image else " ") + ("♪" if entry.has_audio else " ")
    line = Text(f" {symbol} ", style=style)
    line.append_text(
        plain(
            clip(_within_session(entry.round_id, entry.session_id), 8).ljust(8),
            "bold" if entry.is_gold else "",
            one_line=True,
        )
    )
    line.append(f" {rank}", rank_style)
    line.append(" stale" if entry.is_stale and not entry.is_gold else "      ", "yellow")
    line.append(f" {media} ", "magenta")
    line.append_text(plain(clip(entry.preview, 120), "dim", one_line=True))
    return line


def count(n: int, noun: str) -> str:
    """``1 round``, ``3 rounds``."""
    return f"{n} {noun}{'s' if n != 1 else ''}"


def _within_session(round_id: str, session_id: str) -> str:
    """The round id without the part it shares with its session's (``conv-26:D2:8`` under
    ``conv-26:S2`` is ``D2:8``, ``s7_3`` under ``s7`` is ``_3``): the session header above
    it shows that part."""
    prefix, found, _ = session_id.rpartition(":")
    if found and round_id.startswith(prefix + ":"):
        return round_id[len(prefix) + 1 :]
    # A turn id nested under its session's: ``answer_4be1b6b4_2_3`` under ``answer_4be1b6b4_2``
    # is ``_3``.
    if round_id.startswith(session_id + "_"):
        return round_id[len(session_id) :]
    return round_id


class Timeline(ScrollView, can_focus=True):
    """Timeline entries with a highlight that only lands on rounds."""

    COMPONENT_CLASSES = {"timeline--highlight"}
    BINDINGS = bindings.TIMELINE

    class RoundChosen(Message):
        """The highlighted round changed."""

        def __init__(self, round_id: str) -> None:
            super().__init__()
            self.round_id = round_id

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[TimelineEntry] = []
        self.highlighted: int | None = None
        self._lines: dict[int, list[Segment]] = {}  # rendered lazily: only visible lines cost

    def show(self, entries: list[TimelineEntry], select: str | None = None) -> None:
        """Replace the entries; highlight round ``select`` (else the latest clue of a Y3
        question, else the first gold clue, else the first round). Posts nothing: the caller
        shows the highlighted round itself."""
        self.entries = entries
        self._lines = {}
        self.virtual_size = Size(0, len(entries))
        settle_scrollbar(self)
        rounds = [i for i, e in enumerate(entries) if e.kind == "round"]
        target = next((i for i in rounds if entries[i].round_id == select), None)
        if target is None:
            target = next((i for i in rounds if entries[i].is_latest), None)
        if target is None:
            target = next((i for i in rounds if entries[i].is_gold), rounds[0] if rounds else None)
        self.highlighted = target
        self._scroll_to_highlight()
        self.refresh()

    @property
    def current(self) -> TimelineEntry | None:
        """The highlighted round's entry."""
        if self.highlighted is None or not 0 <= self.highlighted < len(self.entries):
            return None
        return self.entries[self.highlighted]

    def select_round(self, round_id: str) -> bool:
        """Highlight ``round_id`` if it is on the timeline (posts RoundChosen)."""
        for i, entry in enumerate(self.entries):
            if entry.kind == "round" and entry.round_id == round_id:
                self._highlight(i)
                return True
        return False

    def _highlight(self, index: int) -> None:
        changed = index != self.highlighted
        self.highlighted = index
        self._scroll_to_highlight()
        self.refresh()
        if changed:
            self.post_message(self.RoundChosen(self.entries[index].round_id))

    def _scroll_to_highlight(self) -> None:
        if self.highlighted is None:
            return
        height = max(1, self.scrollable_content_region.height)
        top = int(self.scroll_offset.y)
        if self.highlighted < top:
            self.scroll_to(y=max(0, self.highlighted - 1), animate=False, immediate=True)
        elif self.highlighted >= top + height:
            self.scroll_to(y=self.highlighted - height + 1, animate=False, immediate=True)

    def action_move(self, step: int) -> None:
        rounds = [i for i, e in enumerate(self.entries) if e.kind == "round"]
        if not rounds:
            return
        if self.highlighted is None:
            self._highlight(rounds[0])
            return
        if step > 0:
            later = [i for i in rounds if i > self.highlighted]
            target = later[min(step, len(later)) - 1] if later else self.highlighted
        else:
            earlier = [i for i in rounds if i < self.highlighted]
            target = earlier[-min(-step, len(earlier))] if earlier else self.highlighted
        self._highlight(target)

    def action_edge(self, where: int) -> None:
        rounds = [i for i, e in enumerate(self.entries) if e.kind == "round"]
        if rounds:
            self._highlight(rounds[-1] if where < 0 else rounds[0])

    def on_resize(self, _event: events.Resize) -> None:
        # A timeline filled before its first layout had no height to scroll by: keep the
        # highlighted round in view once it has one (and whenever the pane changes size).
        self.call_after_refresh(self._scroll_to_highlight)

    def on_click(self, event: events.Click) -> None:
        line = event.y + int(self.scroll_offset.y)
        if 0 <= line < len(self.entries) and self.entries[line].kind == "round":
            self._highlight(line)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        line = y + int(self.scroll_offset.y)
        base = self.rich_style
        if line >= len(self.entries):
            return Strip.blank(width, base)
        segments = self._lines.get(line)
        if segments is None:
            segments = self._lines[line] = list(
                entry_line(self.entries[line]).render(self.app.console)
            )
        if line == self.highlighted:
            highlight = self.get_component_rich_style("timeline--highlight")
            if not self.has_focus:
                highlight = highlight + Style(dim=False)
            segments = [Segment(s.text, (s.style or Style()) + highlight) for s in segments]
            base = base + highlight
        return (
            Strip(Segment.apply_style(segments, base))
            .crop(0, width)
            .extend_cell_length(width, base)
        )

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
