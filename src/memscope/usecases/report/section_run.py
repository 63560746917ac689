"""What memscope lends a benchmark's report section (``adapters.sections.SectionRun``): one
stored run's questions and the statistics memscope computes, over a loaded :class:`RunData`.

The section's code lives in the benchmark's package and imports memscope only through
``memscope.plugin``; everything it needs of the store and of ``analysis`` comes through
this object, so the generic report names no benchmark and the package no memscope module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from memscope.adapters.sections import GroupRate, ReportSection
from memscope.analysis.arrays import PAD
from memscope.analysis.bootstrap import DEFAULT_LEVEL, DEFAULT_SEED
from memscope.usecases.runs.question_extras import extra_columns

if TYPE_CHECKING:
    from memscope.usecases.runs.loading import RunData


@dataclass(frozen=True)
class StoredSectionRun:
    """A :class:`~memscope.adapters.sections.SectionRun` over one loaded run."""

    data: RunData
    level: float = DEFAULT_LEVEL
    seed: int = DEFAULT_SEED

    @property
    def run_id(self) -> str:
        return str(self.data.run.run_id)

    @property
    def qids(self) -> np.ndarray:
        return self.data.qids

    @property
    def top_k(self) -> int | None:
        return self.data.run.top_k

    @property
    def has_retrievals(self) -> bool:
        return self.data.has_retrievals

    @property
    def ranked_positions(self) -> np.ndarray:
        return self.data.evidence.ranked_pos

    @property
    def gold_positions(self) -> np.ndarray:
        return self.data.evidence.gold_pos

    @property
    def pad(self) -> int:
        return PAD

    def column(self, name: str) -> np.ndarray:
        return self.data.column(name)

    def attributes(self, names: Sequence[str], *, own: bool = False) -> dict[str, np.ndarray]:
        column = "prediction_extra" if own else "extra"
        return extra_columns(self.data.questions, tuple(names), column=column)

    def axis_values(self) -> dict[str, np.ndarray]:
        from memscope.usecases.runs.axes import raw_values

        return raw_values(self.data.questions, self.data.spec.axes)

    def correct(self) -> np.ndarray:
        from memscope.analysis.answers import correctness

        return correctness(
            self.data.column("mode"),
            self.data.column("em").astype(float),
            self.data.column("judge").astype(float),
            self.data.column("f1"),
        )

    def cluster_rates(
        self,
        success: np.ndarray,
        clusters: np.ndarray,
        groups: np.ndarray,
        levels: Sequence[str],
        *,
        level: float,
    ) -> dict[str, GroupRate]:
        from memscope.analysis.cluster_rates import cluster_interval_groups

        found = cluster_interval_groups(success, clusters, groups, list(levels), level=level)
        return {
            name: GroupRate(group.n, group.tsr, group.ci_low, group.ci_high, group.n_trunks)
            for name, group in found.items()
        }

    def bins(self, values: np.ndarray, *, max_bins: int) -> tuple[np.ndarray, list[str]]:
        from memscope.analysis.cluster_rates import bin_labels

        return bin_labels(values, max_bins=max_bins)

    def evidence_at(self, ks: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        from memscope.analysis.evidence_at_k import evidence_at_k

        return evidence_at_k(self.ranked_positions, self.gold_positions, tuple(ks))


def computed_section(section: ReportSection, data: RunData) -> Mapping[str, Any]:
    """``section`` of the run ``data``, as its benchmark's code computes it.

    Raises:
        PluginError: the section's code failed (naming the benchmark and the section).
    """
    from memscope.errors import benchmark_code

    with benchmark_code(f"benchmark {data.benchmark!r}: its report section {section.key!r}"):
        return section.computed(StoredSectionRun(data))


def section_of(data: RunData, key: str) -> Mapping[str, Any] | None:
    """The run's benchmark's section ``key`` of the run (None when its spec has none)."""
    for section in data.spec.report_sections:
        if section.key == key:
            return computed_section(section, data)
    return None
