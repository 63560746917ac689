"""The results table as typed records, each with the one JSON form ``table --format json``
prints.

``build.build_table`` fills a :class:`ResultsTable`; ``cli/table_render`` draws it as Rich,
Markdown, LaTeX or CSV, and ``ResultsTable.to_json`` is the JSON (key order included).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from memscope.analysis.clustered import MIN_CLUSTERS as MIN_CLUSTERS
from memscope.json_types import JSONObject, JSONValue


@dataclass(frozen=True)
class CellDelta:
    """Δ = row − baseline in one cell, with ``compare``'s paired interval where it has one."""

    delta: float | None
    low: float | None
    high: float | None
    n: int | None
    """Matched questions; None where Δ is the difference of two values only."""
    significant: bool
    """The paired interval excludes 0; over clusters, the cluster sign-flip test's p < 0.05."""
    p_value: float | None = None
    """Over clusters (DMV-Bench trunks): the two-sided cluster sign-flip test's p-value, as
    ``compare`` reports it; None over questions."""

    def to_json(self) -> JSONObject:
        found: JSONObject = {
            "delta": self.delta,
            "delta_low": self.low,
            "delta_high": self.high,
            "delta_n": self.n,
            "significant": self.significant,
        }
        if self.p_value is not None:
            found["delta_p"] = self.p_value
        return found


@dataclass(frozen=True)
class CorrectedCell:
    """The cell's accuracy corrected with people's verdicts (``table --corrected``): the
    PPI++ estimate of its run's true accuracy with its interval, as ``audit`` computes it;
    all None where the row's run has no verdicts (or the row pools several runs)."""

    estimate: float | None
    low: float | None
    high: float | None
    n_verdicts: int
    delta: float | None = None
    """Corrected Δ = this estimate − the baseline row's (None without both)."""
    flipped: bool = False
    """The correction flips the sign of the cell's Δ vs the baseline."""

    def to_json(self) -> JSONObject:
        return {
            "estimate": self.estimate,
            "low": self.low,
            "high": self.high,
            "n_verdicts": self.n_verdicts,
            "delta": self.delta,
            "flipped": self.flipped,
        }


@dataclass(frozen=True)
class TableCell:
    """One row's value in one column: the metric's mean and its n."""

    value: float | None
    n: int
    best: bool
    """The best value of its column (bold)."""
    ci: tuple[float | None, float | None] | None = None
    """The bootstrap interval (``--ci``); None without ``--ci``, (None, None) where undefined."""
    delta: CellDelta | None = None
    """Δ vs the baseline row (``--baseline``); None on the baseline row and without one."""
    corrected: CorrectedCell | None = None
    """The verdict-corrected accuracy (``--corrected``); None without ``--corrected``."""
    n_clusters: int | None = None
    """Clusters (DMV-Bench trunks) the interval and Δ rest on; None over questions."""

    @property
    def approximate(self) -> bool:
        """Its interval rests on fewer clusters than the small-sample method is exact for."""
        return self.n_clusters is not None and self.n_clusters < MIN_CLUSTERS

    p95: float | None = None
    """A cost metric's 95th percentile (``--metric latency|tokens``: the value is the
    median); None for every other metric."""
    repeats: tuple[float, float, int] | None = None
    """``--repeats`` on a row of several runs: the runs' own values' mean, their sample
    standard deviation and how many runs had a value; None otherwise."""

    @property
    def ci_low(self) -> float | None:
        return None if self.ci is None else self.ci[0]

    @property
    def ci_high(self) -> float | None:
        return None if self.ci is None else self.ci[1]

    def to_json(self) -> JSONObject:
        found: JSONObject = {"value": self.value, "n": self.n}
        if self.ci is not None:
            found["ci_low"], found["ci_high"] = self.ci
        if self.delta is not None:
            found |= self.delta.to_json()
        if self.corrected is not None:
            found["corrected"] = self.corrected.to_json()
        if self.n_clusters is not None:
            found["n_clusters"] = self.n_clusters
            found["approximate"] = self.approximate
        if self.p95 is not None:
            found["p95"] = self.p95
        if self.repeats is not None:
            mean, spread, runs = self.repeats
            found["repeats"] = {
                "mean": mean,
                "sd": None if math.isnan(spread) else spread,
                "n_runs": runs,
            }
        found["best"] = self.best
        return found


