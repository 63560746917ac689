"""One image of a round: decoded in a worker, drawn with textual-image, or a placeholder.

textual-image picks the terminal's best protocol (Kitty, Sixel, else coloured half
blocks) when ``textual_image.widget`` is imported, which must happen before the app runs
(:func:`load_renderer`). ``$MEMSCOPE_IMAGE_RENDERER`` forces one (``halfcell``,
``unicode``, ``sixel``, ``tgp``) or turns images off (``none``). A missing file or one
that cannot be decoded shows a placeholder naming the path and the reason; it never
raises. Decoding is bounded (``media.images``): a decompression bomb is refused with its
size instead of filling memory.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static

from memscope.errors import MediaError
from memscope.file_kinds import path_kind
from memscope.media.images import load_preview
from memscope.textsafe import printable
from memscope.triage.round_index import MediaItem
from memscope.tui.messages import ImageDecoded

RENDERER_ENV = "MEMSCOPE_IMAGE_RENDERER"
MAX_PIXELS = 1024
"""Images are shrunk to at most this many pixels a side before drawing (a terminal shows fewer)."""


def load_renderer(name: str | None = None) -> type[Widget] | None:
    """The textual-image widget class to draw with (None: images turned off).

    Importing ``textual_image.widget`` queries the terminal, so call this before the app
    starts; later calls reuse the answer.
    """
    name = (name or os.environ.get(RENDERER_ENV) or "auto").strip().lower()
    if name == "none":
        return None
    try:
        import textual_image.widget as image_widgets
    except Exception:  # a terminal query gone wrong must not stop the app: no images then
        return None
    chosen = {
        "halfcell": image_widgets.HalfcellImage,
        "unicode": image_widgets.UnicodeImage,
        "sixel": image_widgets.SixelImage,
        "tgp": image_widgets.TGPImage,
    }.get(name, image_widgets.Image)
    return chosen


@functools.lru_cache(maxsize=16)
def decode_image(path: str) -> Any:
    """Decode an image file within a pixel bound and shrink it (``media.images.load_preview``).

    Raises MediaError (a decompression bomb, a damaged file: the message says which). The
    last few are kept: stepping back and forth between questions shows the same rounds.
    """
    return load_preview(path, MAX_PIXELS)


class ImagePreview(Vertical):
    """An image with its name, or a clear text placeholder.

    ``state`` says what is shown: ``empty``, ``loading``, ``shown``, ``missing``,
    ``undecodable`` or ``disabled``.
    """

    renderer: ClassVar[type[Widget] | bool | None] = False
    """The image widget class (set once by the app; ``False``: not chosen yet)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.item: MediaItem | None = None
        self.state = "empty"
        self._request = 0
        self._image_widget: Widget | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="image-title", classes="image-title")
        yield Static(id="image-placeholder", classes="image-placeholder")

    @property
    def placeholder_text(self) -> str:
        """The placeholder's text (for tests and screen readers)."""
        return str(self.query_one("#image-placeholder", Static).content)

    def show(self, item: MediaItem | None) -> None:
        """Show ``item`` (decoding it in a worker), or nothing."""
        if item is None and self.item is None and self.state == "empty":
            return  # already blank: touching it would only cost a relayout
        self._request += 1
        self.item = item
        title = self.query_one("#image-title", Static)
        if item is None:
            self._set_state("empty", "")
            title.update("")
            return
        name = printable(item.media_id or Path(item.ref).name, keep_newlines=False)
        title.update(
            Text.assemble(
                ("▣ ", "bold"),
                (name, "bold"),
                (f"  {printable(item.ref, keep_newlines=False)}", "dim"),
            )
        )
        renderer = type(self).renderer
        if renderer is None:
            self._set_state(
                "disabled", f"images are turned off (${RENDERER_ENV}=none): {item.file or item.ref}"
            )
            return
        if not item.file and item.ref.startswith(("http://", "https://")):
            # The dataset names the image by its web address only: it is never fetched.
            self._set_state(
                "missing",
                f"this image is only a URL ({item.ref}); memscope downloads nothing: point it "
                "at a folder holding a copy (the benchmark's options in `memscope open "
                "--help`), or press c for its caption",
            )
            return
        kind = path_kind(item.file) if item.file else None
        if kind is None or kind == "a broken symbolic link":
            looked = f" (looked for {item.file})" if item.file else ""
            self._set_state("missing", f"image file not found: {item.ref}{looked}")
            return
        if kind != "a regular file":
            self._set_state("undecodable", f"cannot show image {item.file}: the path is {kind}")
            return
        self._set_state("loading", f"loading {item.file} …")
        self._decode(self._request, item.file)

    @work(thread=True, exclusive=True, exit_on_error=False, group="image")
    def _decode(self, request: int, path: str) -> None:
        try:
            image = decode_image(path)
        except MediaError as error:  # why, in words: too large, damaged, not an image
            self.post_message(ImageDecoded(request, path, error=error.what))
            return
        except Exception as error:  # anything else PIL raises also means "cannot show it"
            self.post_message(ImageDecoded(request, path, error=f"{type(error).__name__}: {error}"))
            return
        self.post_message(ImageDecoded(request, path, image=image))

    @on(ImageDecoded)
    def _decoded(self, message: ImageDecoded) -> None:
        message.stop()
        if message.request != self._request:
            return
        if message.error is not None:
            self._set_state("undecodable", f"cannot decode image {message.path}: {message.error}")
            return
        renderer = type(self).renderer
        if not renderer:
            self._set_state("disabled", f"no image renderer for this terminal: {message.path}")
            return
        try:
            if self._image_widget is None:
                self._image_widget = renderer(message.image, classes="image-pixels")  # type: ignore[operator]
                self.mount(self._image_widget)
            else:
                self._image_widget.image = message.image  # type: ignore[attr-defined]
        except Exception as error:  # the renderer refused the pixels: say so instead of crashing
            self._set_state("undecodable", f"cannot draw image {message.path}: {error}")
            return
        self._set_state("shown", "")

    def _set_state(self, state: str, text: str) -> None:
        self.state = state
        placeholder = self.query_one("#image-placeholder", Static)
        placeholder.update(Text(printable(text), style="italic"))
        placeholder.display = bool(text)
        if self._image_widget is not None:
            self._image_widget.display = state == "shown"
