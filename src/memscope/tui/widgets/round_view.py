"""The selected round in full: who said what, and its media natively or as captions.

``caption`` mode shows what a text-only memory stored instead of the media (image
captions, voice-message transcripts and captions, the background-audio description);
native mode shows the images themselves and the audio with play / stop.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from memscope.triage.evidence_chain import TimelineEntry
from memscope.triage.round_index import RoundDetail
from memscope.tui.text import plain
from memscope.tui.widgets.audio_view import AudioView
from memscope.tui.widgets.image_preview import ImagePreview

MAX_IMAGES = 3
MAX_AUDIO = 2


def round_markers(entry: TimelineEntry | None) -> Text:
    """The markers of a round in words (gold clue, latest / stale, rank, top-K)."""
    text = Text()
    if entry is None:
        return text
    if entry.is_latest:
        text.append(" ★ latest clue ", "bold black on green")
    elif entry.is_stale_clue:
        text.append(" ◆ earlier clue (stale) ", "bold black on yellow")
    elif entry.is_gold:
        text.append(" ● gold clue ", "bold black on green")
    if entry.is_stale and not entry.is_gold:
        text.append(" stale ", "black on yellow")
    if entry.rank:
        moved = (
            f" (was #{entry.original_rank})"
            if entry.original_rank and entry.original_rank != entry.rank
            else ""
        )
        where = "in top-K" if entry.in_top_k else "below K"
        text.append(
            f" retrieved #{entry.rank}{moved}, {where} ", "bold" if entry.in_top_k else "dim"
        )
    elif entry.kind == "round":
        text.append(" not retrieved ", "dim")
    if entry.history_size and entry.place:
        text.append(
            f"  round {entry.place} of {entry.history_size} of the question's own history"
            f" · age {entry.history_size - entry.place}",
            "dim",
        )
    return text


class RoundView(VerticalScroll):
    """One round: header with markers and the user and assistant turns as one text, the
    media as text (captions, or what did not fit), then the media widgets, kept mounted
    and hidden when a round has fewer items."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.detail: RoundDetail | None = None
        self.caption_mode = False
        self._body_text = Text()
        self._looked_up = False

    def compose(self) -> ComposeResult:
        yield Static(id="round-text", classes="round-text")
        yield Static(id="round-media-note", classes="round-media-note")
        for i in range(MAX_IMAGES):
            yield ImagePreview(id=f"round-image-{i}", classes="round-image")
        for i in range(MAX_AUDIO):
            yield AudioView(id=f"round-audio-{i}", classes="round-audio")

    def _parts(self) -> None:
        """Look the children up once (every question redraws them)."""
        if not self._looked_up:
            self._text = self.query_one("#round-text", Static)
            self._note = self.query_one("#round-media-note", Static)
            self._images = list(self.query(ImagePreview))
            self._clips = list(self.query(AudioView))
            self._looked_up = True

    def show(
        self, detail: RoundDetail | None, entry: TimelineEntry | None, caption_mode: bool
    ) -> None:
        """Display ``detail`` (None: the round is not in the dataset)."""
        self._parts()
        same_round = (
            detail is not None
            and self.detail is not None
            and detail.round_id == self.detail.round_id
            and caption_mode == self.caption_mode
        )
        self.detail, self.caption_mode = detail, caption_mode
        if same_round:  # only its markers changed (a re-rank): keep the media as they are
            self._text.update(
                Text.assemble(self._header(detail, entry, caption_mode), "\n\n", self._body_text)
            )
            return
        note = self._note
        if detail is None:
            self._body_text = Text()
            self._text.update(Text("No round selected: pick one on the timeline.", style="dim"))
            note.update("")
            note.display = False
            for widget in (*self._images, *self._clips):
                widget.show(None)
                widget.display = False
            return
        self._body_text = (
            Text.assemble(
                ("user: ", "bold cyan"),
                plain(detail.user_text),
                "\n",
                ("assistant: ", "bold magenta"),
                plain(detail.assistant_text),
            )
            if detail.assistant_text
            # A turn of a conversation between two people: the speaker is in the text.
            else plain(detail.user_text)
        )
        self._text.update(
            Text.assemble(self._header(detail, entry, caption_mode), "\n\n", self._body_text)
        )
        media = self._media_text(detail)
        note.update(media)
        note.display = bool(media.plain)
        native = not caption_mode
        for i, widget in enumerate(self._images):
            item = detail.images[i] if native and i < len(detail.images) else None
            widget.display = item is not None
            widget.show(item)
        for i, widget in enumerate(self._clips):
            clip = detail.audio[i] if native and i < len(detail.audio) else None
            widget.display = clip is not None
            widget.show(clip)
        if self.scroll_offset.y:
            self.scroll_home(animate=False)

    @staticmethod
    def _header(detail: RoundDetail, entry: TimelineEntry | None, caption_mode: bool) -> Text:
        title = Text.assemble(
            plain(detail.round_id, "bold", one_line=True),
            "  ",
            plain(f"session {detail.session_id}", "dim", one_line=True),
            plain(f" · {detail.date}", "dim", one_line=True) if detail.date else "",
            ("   caption view" if caption_mode else "", "bold yellow"),
        )
        return Text.assemble(title, "\n", round_markers(entry))

    def _media_text(self, detail: RoundDetail) -> Text:
        """The media as text: captions in caption mode, else a count of what did not fit."""
        if not detail.images and not detail.audio and not detail.background_audio:
            return Text("")
        text = Text()
        if self.caption_mode:
            text.append(
                "caption view — what a text-only memory stored (c: show the media)\n", "bold yellow"
            )
            for item in detail.images:
                text.append("▣ caption of ", "dim")
                text.append_text(plain(item.media_id or item.ref, "dim", one_line=True))
                text.append(": ", "dim")
                text.append_text(plain(item.caption or "(no caption)"))
                text.append("\n")
            for item in detail.audio:
                text.append("♪ voice caption of ", "dim")
                text.append_text(plain(item.media_id or item.ref, "dim", one_line=True))
                text.append(": ", "dim")
                text.append_text(plain(item.caption or "(no caption)"))
                text.append("\n")
            for transcript in detail.transcripts:
                text.append("♪ transcript: ", "dim")
                text.append_text(plain(transcript))
                text.append("\n")
            if detail.background_audio:
                text.append("♪ background audio: ", "dim")
                text.append_text(plain(detail.background_audio))
            return text
        text.append("native view — the media itself (c: show what the captions say)", "bold green")
        hidden = max(0, len(detail.images) - MAX_IMAGES) + max(0, len(detail.audio) - MAX_AUDIO)
        if hidden:
            text.append(f"\n+{hidden} more media item(s) not shown", "dim")
        if detail.background_audio and not detail.audio:
            text.append("\n♪ background audio (description only): ", "dim")
            text.append_text(plain(detail.background_audio))
        return text
