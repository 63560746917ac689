"""What ``memscope open`` asks the app to open: the runs and the options to start them with.

One frozen record goes from the CLI through ``tui.launch`` to ``tui.app.make_app``, so an
option is added in one place. It lives in the app's package (the CLI reaches it through
``tui.launch``, its one seam into the app) and names only the use-case layer's
:class:`~memscope.usecases.runs.store_access.ReadOptions`: neither the CLI's nor the app's
layer rules are bent for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memscope.usecases.runs.store_access import ReadOptions


@dataclass(frozen=True)
class SampleRequest:
    """``--queue sample``'s options (None: the stored plan's, or the defaults)."""

    seed: int | None = None
    strata: str | None = None
    sample_size: int | None = None
    allocation: str | None = None
    purpose: str = "failures"
    """``failures`` (the failure sample, drawn or kept here) or ``verdicts`` (the verdict
    sample ``memscope sample RUN --for verdicts`` stored; it must exist)."""


@dataclass(frozen=True)
class OpenRequest:
    """The runs to open and how to start on them (every field optional)."""

    refs: Sequence[str] = ()
    """Run directories, DIR:PART or run ids (none: the run opened last; two: compared)."""
    question: str | None = None
    """Start on this question (e.g. q37)."""
    queue: str | None = None
    """failing, all, unlabelled or sample (None: where the run was left)."""
    cell: str | None = None
    """Only the questions of one cell, e.g. X4Y3."""
    annotator: str | None = None
    """Name recorded on labels (None: the config's)."""
    options: ReadOptions | None = None
    """How run directories are read (None: the defaults)."""
    db: Path | None = None
    """The store file (None: the default store)."""
    sample: SampleRequest | None = None
    """``--queue sample``'s plan (None: not sampling, or the stored plan)."""

    def __post_init__(self) -> None:
        # A list passed in stays a value: the request is shared by the CLI, launch and app.
        object.__setattr__(self, "refs", tuple(self.refs))
