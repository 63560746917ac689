"""A benchmark's own question panel as the app reaches it (``adapters.panels``).

The app's view models and widgets never import ``memscope.adapters``: they take the panel of
a run's benchmark (:func:`panel_of`), its summary of a question among the run's questions
(:func:`summary_blocks`, from the queue's table) and the block types to draw from here. The
panel's ``build`` hook reads the store through ``usecases.runs.panel_reads``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memscope.adapters.panels import ImageBlock, PanelBlock, QuestionPanel, TextLine
from memscope.adapters.sections import TextBlock
from memscope.usecases.benchmarks import spec_of

if TYPE_CHECKING:
    import numpy as np

    from memscope.usecases.labels.queue import TriageTable

__all__ = [
    "ImageBlock",
    "PanelBlock",
    "QuestionPanel",
    "RunQuestion",
    "TextBlock",
    "TextLine",
    "panel_of",
    "summary_blocks",
]


def panel_of(benchmark: str) -> QuestionPanel | None:
    """The benchmark's own question panel (None: the round view and the candidates)."""
    return spec_of(benchmark).question_panel


@dataclass(frozen=True)
class RunQuestion:
    """A question among its run's questions (``adapters.panels.QuestionInRun``)."""

    qid: str
    row: int
    axis_labels: Mapping[str, np.ndarray]
    axis_levels: Mapping[str, list[str]]
    correct: np.ndarray


def summary_blocks(panel: QuestionPanel, table: TriageTable, qid: str) -> Sequence[PanelBlock]:
    """The panel's summary of question ``qid`` of the queue's run (no store read)."""
    question = RunQuestion(
        qid, table.row_of[qid], table.axis_labels, table.axis_levels, table.correct
    )
    return panel.summarised(question)
