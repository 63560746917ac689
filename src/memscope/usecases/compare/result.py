"""A comparison of two runs as typed records, each with the one JSON form
``compare --format json`` prints.

``pairs.make_comparison`` fills a :class:`Comparison`; ``cli/compare`` renders it and
``Comparison.to_json`` is the JSON (key order included) that ``pairs.compare_runs`` returns.
"""

from __future__ import annotations

from dataclasses import dataclass

from memscope.analysis.compare import DeltaGroup
from memscope.json_types import JSONObject, JSONValue
from memscope.usecases.compare.clusters import ClusterTest

__all__ = [
    "ClusterTest",
    "ComparedMetric",
    "ComparedRun",
    "Comparison",
    "DeltaGroup",
    "DeltaTable",
    "Pairing",
    "Transition",
]


@dataclass(frozen=True)
class ComparedRun:
    """One side of the comparison, as the header names it."""

    run_id: str
    benchmark: str | None
    task: str | None
    model: str | None
    method: str | None
    modality: str | None
    n_questions: int | None

    def to_json(self) -> JSONObject:
        return {
            "run_id": self.run_id,
            "benchmark": self.benchmark,
            "task": self.task,
            "model": self.model,
            "method": self.method,
            "modality": self.modality,
            "n_questions": self.n_questions,
        }


@dataclass(frozen=True)
class ComparedMetric:
    """The answer score compared, named as ``report`` and the app name it
    (``usecases.compare.metric``)."""

    key: str
    label: str

    def to_json(self) -> JSONObject:
        return {"key": self.key, "label": self.label}


@dataclass(frozen=True)
class DeltaTable:
    """Δ = score_B − score_A overall, per X level, per Y level and per (X, Y) cell, and the
    share-correct change per cell of the benchmark's own axes (``by_axes``)."""

    overall: DeltaGroup
    by_x: dict[str, DeltaGroup]
    by_y: dict[str, DeltaGroup]
    by_cell: dict[str, DeltaGroup]
    by_axes: list[JSONObject]

    def to_json(self) -> JSONObject:
        return {
            "overall": _group(self.overall),
            "by_x": _groups(self.by_x),
            "by_y": _groups(self.by_y),
            "by_cell": _groups(self.by_cell),
            "by_axes": list(self.by_axes),
        }


@dataclass(frozen=True)
class Transition:
    """The matched questions of one class (fixed, broken, both right, both wrong)."""

    n: int
    qids: tuple[str, ...]
    """Run A's question ids."""
    qids_b: tuple[str, ...] | None = None
    """Run B's ids of the same questions, where the runs number them differently."""

    def to_json(self) -> JSONObject:
        found: JSONObject = {"n": self.n, "qids": list(self.qids)}
        if self.qids_b is not None:
            found["qids_b"] = list(self.qids_b)
        return found


@dataclass(frozen=True)
class Pairing:
    """How the questions were paired where the benchmark pairs them on attributes
    (``Benchmark.pairing``: DMV-Bench's probes)."""

    key: tuple[str, ...]
    n: int
    sentence: str

    def to_json(self) -> JSONObject:
        return {"key": list(self.key), "n": self.n, "sentence": self.sentence}


@dataclass(frozen=True)
class Comparison:
    """Two runs compared question by question (docs/metrics.md §2, §6)."""

    run_a: ComparedRun
    run_b: ComparedRun
    matched: int
    n_a: int
    n_b: int
    metric: ComparedMetric
    warnings: tuple[str, ...]
    seed: int
    resamples: int
    level: float
    delta: DeltaTable
    transitions: dict[str, Transition]
    """By class, in the order fixed, broken, both_right, both_wrong."""
    significance: ClusterTest | None
    """The cluster-level sign-flip test (``compare.clusters``) where questions cluster."""
    pairing: Pairing | None

    def to_json(self) -> JSONObject:
        return {
            "run_a": self.run_a.to_json(),
            "run_b": self.run_b.to_json(),
            "matched": self.matched,
            "n_a": self.n_a,
            "n_b": self.n_b,
            "metric": self.metric.to_json(),
            "warnings": list(self.warnings),
            "params": {"seed": self.seed, "resamples": self.resamples, "level": self.level},
            "delta": self.delta.to_json(),
            "transitions": {name: group.to_json() for name, group in self.transitions.items()},
            "significance": None
            if self.significance is None
            else {name: value for name, value in self.significance.items()},
            "pairing": None if self.pairing is None else self.pairing.to_json(),
        }


def _group(group: DeltaGroup) -> JSONObject:
    return {name: value for name, value in group.items()}


def _groups(groups: dict[str, DeltaGroup]) -> JSONObject:
    found: dict[str, JSONValue] = {level: _group(group) for level, group in groups.items()}
    return found
