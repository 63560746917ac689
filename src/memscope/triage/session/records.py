"""The plain records the screens read from the session: what ``memscope open`` asked
for, the status bar, the label bar, and what opening a run means for the screens."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from memscope.taxonomy import FailureCode
from memscope.triage.notice import Notice
from memscope.usecases.labels.events import CurrentLabel

if TYPE_CHECKING:
    from memscope.usecases.suggest.rules import Suggestion


@dataclass(frozen=True)
class StartRequest:
    """What ``memscope open`` asked for: a question to show, a queue kind, a matrix cell."""

    question: str | None = None
    queue: str | None = None
    cell: str | None = None
    sample_for: str = "failures"
    """Which sample ``--queue sample`` serves: ``failures`` or ``verdicts``."""


@dataclass(frozen=True)
class StatusView:
    """The status bar of the queue, question and matrix screens."""

    run_id: str
    other_run_id: str | None
    queue: str
    position: int
    total: int
    labelled: int
    annotator: str
    read_only: bool
    qid: str | None
    in_queue: bool
    pending: int
    sample_progress: str | None
    """``sample: 37 of 60 planned · stratum X4Y3 5/8`` on a sampled queue, else None."""
    counted: bool = True
    """False while the queue's length is still being counted (``total`` is its head's)."""
    placed: bool = True
    """False while the cursor's place in the whole queue is not known yet (a queue opened
    around a remembered question, still being counted)."""
    engine_line: str | None = None
    """A running memory-engine search's step (``loading all-MiniLM-L6-v2 … 4 s``), else None."""


@dataclass(frozen=True)
class LabelBarView:
    """The label bar of the question screen: the suggestion, the codes, the saved label."""

    qid: str
    suggestion: Suggestion | None
    """The rule suggestion for the question (None: none), meaningful once ``suggestions_ready``."""
    suggestions_ready: bool
    codes: list[FailureCode]
    """The taxonomy's codes, in order."""
    current: set[str]
    """The codes of the label as saved."""
    primary: str | None
    pending: set[str] | None
    """Codes asked for but not saved yet (None: nothing pending, or not known yet)."""
    state: str
    """``saving``, ``waiting``, ``failed`` or ``saved``."""
    label: CurrentLabel | None
    read_only_reason: str | None
    verdict: str | None = None
    """The person's verdict on the answer as saved (correct, wrong, unsure; None: none)."""
    pending_verdict: str | None = None
    """The verdict asked for but not saved yet (``none``: its removal; None: nothing pending)."""
    failing: bool | None = None
    """Whether the question's answer is graded wrong (None: not known yet)."""


@dataclass(frozen=True)
class Adopted:
    """What opening a loaded run means for the screens."""

    notices: list[Notice]
    open_question: bool
    """Show the question screen (a question was asked for, or the user left off there)."""
