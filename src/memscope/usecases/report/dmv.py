"""The DMV-Bench part of ``memscope report``: TSR with its retention curve (docs/metrics.md §7).

:func:`tsr_section` gives, for one DMV-Bench run, TSR overall, by reach (the retention
curve), by bank size and by encoding position, each with an interval whose unit is the chain
trunk (probes of one trunk share their sessions and are not independent): Wilson at the
trunks' design effect with t(trunks − 1), ``analysis/clustered.py``; below 30 trunks it is
marked approximate. The bank size is each system's own (its log), never borrowed from
another system. :func:`recall_section` ranks the target in the probe's first recall step
(R1, the only step that queries with the cue) and says apart whether any step's list held
it. ``build_report`` adds it all under the ``"tsr"`` key.
"""

from __future__ import annotations

import numpy as np

from memscope.analysis.arrays import PAD
from memscope.analysis.bootstrap import DEFAULT_LEVEL, DEFAULT_SEED
from memscope.analysis.clustered import MIN_CLUSTERS
from memscope.analysis.dmv import DEFAULT_RESAMPLES, GroupTSR, bin_labels, cluster_interval_groups
from memscope.usecases.report.sections import TargetRecall, TsrGroup, TsrSection
from memscope.usecases.runs.axes import raw_values
from memscope.usecases.runs.loading import RunData
from memscope.usecases.runs.question_extras import as_float, extra_columns

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


def _entry(group: GroupTSR) -> TsrGroup:
    return {
        "n": group.n,
        "tsr": group.tsr,
        "ci_low": group.ci_low,
        "ci_high": group.ci_high,
        "n_trunks": group.n_trunks,
        "approximate": group.n_trunks < MIN_CLUSTERS,
    }


def tsr_section(
    data: RunData,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> TsrSection:
    """TSR of a DMV-Bench run, overall and stratified, with trunk-cluster intervals
    (``resamples`` and ``seed`` are reported for compatibility; the interval draws nothing).

    Returns:
        ``{"n", "overall", "ci_low", "ci_high", "n_trunks", "approximate" (fewer than 30
        trunks), "interval" (its method), "resamples", "seed", "level", "by_reach": {"1":
        {"n", "tsr", "ci_low", "ci_high", "n_trunks", "approximate"}, ...}, "by_bank_size": {...},
        "by_encoding_position": {...}, "encoding_position_note", "recall": see
        :func:`recall_section`}``. The bank size is the system's own. Bank sizes and encoding positions with more than
        eight distinct values are grouped into ranges ``"lo-hi"`` of similar size.
    """
    success = data.column("em").astype(float)
    attributes = extra_columns(data.questions, ATTRIBUTES)
    own = extra_columns(data.questions, RUN_ATTRIBUTES, column="prediction_extra")
    # The system's own bank size (its log; 0 for a memoryless system), else the trajectory
    # cache's; never another system's. The rule is the bank axis's (adapters/dmv/axes.py).
    bank_size = raw_values(data.questions, data.spec.axes)["bank"]
    trunks = np.array(["" if t is None else str(t) for t in attributes["trunk"]], dtype=object)
    # A probe without a trunk id is its own cluster.
    trunks = np.where(
        trunks == "", np.array([f"#{qid}" for qid in data.qids], dtype=object), trunks
    )
    options = {"level": level}
    everything = np.full(success.size, "all", dtype=object)
    overall = cluster_interval_groups(success, trunks, everything, ["all"], **options).get("all")
    reach = as_float(attributes["reach"])
    reach_labels = np.array(["" if np.isnan(r) else str(int(r)) for r in reach], dtype=object)
    reach_levels = [str(int(r)) for r in np.unique(reach[~np.isnan(reach)])]
    bank_labels, bank_levels = bin_labels(as_float(bank_size), max_bins=MAX_BINS)
    position_labels, position_levels = bin_labels(
        as_float(attributes["encoding_position"]), max_bins=MAX_BINS
    )
    by = {
        "by_reach": cluster_interval_groups(success, trunks, reach_labels, reach_levels, **options),
        "by_bank_size": cluster_interval_groups(
            success, trunks, bank_labels, bank_levels, **options
        ),
        "by_encoding_position": cluster_interval_groups(
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
        "overall": overall.tsr if overall else None,
        "ci_low": overall.ci_low if overall else None,
        "ci_high": overall.ci_high if overall else None,
        "n_trunks": overall.n_trunks if overall else 0,
        "approximate": (overall.n_trunks if overall else 0) < MIN_CLUSTERS,
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


def recall_section(data: RunData, own: dict[str, np.ndarray]) -> TargetRecall | None:
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
    k = int(data.run.top_k or 5)
    ranked, gold = data.evidence.ranked_pos, data.evidence.gold_pos
    if ranked.size and gold.size:
        hits = ((ranked[:, :, None] == gold[:, None, :]) & (ranked[:, :, None] != PAD)).any(axis=2)
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
