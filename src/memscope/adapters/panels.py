"""A benchmark's own question panel: code in its package that the app's question screen calls.

Most benchmarks need none: the question screen shows the dialogue round and, on the right,
the retrieved candidates (``Benchmark.panel``: ``"rerank"`` or ``"evidence"``, generic views
of any run's retrievals). A benchmark whose questions are not about a dialogue round (a
DMV-Bench probe: what memory returned at each recall step of a web task) declares a
:class:`QuestionPanel` (``Benchmark.question_panel``) with two hooks, given as callables or
``"module:function"`` strings imported on first use:

- ``build(question: PanelQuestion) -> list[PanelBlock]``: shown in place of the round view.
  It runs in a worker and may read the store through :class:`PanelQuestion`: the question's
  record, the rows of the benchmark's own detail tables for it, dataset rounds by id;
- ``summary(question: QuestionInRun) -> list[PanelBlock]`` (optional): shown in the
  right-hand panel instead of the candidates, from the run's per-question axis labels and
  outcomes only (it is drawn with the question, on the UI thread, so it reads no store).

Blocks are plain data: a :class:`TextLine` (runs of text, each with a Rich style name),
a :class:`~memscope.adapters.sections.TextBlock` (a line of one style), an
:class:`ImageBlock` (a file the app previews under the text: the first one). The app draws
them and sanitises every text (a newline inside a run becomes a space), so a panel needs
nothing of Textual or Rich.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from memscope.adapters.sections import TextBlock

if TYPE_CHECKING:  # loading a spec imports no numpy
    import numpy as np


class PanelQuestion(Protocol):
    """One question of a stored run as a panel's ``build`` sees it (reads the store)."""

    @property
    def run_id(self) -> str:
        """The run's id."""

    @property
    def qid(self) -> str:
        """The question's id."""

    def record(self) -> Mapping[str, Any]:
        """The question with the run's answer: ``dataset_id``, ``question``, ``gold``,
        ``pred``, ``em``, ``extra`` (the question's attributes) and ``prediction_extra``
        (the run's own per-question attributes). A ``NotFoundError`` when the run has no
        such question."""

    def detail_rows(self, table: str) -> list[dict[str, Any]]:
        """This question's rows of the run in one of the benchmark's own detail tables
        (``Benchmark.detail_tables``), as written (a dict per row, ``run_id`` left out)."""

    def rounds(self, round_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The named rounds of the run's dataset by id (``user_text``, ``assistant_text``,
        ``image_files``, ``image_captions``, ``extra`` …); an unknown id is left out."""


class QuestionInRun(Protocol):
    """One question among its run's questions, as a panel's ``summary`` sees it."""

    @property
    def qid(self) -> str:
        """The question's id."""

    @property
    def row(self) -> int:
        """The question's index in the arrays below."""

    @property
    def axis_labels(self) -> Mapping[str, np.ndarray]:
        """Each axis (by key): every question's level label (as the matrix bins it)."""

    @property
    def axis_levels(self) -> Mapping[str, list[str]]:
        """Each axis (by key): its levels in order."""

    @property
    def correct(self) -> np.ndarray:
        """Per question 1.0 (correct), 0.0 (wrong) or NaN, as the queue counts it."""


@dataclass(frozen=True)
class TextLine:
    """One line of runs of text, each with its own style (``TextLine(())``: a blank line)."""

    parts: tuple[TextBlock, ...]


@dataclass(frozen=True)
class ImageBlock:
    """An image file shown under the text (its caption and id for the preview)."""

    file: str
    caption: str = ""
    name: str = ""


PanelBlock: TypeAlias = TextLine | TextBlock | ImageBlock
"""One part of a panel."""

Build: TypeAlias = Callable[[PanelQuestion], Sequence[PanelBlock]]
Summary: TypeAlias = Callable[[QuestionInRun], Sequence[PanelBlock]]


@dataclass(frozen=True)
class QuestionPanel:
    """A benchmark's own question panel (see the module's docstring)."""

    name: str
    """A plain identifier (``probe``)."""
    title: str
    """What the app says while it loads or when it cannot be shown (``the probe's recall
    steps``)."""
    build: Build | str
    """``build(question) -> blocks``, or the ``"module:function"`` that is it."""
    summary: Summary | str | None = None
    """``summary(question) -> blocks``, or its ``"module:function"``; None: the right-hand
    panel shows the candidates only."""

    def built(self, question: PanelQuestion) -> Sequence[PanelBlock]:
        """The panel of ``question`` (the hook imported on first use)."""
        from memscope.adapters.sections import resolved_hook

        found: Sequence[PanelBlock] = resolved_hook(self.build)(question)
        return found

    def summarised(self, question: QuestionInRun) -> Sequence[PanelBlock]:
        """The right-hand summary of ``question`` (empty without a summary hook)."""
        if self.summary is None:
            return ()
        from memscope.adapters.sections import resolved_hook

        found: Sequence[PanelBlock] = resolved_hook(self.summary)(question)
        return found
