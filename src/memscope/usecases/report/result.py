"""The run report as typed records, each with the one JSON form ``report --format json`` prints.

``build.make_report`` fills a :class:`Report`; the CLI renders it and ``Report.to_json`` is
the JSON (key order included) that docs/metrics.md §11 describes. Summaries of a group of
questions stay small dicts (``{"n", "em", "judge", …}``): their metrics vary with the
benchmark and the run, and they are already JSON-ready.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from memscope.errors import benchmark_code
from memscope.json_types import JSONObject, JSONValue

if TYPE_CHECKING:
    from memscope.adapters.sections import Block, ReportSection

Summary: TypeAlias = dict[str, float | int | None]
"""A group of questions: its n (``n``, ``n_judge``, …) and each metric's mean, None where
undefined."""

Groups: TypeAlias = dict[str, Summary]
"""Summaries per level (an X level, a Y level, a cell ``"X1_Y2"``), in the levels' order."""


@dataclass(frozen=True)
class ReportRun:
    """The run the report is about, as its header shows it."""

    id: str
    task: str | None
    model: str | None
    method: str | None
    modality: str | None
    n_questions: int
    retrieval_kind: str | None
    path: str | None

    def to_json(self) -> JSONObject:
        return {
            "id": self.id,
            "task": self.task,
            "model": self.model,
            "method": self.method,
            "modality": self.modality,
            "n_questions": self.n_questions,
            "retrieval_kind": self.retrieval_kind,
            "path": self.path,
        }


@dataclass(frozen=True)
class AnswerQuality:
    """EM and Judge overall, coordinate-balanced, and per X, Y and (X, Y) cell (§2)."""

    overall: Summary
    macro: dict[str, float | None]
    by_x: Groups
    by_y: Groups
    by_cell: Groups
    n_unplaced: int
    """Questions without X/Y labels, outside the matrix."""

    def to_json(self) -> JSONObject:
        return {
            "overall": _summary(self.overall),
            "macro": dict(self.macro),
            "by_x": _groups(self.by_x),
            "by_y": _groups(self.by_y),
            "by_cell": _groups(self.by_cell),
            "n_unplaced": self.n_unplaced,
        }


@dataclass(frozen=True)
class RetrievalAccess:
    """Any-Clue, Coverage, Full-Clue and MRR @K over questions with a gold clue (§3)."""

    n: int
    n_undiagnosable: int
    """Questions without a gold clue, not counted."""
    kind: str | None
    overall: dict[str, float | None]
    by_y: Groups
    by_x: Groups
    by_cell: Groups
    by_axes: list[JSONObject]
    """Per level of each of the benchmark's own axes: ``[{"key", "title", "levels"}]``."""

    def to_json(self) -> JSONObject:
        return {
            "n": self.n,
            "n_undiagnosable": self.n_undiagnosable,
            "kind": self.kind,
            "overall": dict(self.overall),
            "by_y": _groups(self.by_y),
            "by_x": _groups(self.by_x),
            "by_cell": _groups(self.by_cell),
            "by_axes": list(self.by_axes),
        }


@dataclass(frozen=True)
class BenchmarkSection:
    """One of the benchmark's own report sections (``Benchmark.report_sections``) of a run:
    what its code computed, printed under ``key`` in the JSON."""

    section: ReportSection
    values: JSONObject

    @property
    def key(self) -> str:
        return self.section.key

    def to_json(self) -> JSONObject:
        return self.values

    def view(self, report: JSONObject) -> list[Block] | None:
        """What ``report`` prints for the run instead of the axes' view, from the report's
        JSON (None: the section has no view).

        Raises:
            PluginError: the benchmark's view failed (naming it and the section).
        """
        if self.section.view is None:
            return None
        with benchmark_code(f"the report section {self.key!r}'s view"):
            return self.section.viewed(report)


@dataclass(frozen=True)
class Report:
    """Everything ``memscope report`` shows for one run (docs/metrics.md §2–§4, §7, §8)."""

    run: ReportRun
    k: int
    answer: AnswerQuality
    retrieval: RetrievalAccess | None
    """None when the run logged no retrieval."""
    temporal: Summary | None
    """Latest@K, Latest-Miss, Rank-Inversion, Stale-Dominance on the declared latest-state questions; None without such a
    question with a gold clue."""
    notes: tuple[str, ...]
    axes: JSONObject
    """The benchmark's own axes and the share correct per cell of each view."""
    sections: tuple[BenchmarkSection, ...]
    upstream_check: JSONObject | None
    """The cross-check against the benchmark's own summary file, with its ``sentence``."""
    harness: str | None = None
    """The harness that wrote a run (``mem0 evals.py`` …, with its judge model)."""
    cost: JSONObject | None = None
    """What the answers cost where the run's files record it: ``{"latency_ms": {median,
    p95, n} | None, "tokens": {…} | None}``; None when they record neither."""

    def to_json(self) -> JSONObject:
        """The report as ``memscope report --format json`` prints it (without the
        per-question rows, which the caller appends)."""
        found: JSONObject = {
            "run": self.run.to_json(),
            "k": self.k,
            "answer": self.answer.to_json(),
            "retrieval": None if self.retrieval is None else self.retrieval.to_json(),
            "temporal": None if self.temporal is None else _summary(self.temporal),
            "notes": list(self.notes),
            "axes": self.axes,
        }
        for section in self.sections:
            found[section.key] = section.to_json()
        found["upstream_check"] = self.upstream_check
        if self.harness is not None:
            found["harness"] = self.harness
        if self.cost is not None:
            found["cost"] = self.cost
        return found


def _summary(summary: Summary) -> JSONObject:
    return {name: value for name, value in summary.items()}


def _groups(groups: Groups) -> JSONObject:
    found: dict[str, JSONValue] = {level: _summary(summary) for level, summary in groups.items()}
    return found
