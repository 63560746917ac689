"""One audio clip of a round: duration, a waveform sparkline and play / stop.

Reading and playing audio belongs to ``memscope.media.audio`` (``load_clip`` gives an
``AudioClip`` with ``duration_s`` and a waveform ``envelope``; ``Player`` plays, stops and
says with ``available()`` whether playback can work here). When that module is missing the
view still names the file and says why it cannot play it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Sparkline, Static

from memscope.textsafe import printable
from memscope.triage.round_index import MediaItem
from memscope.tui.messages import AudioLoaded

if TYPE_CHECKING:
    from memscope.media.audio import AudioClip


def read_clip(path: str) -> tuple[AudioClip, tuple[bool, str]]:
    """Read an audio file and ask whether it can be played here.

    Returns:
        ``(AudioClip, (playable, why not))``.

    Raises:
        MemscopeError: the file is not audio (``memscope.media.audio`` says why).
    """
    from memscope.media import audio

    clip = audio.load_clip(path)
    return clip, audio.Player().available()


class AudioView(Vertical):
    """A clip's name, duration, waveform and playback state; ``toggle`` plays or stops it."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.item: MediaItem | None = None
        self.clip: AudioClip | None = None
        self.status = "empty"
        self._request = 0

    def compose(self) -> ComposeResult:
        yield Static(id="audio-title", classes="audio-title")
        yield Sparkline([], id="audio-wave", classes="audio-wave")
        yield Static(id="audio-status", classes="audio-status")

    def show(self, item: MediaItem | None) -> None:
        """Show ``item`` (reading it in a worker)."""
        if item is None and self.item is None and self.status == "empty":
            return  # already blank: touching it would only cost a relayout
        self._request += 1
        self.item, self.clip = item, None
        wave = self.query_one("#audio-wave", Sparkline)
        wave.data = []
        wave.display = False
        if item is None:
            self._title("")
            self._say("empty", "")
            return
        self._title("")
        if not item.file or not Path(item.file).is_file():
            self._say(
                "missing",
                f"audio file not found: {item.ref}"
                + (f" (looked for {item.file})" if item.file else ""),
            )
            return
        self._say("loading", "reading audio …")
        self._read(self._request, item.file)

    def _title(self, extra: str) -> None:
        item = self.item
        if item is None:
            self.query_one("#audio-title", Static).update("")
            return
        name = printable(item.media_id or Path(item.ref).name, keep_newlines=False)
        self.query_one("#audio-title", Static).update(
            Text.assemble(
                ("♪ ", "bold"),
                (name, "bold"),
                (f"  {extra}" if extra else "", ""),
                (f"  {printable(item.ref, keep_newlines=False)}", "dim"),
            )
        )

    @work(thread=True, exclusive=True, exit_on_error=False, group="audio")
    def _read(self, request: int, path: str) -> None:
        try:
            clip, playback = read_clip(path)
        except Exception as error:  # a WAV that is not audio, a missing codec: say so, never crash
            self.post_message(AudioLoaded(request, path, error=str(error)))
            return
        self.post_message(AudioLoaded(request, path, clip=clip, playback=playback))

    @on(AudioLoaded)
    def _loaded(self, message: AudioLoaded) -> None:
        message.stop()
        if message.request != self._request:
            return
        if message.error is not None:
            self._say("undecodable", f"cannot read audio {message.path}: {message.error}")
            return
        self.clip = clip = message.clip
        if clip is None:  # a message carries a clip or an error
            return
        self._title(f"{clip.duration_s:.1f} s")
        wave = self.query_one("#audio-wave", Sparkline)
        wave.data = [float(v) for v in clip.envelope(60)]
        wave.display = bool(wave.data)
        ok, reason = message.playback
        self._say(
            "ready" if ok else "no-playback",
            "p: play / stop" if ok else f"cannot play here: {reason}",
        )

    def set_playing(self, playing: bool) -> None:
        """Show whether this clip is playing."""
        if self.clip is not None and self.status in ("ready", "playing"):
            self._say(
                "playing" if playing else "ready",
                "▶ playing … p: stop" if playing else "p: play / stop",
            )

    def _say(self, status: str, text: str) -> None:
        self.status = status
        widget = self.query_one("#audio-status", Static)
        widget.update(
            Text(printable(text), style="italic" if status != "playing" else "bold green")
        )
