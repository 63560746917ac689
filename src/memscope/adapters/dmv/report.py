"""DMV-Bench's report section (``memscope report``, key ``tsr``; docs/metrics.md §7): TSR
with its retention curve.

:func:`tsr_section` gives, for one DMV-Bench run, TSR overall, by reach (the retention
curve), by bank size and by encoding position, each with an interval whose unit is the chain
trunk (probes of one trunk share their sessions and are not independent): Wilson at the
trunks' design effect with t(trunks − 1), which memscope computes
(:meth:`~memscope.plugin.SectionRun.cluster_rates`); below 30 trunks it is marked
approximate. The bank size is each system's own (its log), never borrowed from another
system. :func:`recall_section` ranks the target in the probe's first recall step (R1, the
only step that queries with the cue) and says apart whether any step's list held it.
:func:`tsr_section` is the section's ``compute`` hook; the view is ``dmv.report_view``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

import numpy as np

from memscope.plugin import MIN_CLUSTERS

if TYPE_CHECKING:
    from memscope.plugin import GroupRate, SectionRun

DEFAULT_RESAMPLES = 1_000
"""Reported for compatibility: the trunk interval draws nothing."""


def as_float(values: np.ndarray) -> np.ndarray:
    """An object column of numbers (or None) as floats with NaN for None."""
    return np.array([np.nan if v is None else float(v) for v in values], dtype=float)


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


ATTRIBUTES = (
    "trunk",
    "reach",
    "trajectory_bank_size",
    "encoding_position",
    "recall_session",
    "visit_session",
    "mc",
)
RUN_ATTRIBUTES = ("bank_size", "n_steps", "target_seen_any_step")
MAX_BINS = 8
MC_POSITION_NOTE = (
    "encoding position unknown for {n} multiple-choice-probe (MC mode) probe(s): their ids "
    "carry a sample index, not a position, and no trajectory cache was found to recompute it "
    "(data/vismem_diag_v2/f2_trajectories/, or --dmv-registry pointing at a folder that holds it)"
)
POSITION_NOTE = "encoding position unknown for {n} probe(s): the probe id carries none and no trajectory cache was found"


def _entry(group: GroupRate) -> TsrGroup:
    return {
        "n": group.n,
        "tsr": group.rate,
        "ci_low": group.ci_low,
        "ci_high": group.ci_high,
        "n_trunks": group.n_clusters,
        "approximate": group.n_clusters < MIN_CLUSTERS,
    }


def tsr_section(data: SectionRun, *, resamples: int = DEFAULT_RESAMPLES) -> TsrSection:
    """TSR of a DMV-Bench run, overall and stratified, with trunk-cluster intervals at the
    report's level (``resamples`` and the report's seed are reported for compatibility; the
    interval draws nothing).

    Returns:
        ``{"n", "overall", "ci_low", "ci_high", "n_trunks", "approximate" (fewer than 30
        trunks), "interval" (its method), "resamples", "seed", "level", "by_reach": {"1":
        {"n", "tsr", "ci_low", "ci_high", "n_trunks", "approximate"}, ...}, "by_bank_size": {...},
        "by_encoding_position": {...}, "encoding_position_note", "recall": see
        :func:`recall_section`}``. The bank size is the system's own. Bank sizes and encoding positions with more than
        eight distinct values are grouped into ranges ``"lo-hi"`` of similar size.
    """
    success = data.column("em").astype(float)
    attributes = data.attributes(ATTRIBUTES)
    own = data.attributes(RUN_ATTRIBUTES, own=True)
    # The system's own bank size (its log; 0 for a memoryless system), else the trajectory
    # cache's; never another system's. The rule is the bank axis's (adapters/dmv/axes.py).
    bank_size = data.axis_values()["bank"]
    trunks = np.array(["" if t is None else str(t) for t in attributes["trunk"]], dtype=object)
    # A probe without a trunk id is its own cluster.
    trunks = np.where(
        trunks == "", np.array([f"#{qid}" for qid in data.qids], dtype=object), trunks
    )
    seed, level = data.seed, data.level
    options = {"level": level}
    everything = np.full(success.size, "all", dtype=object)
    overall = data.cluster_rates(success, trunks, everything, ["all"], **options).get("all")
    reach = as_float(attributes["reach"])
    reach_labels = np.array(["" if np.isnan(r) else str(int(r)) for r in reach], dtype=object)
    reach_levels = [str(int(r)) for r in np.unique(reach[~np.isnan(reach)])]
    bank_labels, bank_levels = data.bins(as_float(bank_size), max_bins=MAX_BINS)
    position_labels, position_levels = data.bins(
        as_float(attributes["encoding_position"]), max_bins=MAX_BINS
    )
    by = {
        "by_reach": data.cluster_rates(success, trunks, reach_labels, reach_levels, **options),
        "by_bank_size": data.cluster_rates(success, trunks, bank_labels, bank_levels, **options),
        "by_encoding_position": data.cluster_rates(
            success, trunks, position_labels, position_levels, **options
        ),
    }
    entries = {
        name: {label: _entry(group) for label, group in groups.items()}
        for name, groups in by.items()
    }
    unplaced = np.isnan(as_float(attributes["encoding_position"]))
    n_mc = int((unplaced & np.array([bool(m) for m in attributes["mc"]], dtype=bool)).sum())
    return {
        "n": overall.n if overall else 0,
        "overall": overall.rate if overall else None,
        "ci_low": overall.ci_low if overall else None,
        "ci_high": overall.ci_high if overall else None,
        "n_trunks": overall.n_clusters if overall else 0,
        "approximate": (overall.n_clusters if overall else 0) < MIN_CLUSTERS,
        "interval": "trunk Wilson at the design effect, t(trunks - 1)",
        "resamples": resamples,
        "seed": seed,
        "level": level,
        "by_reach": entries["by_reach"],
        "by_bank_size": entries["by_bank_size"],
        "by_encoding_position": entries["by_encoding_position"],
        "n_without_bank_size": int(np.isnan(as_float(bank_size)).sum()),
        "n_without_encoding_position": int(unplaced.sum()),
        "encoding_position_note": (
            MC_POSITION_NOTE.format(n=n_mc)
            if n_mc
            else POSITION_NOTE.format(n=int(unplaced.sum()))
            if unplaced.any()
            else None
        ),
        "recall": recall_section(data, own),
    }


def recall_section(data: SectionRun, own: dict[str, np.ndarray]) -> TargetRecall | None:
    """Where the target stood in the probe's ranking (the first recall step's list, R1).

    Returns:
        ``{"k", "n", "any_at_k", "mrr", "target_rank": {"1": n, …, "not retrieved": n},
        "seen_any_step", "n_seen_any_step"}`` over the probes whose log shows their recall
        steps; "target seen in any step" is the unranked fact that any step's list held the
        target. None when the run logged no recall steps.
    """
    logged = np.array([n is not None for n in own["n_steps"]], dtype=bool)
    if not logged.any():
        return None
    k = int(data.top_k or 5)
    ranked, gold = data.ranked_positions, data.gold_positions
    if ranked.size and gold.size:
        hits = ((ranked[:, :, None] == gold[:, None, :]) & (ranked[:, :, None] != data.pad)).any(
            axis=2
        )
        found = hits.any(axis=1)
        rank = np.where(found, hits.argmax(axis=1) + 1, 0)
    else:
        rank = np.zeros(len(logged), dtype=int)
    rank = rank[logged]
    counts = {str(r): int((rank == r).sum()) for r in range(1, k + 1) if (rank == r).any()}
    counts["not retrieved"] = int((rank == 0).sum())
    outside = int((rank > k).sum())
    if outside:
        counts[f"below {k}"] = outside
    seen = [
        bool(v)
        for v, ok in zip(own["target_seen_any_step"], logged, strict=True)
        if ok and v is not None
    ]
    return {
        "k": k,
        "n": int(logged.sum()),
        "any_at_k": float(((rank >= 1) & (rank <= k)).mean()),
        "mrr": float(np.where(rank >= 1, 1.0 / np.maximum(rank, 1), 0.0).mean()),
        "target_rank": counts,
        "seen_any_step": float(np.mean(seen)) if seen else None,
        "n_seen_any_step": len(seen),
    }
