"""The shapes of the benchmarks' own report sections: DMV-Bench's TSR (``retention``) and
CUE-Mem's settings (``settings``), as ``dmv.tsr_section`` and ``cue.cue_section`` fill them.

They are TypedDicts, not records: each is printed as it is under its key of the report's
JSON (``tsr``, ``cue``; docs/metrics.md §7, §8), and the key order is the order below.
"""

from __future__ import annotations

from typing import TypedDict

from memscope.analysis.cuemem import EvidenceSummary

__all__ = [
    "CueEvidence",
    "CueSection",
    "EvidenceSummary",
    "TargetRecall",
    "TsrGroup",
    "TsrSection",
    "UnresolvedClues",
]


class TsrGroup(TypedDict):
    """TSR of one reach, bank size or encoding position, with its trunk-cluster interval."""

    n: int
    tsr: float | None
    ci_low: float | None
    ci_high: float | None
    n_trunks: int
    approximate: bool
    """Fewer than 30 trunks: the interval is approximate."""


class TargetRecall(TypedDict):
    """Where the target stood in the probe's first recall step's ranking (R1)."""

    k: int
    n: int
    any_at_k: float
    mrr: float
    target_rank: dict[str, int]
    """Probes per rank ``"1"`` … ``"k"``, ``"not retrieved"`` and ``"below k"``."""
    seen_any_step: float | None
    n_seen_any_step: int


class TsrSection(TypedDict):
    """DMV-Bench's TSR overall and stratified, with trunk-cluster intervals."""

    n: int
    overall: float | None
    ci_low: float | None
    ci_high: float | None
    n_trunks: int
    approximate: bool
    interval: str
    resamples: int
    seed: int
    level: float
    by_reach: dict[str, TsrGroup]
    by_bank_size: dict[str, TsrGroup]
    by_encoding_position: dict[str, TsrGroup]
    n_without_bank_size: int
    n_without_encoding_position: int
    encoding_position_note: str | None
    recall: TargetRecall | None


class CueEvidence(EvidenceSummary):
    """Evidence Recall@k / Precision@k over all counted QAs, and per evidence setting."""

    by_explicitness: dict[str, EvidenceSummary]
    saved_depth: int
    """The most ranked turns the run saved for a question."""


class UnresolvedClues(TypedDict):
    n: int
    examples: list[str]


class CueSection(TypedDict):
    """CUE-Mem's accuracy per task × explicit/implicit, Memory Avg., EI-Gap and evidence."""

    by_task: dict[str, dict[str, float | int | None]]
    memory_avg: dict[str, float | None]
    ei_gap: float | None
    evidence: CueEvidence
    n_unknown_setting: int
    unresolved_clues: UnresolvedClues
