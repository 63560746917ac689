"""The DMV-Bench part of ``memscope report``: TSR with its retention curve (docs/metrics.md §7).

:func:`tsr_section` gives, for one DMV-Bench run, TSR overall, by reach (the retention
curve), by bank size and by encoding position, each with a percentile interval from a
bootstrap that resamples whole chain trunks (probes of one trunk share their sessions and
are not independent). ``build_report`` adds it under the ``"tsr"`` key.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from memscope.analysis.bootstrap import DEFAULT_LEVEL, DEFAULT_SEED
from memscope.analysis.dmv import DEFAULT_RESAMPLES, GroupTSR, bin_labels, cluster_bootstrap_groups
from memscope.pipeline.loading import RunData
from memscope.pipeline.question_extras import as_float, extra_columns

ATTRIBUTES = ("trunk", "reach", "bank_size", "encoding_position", "recall_session", "visit_session")
MAX_BINS = 8


def _entry(group: GroupTSR) -> dict[str, float | int | None]:
    return {"n": group.n, "tsr": group.tsr, "ci_low": group.ci_low, "ci_high": group.ci_high}


def tsr_section(
    data: RunData,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> dict[str, Any]:
    """TSR of a DMV-Bench run, overall and stratified, with trunk-cluster bootstrap intervals.

    Returns:
        ``{"n", "overall", "ci_low", "ci_high", "n_trunks", "resamples", "seed", "level",
        "by_reach": {"1": {"n", "tsr", "ci_low", "ci_high"}, ...}, "by_bank_size": {...},
        "by_encoding_position": {...}}``. Bank sizes and encoding positions with more than
        eight distinct values are grouped into ranges ``"lo-hi"`` of similar size.
    """
    success = data.column("em").astype(float)
    attributes = extra_columns(data.questions, ATTRIBUTES)
    trunks = np.array(["" if t is None else str(t) for t in attributes["trunk"]], dtype=object)
    # A probe without a trunk id is its own cluster.
    trunks = np.where(
        trunks == "", np.array([f"#{qid}" for qid in data.qids], dtype=object), trunks
    )
    options = {"resamples": resamples, "seed": seed, "level": level}
    everything = np.full(success.size, "all", dtype=object)
    overall = cluster_bootstrap_groups(success, trunks, everything, ["all"], **options).get("all")
    reach = as_float(attributes["reach"])
    reach_labels = np.array(["" if np.isnan(r) else str(int(r)) for r in reach], dtype=object)
    reach_levels = [str(int(r)) for r in np.unique(reach[~np.isnan(reach)])]
    bank_labels, bank_levels = bin_labels(as_float(attributes["bank_size"]), max_bins=MAX_BINS)
    position_labels, position_levels = bin_labels(
        as_float(attributes["encoding_position"]), max_bins=MAX_BINS
    )
    by = {
        "by_reach": cluster_bootstrap_groups(
            success, trunks, reach_labels, reach_levels, **options
        ),
        "by_bank_size": cluster_bootstrap_groups(
            success, trunks, bank_labels, bank_levels, **options
        ),
        "by_encoding_position": cluster_bootstrap_groups(
            success, trunks, position_labels, position_levels, **options
        ),
    }
    section: dict[str, Any] = {
        "n": overall.n if overall else 0,
        "overall": overall.tsr if overall else None,
        "ci_low": overall.ci_low if overall else None,
        "ci_high": overall.ci_high if overall else None,
        "n_trunks": overall.n_trunks if overall else 0,
        "resamples": resamples,
        "seed": seed,
        "level": level,
    }
    for name, groups in by.items():
        section[name] = {label: _entry(group) for label, group in groups.items()}
    section["n_without_bank_size"] = int(np.isnan(as_float(attributes["bank_size"])).sum())
    section["n_without_encoding_position"] = int(
        np.isnan(as_float(attributes["encoding_position"])).sum()
    )
    return section
