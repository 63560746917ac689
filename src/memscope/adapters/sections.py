"""A benchmark's own report sections: code in its package that ``memscope report`` calls.

A spec lists its sections (``Benchmark.report_sections``); each is a :class:`ReportSection`
with two hooks, given as callables or as ``"module:function"`` strings imported on first
use (so loading the registry imports no section code):

- ``compute(run: SectionRun) -> dict``: the section's numbers for one stored run, printed
  under ``key`` in ``report --format json``. :class:`SectionRun` is everything memscope
  lends a section: the run's per-question columns and attributes, its retrievals, and the
  statistics memscope computes (intervals over clusters of questions, numeric bins,
  evidence Recall/Precision@k), so a section needs nothing else of memscope;
- ``view(report: dict) -> list[Block]`` (optional): what ``report`` prints for the run in
  place of the axes' view, from the report's JSON (the section under its key, ``answer``,
  ``notes`` …), as :class:`TextBlock` and :class:`TableBlock` parts memscope lays out to fit
  the terminal. Every text passes memscope's sanitiser.

DMV-Bench's retention section and CUE-Mem's settings section are written this way, in
their own packages.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias

if TYPE_CHECKING:  # loading a spec imports no numpy
    import numpy as np


class SectionRun(Protocol):
    """One stored run as a report section sees it: a row per question, in one order."""

    @property
    def run_id(self) -> str:
        """The run's id (``dir:system`` where one directory holds several runs)."""

    @property
    def qids(self) -> np.ndarray:
        """The question ids (object array)."""

    @property
    def top_k(self) -> int | None:
        """The run's own retrieval cut-off K (None when it records none)."""

    @property
    def has_retrievals(self) -> bool:
        """Whether the run logged retrievals at all."""

    @property
    def ranked_positions(self) -> np.ndarray:
        """(questions, ranks) positions of the retrieved rounds, :attr:`pad` past the end."""

    @property
    def gold_positions(self) -> np.ndarray:
        """(questions, golds) positions of the gold evidence rounds, :attr:`pad` past the end."""

    @property
    def level(self) -> float:
        """The confidence level of the report's intervals (0.95)."""

    @property
    def seed(self) -> int:
        """The report's random seed (for a section that draws)."""

    @property
    def pad(self) -> int:
        """The position that fills the rows of :attr:`ranked_positions` and :attr:`gold_positions`."""

    def column(self, name: str) -> np.ndarray:
        """A per-question column of the stored answers: ``em``, ``judge``, ``f1`` (floats,
        NaN where undefined) or ``mode``."""

    def attributes(self, names: Sequence[str], *, own: bool = False) -> dict[str, np.ndarray]:
        """``{name: object array}`` of the questions' attributes (``QuestionRecord.extra``;
        ``own``: the run's own per-question attributes, ``PredictionRow.extra``), None
        where a question has none."""

    def axis_values(self) -> dict[str, np.ndarray]:
        """Each of the benchmark's axes (by key): the questions' raw values on it."""

    def correct(self) -> np.ndarray:
        """Per question 1.0 (correct), 0.0 (wrong) or NaN, by the run's answer mode (EM,
        else the judge, else F1), as ``report`` counts it."""

    def cluster_rates(
        self,
        success: np.ndarray,
        clusters: np.ndarray,
        groups: np.ndarray,
        levels: Sequence[str],
        *,
        level: float,
    ) -> dict[str, GroupRate]:
        """The share of successes per group (of ``levels``, in that order, those with a
        defined value) with an interval over ``clusters`` of questions that are not
        independent (Wilson at the clusters' design effect, t with clusters − 1 degrees of
        freedom: docs/metrics.md)."""

    def bins(self, values: np.ndarray, *, max_bins: int) -> tuple[np.ndarray, list[str]]:
        """A numeric attribute grouped for a stratified table: each value its own group up
        to ``max_bins`` values, else quantile ranges ``"lo-hi"``; ``("", …)`` where NaN.
        Returns ``(label per question, levels in order)``."""

    def evidence_at(self, ks: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Per question and k, evidence Recall@k (gold rounds among the first k retrieved
        over the gold rounds) and Precision@k (over k), NaN without a gold round."""


@dataclass(frozen=True)
class GroupRate:
    """One group's share of successes with its interval over clusters (:meth:`SectionRun.cluster_rates`)."""

    n: int
    rate: float | None
    ci_low: float | None
    ci_high: float | None
    n_clusters: int


MIN_CLUSTERS = 30
"""Below this many clusters an interval over clusters is approximate (docs/metrics.md)."""


@dataclass(frozen=True)
class TextBlock:
    """A line of a section's view (``style``: a Rich style such as ``"dim"``, or none)."""

    text: str
    style: str | None = None


@dataclass(frozen=True)
class TableColumn:
    """A column of a :class:`TableBlock`: its header, alignment and how it may be fitted
    to a narrow terminal (``keep``: never left out; ``fold``: may wrap, down to
    ``min_width``)."""

    header: str
    justify: Literal["left", "right"] = "right"
    style: str | None = None
    name: str = ""
    """What the note about left-out columns calls it (default: the header)."""
    fold: bool = False
    min_width: int = 8
    keep: bool = False


@dataclass(frozen=True)
class TableRow:
    """A row of a :class:`TableBlock` (a cell per column; ``style`` for the whole row)."""

    cells: tuple[str, ...]
    style: str | None = None


@dataclass(frozen=True)
class TableBlock:
    """A table of a section's view, titled; columns that do not fit are left out, named."""

    title: str
    columns: tuple[TableColumn, ...]
    rows: tuple[TableRow, ...]


Block: TypeAlias = TextBlock | TableBlock
"""One part of a section's view."""

Compute: TypeAlias = Callable[[SectionRun], Mapping[str, Any]]
View: TypeAlias = Callable[[Mapping[str, Any]], Sequence[Block]]


@dataclass(frozen=True)
class ReportSection:
    """One of a benchmark's own report sections (see the module's docstring)."""

    key: str
    """Its key in ``report --format json`` (``tsr``, ``cue``); a plain identifier."""
    compute: Compute | str
    """``compute(run) -> dict``, or the ``"module:function"`` that is it."""
    view: View | str | None = None
    """``view(report) -> blocks``, or its ``"module:function"``: what ``report`` prints for
    the run instead of the axes' view; None: the section is in the JSON only."""

    def computed(self, run: SectionRun) -> Mapping[str, Any]:
        """The section of ``run`` (the hook imported on first use)."""
        found: Mapping[str, Any] = resolved_hook(self.compute)(run)
        return found

    def viewed(self, report: Mapping[str, Any]) -> list[Block]:
        """The section's view of ``report`` (the report's JSON); [] without a view."""
        if self.view is None:
            return []
        return list(resolved_hook(self.view)(report))


def resolved_hook(hook: Callable[..., Any] | str) -> Callable[..., Any]:
    """``hook`` itself, or the function its ``"module:function"`` names."""
    if not isinstance(hook, str):
        return hook
    from importlib import import_module

    module, _, name = hook.partition(":")
    found: Callable[..., Any] = getattr(import_module(module), name)
    return found
