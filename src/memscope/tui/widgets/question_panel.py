"""A benchmark's own view of a question, in place of the round view (``Benchmark.question_panel``).

The benchmark's ``build`` hook returns plain blocks (lines of styled text, an image file);
this widget reads them in a worker and draws them, every text through the sanitiser (run
files are never markup), the first image in the preview under the text. DMV-Bench's probe
(its target, outcome and recall steps) is drawn this way; nothing here knows whose it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static

from memscope.errors import MemscopeError
from memscope.textsafe import printable
from memscope.triage.round_index import MediaItem
from memscope.triage.session import TriageSession
from memscope.tui.widgets.image_preview import ImagePreview
from memscope.usecases.question_panels import (
    ImageBlock,
    PanelBlock,
    QuestionPanel,
    TextLine,
)


def blocks_text(blocks: Sequence[PanelBlock]) -> Text:
    """The text blocks as one literal text, a line each (images left out)."""
    text = Text()
    first = True
    for block in blocks:
        if isinstance(block, ImageBlock):
            continue
        if not first:
            text.append("\n")
        first = False
        parts = block.parts if isinstance(block, TextLine) else (block,)
        for part in parts:
            # A plugin's text, often from run files: one line, never markup.
            text.append(printable(part.text, keep_newlines=False), style=part.style or "")
    return text


def first_image(blocks: Sequence[PanelBlock]) -> MediaItem | None:
    """The first image block, as the preview takes it."""
    image = next((block for block in blocks if isinstance(block, ImageBlock)), None)
    if image is None:
        return None
    return MediaItem("image", image.file, image.file, image.caption, image.name)


@dataclass
class PanelRead(Message):
    """A question's panel was built (``blocks``) or could not be (``error``)."""

    run_id: str
    qid: str
    blocks: Sequence[PanelBlock] | None = None
    error: str | None = None


class QuestionPanelView(VerticalScroll):
    """The benchmark's own panel for a question (``load``), or why it is not shown."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.blocks: Sequence[PanelBlock] | None = None
        self._wanted: tuple[str, str] | None = None
        """(run id, qid) of the question asked for last (an older answer is stale)."""

    def compose(self) -> ComposeResult:
        yield Static(id="question-panel-text")
        yield ImagePreview(id="question-panel-image")

    def load(
        self, session: TriageSession, panel: QuestionPanel, benchmark: str, run_id: str, qid: str
    ) -> None:
        """Show ``panel`` for question ``qid`` of ``run_id``, built in a worker."""
        self._wanted = (run_id, qid)
        self.show(None, f"loading {panel.title} …")
        self._build(session, panel, benchmark, run_id, qid)

    @work(
        thread=True,
        exclusive=True,
        exit_on_error=False,
        group="question-panel",
        description="panel",
    )
    def _build(
        self, session: TriageSession, panel: QuestionPanel, benchmark: str, run_id: str, qid: str
    ) -> None:
        try:
            blocks = session.read_panel(panel, benchmark, run_id, qid)
        except MemscopeError as error:
            message = f"{panel.title} cannot be shown: {error.message}"
            self.post_message(PanelRead(run_id, qid, error=message))
            return
        except Exception as error:  # a plugin's bug is said, not a dead worker
            message = f"{panel.title} cannot be shown: {benchmark}'s panel failed ({error!r})"
            self.post_message(PanelRead(run_id, qid, error=message))
            return
        self.post_message(PanelRead(run_id, qid, blocks))

    @on(PanelRead)
    def _panel_read(self, message: PanelRead) -> None:
        message.stop()
        if self._wanted == (message.run_id, message.qid):
            self.show(message.blocks, message.error or "")

    def show(self, blocks: Sequence[PanelBlock] | None, message: str = "") -> None:
        """Show ``blocks`` (None: ``message`` instead, e.g. while they are built)."""
        self.blocks = blocks
        body = self.query_one("#question-panel-text", Static)
        image = self.query_one("#question-panel-image", ImagePreview)
        if blocks is None:
            body.update(Text(message, style="dim"))
            image.show(None)
            return
        body.update(blocks_text(blocks))
        image.show(first_image(blocks))