@dataclass(frozen=True)
class TableColumn:
    """A column: a level of one axis (``"x:X1"``), ``all``, or a derived summary column."""

    key: str
    label: str
    axis: str | None
    """The axis; None for ``all``; ``"derived"`` for the benchmark's summary columns."""
    level: str | None

    def to_json(self) -> JSONObject:
        return {"key": self.key, "label": self.label, "axis": self.axis, "level": self.level}


@dataclass(frozen=True)
class TableRow:
    """A system: its runs pooled (or one run with ``--per-run``)."""

    label: str
    group: dict[str, JSONValue]
    """The run fields that make the row, as stored."""
    display_group: dict[str, JSONValue]
    """The same, as the label shows them (display names)."""
    runs: tuple[str, ...]
    tasks: tuple[str, ...]
    n_questions: int
    cells: dict[str, TableCell]
    """By column key."""
    repeats: tuple[int, ...] = ()
    """Repeats of one configuration the row pools (per class of equal runs); empty when
    its runs are one run or disjoint parts."""

    def to_json(self) -> JSONObject:
        found: JSONObject = {
            "label": self.label,
            "group": dict(self.group),
            "display_group": dict(self.display_group),
            "runs": list(self.runs),
            "tasks": list(self.tasks),
            "n_questions": self.n_questions,
        }
        if self.repeats:
            found["repeats"] = list(self.repeats)
        found["cells"] = {key: cell.to_json() for key, cell in self.cells.items()}
        return found


@dataclass(frozen=True)
class TableParams:
    """How the numbers were made: bootstrap seed and resamples, level, K."""

    seed: int
    resamples: int | None
    """Resamples of the intervals; None without ``--ci``."""
    delta_resamples: int | None
    """Resamples of Δ's paired interval; None without ``--baseline``."""
    level: float
    k: int | list[int]
    """The runs' K, or the list of them where they differ."""
    clustered: bool
    """Intervals resample clusters (DMV-Bench's chain trunks), not questions."""
    membership: str = "highest"
    """Where a question with several X / Y labels counts: ``highest`` (the paper's rule)
    or ``every`` (the runner's: in every bucket it names)."""
    multi_label_axes: tuple[str, ...] = ()
    """The benchmark's axes on which a question may name several levels
    (``TableLayout.multi_label_axes``) where the table shows one of them, else empty: the
    caption then says which rule placed each question."""

    def to_json(self) -> JSONObject:
        found: JSONObject = {
            "seed": self.seed,
            "resamples": self.resamples,
            "delta_resamples": self.delta_resamples,
            "level": self.level,
            "k": self.k if isinstance(self.k, int) else list(self.k),
            "clustered": self.clustered,
        }
        if self.membership != "highest":
            found["membership"] = self.membership
        return found


@dataclass(frozen=True)
class ResultsTable:
    """The paper's main results table: one row per system, one column per axis level."""

    benchmark: str
    metric: str
    by: tuple[str, ...]
    group: tuple[str, ...]
    average: str
    """``questions`` (pooled, micro) or ``tasks`` (mean over tasks, macro)."""
    per_run: bool
    baseline: str | None
    """The baseline row's label."""
    params: TableParams
    columns: tuple[TableColumn, ...]
    rows: tuple[TableRow, ...]
    corrected: bool = False
    """Cells carry the verdict-corrected accuracy (``--corrected``)."""
    repeats: bool = False
    """Rows of several runs carry the runs' mean ± spread per cell (``--repeats``)."""
    notes: tuple[str, ...] = ()
    """What the reader must know beside the numbers: a row split because its runs overlap
    (also said on stderr), and ``harness_notes`` (harness runs, their judges, categories not
    evaluated, question sets that differ). The caption shows them; the JSON carries them."""

    def to_json(self) -> JSONObject:
        found: JSONObject = {
            "benchmark": self.benchmark,
            "metric": self.metric,
            "by": list(self.by),
            "group": list(self.group),
            "average": self.average,
            "per_run": self.per_run,
            "baseline": self.baseline,
            "params": self.params.to_json(),
            "columns": [column.to_json() for column in self.columns],
            "rows": [row.to_json() for row in self.rows],
        }
        if self.corrected:
            found["corrected"] = True
        if self.repeats:
            found["repeats"] = True
        if self.notes:
            found["notes"] = list[JSONValue](self.notes)
        return found
