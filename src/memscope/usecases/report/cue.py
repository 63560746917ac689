"""The CUE-Mem part of ``memscope report``: accuracy per task x explicit / implicit, Memory
Avg., EI-Gap and evidence Recall@k / Precision@k (docs/metrics.md §8).

:func:`cue_section` computes it for one CUE-Mem run; ``build_report`` adds it under the
``"cue"`` key.
"""

from __future__ import annotations

import numpy as np

from memscope.analysis.answers import correctness
from memscope.analysis.arrays import PAD
from memscope.analysis.cuemem import (
    EVIDENCE_EXCLUDED_POINTS,
    EVIDENCE_KS,
    SETTINGS,
    accuracy_by_task,
    ei_gap,
    evidence_at_k,
    evidence_summary,
    memory_average,
)
from memscope.usecases.report.sections import CueEvidence, CueSection
from memscope.usecases.runs.loading import RunData
from memscope.usecases.runs.question_extras import extra_columns

ATTRIBUTES = ("task_group", "explicitness", "point", "unresolved_clues")
MAX_EXAMPLES = 5


def cue_section(data: RunData) -> CueSection:
    """CUE-Mem's diagnostics of one run.

    Returns:
        ``{"by_task": {task: {"explicit", "implicit", "n_explicit", "n_implicit"}},
        "memory_avg": {"explicit", "implicit"}, "ei_gap", "evidence": {"recall": {"1",
        "3", "5", "10", "25"}, "precision": {...}, "n", "by_explicitness": {...},
        "saved_depth"}, "n_unknown_setting", "unresolved_clues": {"n", "examples"}}``;
        accuracies and rates in [0, 1], None where undefined.
    """
    attributes = extra_columns(data.questions, ATTRIBUTES)
    tasks = np.array([t or "" for t in attributes["task_group"]], dtype=object)
    settings = np.array([s or "unknown" for s in attributes["explicitness"]], dtype=object)
    correct = correctness(
        data.column("mode"),
        data.column("em").astype(float),
        data.column("judge").astype(float),
        data.column("f1"),
    )
    by_task = accuracy_by_task(correct, tasks, settings)
    average = memory_average(by_task)
    evidence = _evidence(data, attributes, settings)
    unresolved = [
        f"{qid}: {clue}"
        for qid, clues in zip(data.qids.tolist(), attributes["unresolved_clues"], strict=True)
        for clue in (clues or [])
    ]
    return {
        "by_task": by_task,
        "memory_avg": average,
        "ei_gap": ei_gap(average),
        "evidence": evidence,
        "n_unknown_setting": int(
            ((settings != "explicit") & (settings != "implicit") & (tasks != "")).sum()
        ),
        "unresolved_clues": {"n": len(unresolved), "examples": unresolved[:MAX_EXAMPLES]},
    }


def _evidence(
    data: RunData, attributes: dict[str, np.ndarray], settings: np.ndarray
) -> CueEvidence:
    points = np.array([p or "" for p in attributes["point"]], dtype=object)
    counted = ~np.isin(points, EVIDENCE_EXCLUDED_POINTS)
    if data.has_retrievals:
        ranked = data.evidence.ranked_pos
        recall, precision = evidence_at_k(ranked, data.evidence.gold_pos, EVIDENCE_KS)
        saved_depth = int((ranked != PAD).sum(axis=1).max()) if ranked.size else 0
    else:
        recall = precision = np.full((len(points), len(EVIDENCE_KS)), np.nan)
        saved_depth = 0
    # A QA whose memory returned nothing still counts (every k misses) when the run logged
    # retrievals at all.
    mask = counted & data.has_retrievals
    overall = evidence_summary(recall, precision, mask, EVIDENCE_KS)
    return {
        "n": overall["n"],
        "recall": overall["recall"],
        "precision": overall["precision"],
        "by_explicitness": {
            setting: evidence_summary(recall, precision, mask & (settings == setting), EVIDENCE_KS)
            for setting in SETTINGS
        },
        "saved_depth": saved_depth,
    }
