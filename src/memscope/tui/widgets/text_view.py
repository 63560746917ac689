"""A scrollable block of Rich text drawn with Textual's line API.

A ``Static`` inside a scrolling container is measured, laid out and wrapped again on
every update, and its size change relays out the screen a second time. This widget wraps
its text once per width into strips, keeps its own size (the pane's), and only repaints
when the text changes: stepping to the next question redraws it without moving anything
around it. The scrollbar gutter is kept, so the wrap width never depends on whether the
scrollbar shows.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip


class TextView(ScrollView):
    """Literal :class:`~rich.text.Text`, wrapped to the widget's width, scrollable."""

    DEFAULT_CSS = """
    TextView {
        overflow-x: hidden;
        scrollbar-gutter: stable;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._text = Text()
        self._strips: list[Strip] = []
        self._wrapped_at = -1

    @property
    def content(self) -> Text:
        """The text shown (as given to :meth:`show`)."""
        return self._text

    def show(self, text: Text) -> None:
        """Replace the text and scroll back to its top."""
        self._text = text
        self._wrapped_at = -1
        width = self.scrollable_content_region.width
        if width > 0:
            self._wrap(width)
        if self.scroll_offset.y:
            self.scroll_to(y=0, animate=False)
        self.refresh()

    def _wrap(self, width: int) -> None:
        console = self.app.console
        lines = console.render_lines(self._text, console.options.update_width(width), pad=False)
        self._strips = [Strip(line) for line in lines]
        if self._strips and not self._text.plain:
            self._strips = []
        self._wrapped_at = width
        size = Size(width, len(self._strips))
        if size != self.virtual_size:
            self.virtual_size = size
            settle_scrollbar(self)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """As many lines as the text wraps to at ``width``. Textual asks where the pane's
        height is auto (the answer pane below 110 columns): wrapping here, in the layout
        pass, gives the right height at once; ScrollView's own answer (the virtual size of
        the last wrap) would be one layout late."""
        if width > 0 and width != self._wrapped_at:
            self._wrap(width)
        return len(self._strips)

    def on_resize(self) -> None:
        width = self.scrollable_content_region.width
        if width > 0 and width != self._wrapped_at:
            self._wrap(width)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if width != self._wrapped_at and width > 0:
            self._wrap(width)
        line = y + int(self.scroll_offset.y)
        base = self.rich_style
        if not 0 <= line < len(self._strips):
            return Strip.blank(width, base)
        strip = self._strips[line]
        return Strip(Segment.apply_style(strip, base)).crop_extend(0, width, base)


def settle_scrollbar(view: ScrollView) -> None:
    """Show or hide ``view``'s vertical scrollbar for its new virtual size now, in the same
    layout as the content change, rather than in a second one after it (Textual decides
    during the layout, and a scrollbar that appears or goes asks for another)."""
    height = view.scrollable_content_region.height
    if height <= 0 or view.styles.overflow_y != "auto":
        return
    show = view.virtual_size.height > height
    if show != view.show_vertical_scrollbar:
        view.show_vertical_scrollbar = show
        view.vertical_scrollbar.display = show
