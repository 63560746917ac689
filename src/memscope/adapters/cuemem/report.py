"""CUE-Mem's report section (``memscope report``, key ``cue``; docs/metrics.md §8): accuracy
per task x explicit / implicit, Memory Avg., EI-Gap and evidence Recall@k / Precision@k.

- Accuracy per task (Entity Recall, Long Pattern, Personalized Recommendation, Answer
  Refusal) x evidence setting (explicit, implicit): the share of correct QAs; a QA whose
  setting is unknown counts in neither.
- Memory Avg. (per setting) = the mean of the accuracies of the first three tasks that
  are defined; Answer Refusal is reported apart.
- EI-Gap = Memory Avg. explicit - Memory Avg. implicit.
- Evidence Recall@k = ``|gold turns in R@k| / |gold turns|`` and Precision@k =
  ``|gold turns in R@k| / k`` (k fixed, as CUE-Mem's RQ3 computes it), for
  k in 1, 3, 5, 10, 25, over QAs with at least one gold turn and a ranked retrieval,
  excluding ``refusal_text`` (as ``step3_evaluate`` does). ``R@k`` is what the run saved:
  when it saved fewer than k ids (RQ3 keeps the top 5), the rest count as misses.

:func:`cue_section` is the section's ``compute`` hook (``adapters.sections``), over what
memscope lends it (:class:`~memscope.plugin.SectionRun`); the view is ``cuemem.report_view``.
Pure numpy over per-question arrays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

import numpy as np

if TYPE_CHECKING:
    from memscope.plugin import SectionRun

TASKS = ("entity_recall", "long_pattern", "personalized_recommendation", "answer_refusal")
MEMORY_TASKS = TASKS[:3]
SETTINGS = ("explicit", "implicit")
EVIDENCE_KS = (1, 3, 5, 10, 25)
EVIDENCE_EXCLUDED_POINTS = ("refusal_text",)


def _mean(values: np.ndarray) -> float | None:
    return float(values.mean()) if values.size else None


def accuracy_by_task(
    correct: np.ndarray, tasks: np.ndarray, settings: np.ndarray
) -> dict[str, dict[str, float | int | None]]:
    """``{task: {"explicit", "implicit", "n_explicit", "n_implicit"}}`` for the four tasks.

    Args:
        correct: ``(n,)`` 1.0 correct, 0.0 wrong, NaN unknown (ignored).
        tasks: ``(n,)`` task group per QA (see :data:`TASKS`; anything else is ignored).
        settings: ``(n,)`` ``"explicit"``, ``"implicit"`` or anything else (ignored).
    """
    correct = np.asarray(correct, dtype=float)
    defined = ~np.isnan(correct)
    result: dict[str, dict[str, float | int | None]] = {}
    for task in TASKS:
        entry: dict[str, float | int | None] = {}
        for setting in SETTINGS:
            mask = defined & (tasks == task) & (settings == setting)
            entry[setting] = _mean(correct[mask])
        for setting in SETTINGS:
            entry[f"n_{setting}"] = int((defined & (tasks == task) & (settings == setting)).sum())
        result[task] = entry
    return result


def memory_average(by_task: dict[str, dict[str, float | int | None]]) -> dict[str, float | None]:
    """Memory Avg. per setting: the mean of the defined accuracies of the three memory tasks."""
    average: dict[str, float | None] = {}
    for setting in SETTINGS:
        values = [
            float(value)
            for task in MEMORY_TASKS
            if (value := by_task.get(task, {}).get(setting)) is not None
        ]
        average[setting] = float(np.mean(values)) if values else None
    return average


def ei_gap(memory_avg: dict[str, float | None]) -> float | None:
    """Memory Avg. explicit minus implicit (None unless both are defined)."""
    explicit, implicit = memory_avg.get("explicit"), memory_avg.get("implicit")
    if explicit is None or implicit is None:
        return None
    return float(explicit - implicit)


class EvidenceSummary(TypedDict):
    """Evidence Recall@k and Precision@k (by ``str(k)``) over ``n`` QAs."""

    n: int
    recall: dict[str, float | None]
    precision: dict[str, float | None]


def evidence_summary(
    recall: np.ndarray, precision: np.ndarray, mask: np.ndarray, ks: tuple[int, ...] = EVIDENCE_KS
) -> EvidenceSummary:
    """``{"n", "recall": {"1": ..}, "precision": {"1": ..}}`` over the rows in ``mask``."""
    rows = mask & ~np.isnan(recall[:, 0]) if recall.size else mask
    return {
        "n": int(rows.sum()),
        "recall": {str(k): _mean(recall[rows, j]) for j, k in enumerate(ks)},
        "precision": {str(k): _mean(precision[rows, j]) for j, k in enumerate(ks)},
    }


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


ATTRIBUTES = ("task_group", "explicitness", "point", "unresolved_clues")
MAX_EXAMPLES = 5


def cue_section(data: SectionRun) -> CueSection:
    """CUE-Mem's diagnostics of one run.

    Returns:
        ``{"by_task": {task: {"explicit", "implicit", "n_explicit", "n_implicit"}},
        "memory_avg": {"explicit", "implicit"}, "ei_gap", "evidence": {"recall": {"1",
        "3", "5", "10", "25"}, "precision": {...}, "n", "by_explicitness": {...},
        "saved_depth"}, "n_unknown_setting", "unresolved_clues": {"n", "examples"}}``;
        accuracies and rates in [0, 1], None where undefined.
    """
    attributes = data.attributes(ATTRIBUTES)
    tasks = np.array([t or "" for t in attributes["task_group"]], dtype=object)
    settings = np.array([s or "unknown" for s in attributes["explicitness"]], dtype=object)
    correct = data.correct()
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
    data: SectionRun, attributes: dict[str, np.ndarray], settings: np.ndarray
) -> CueEvidence:
    points = np.array([p or "" for p in attributes["point"]], dtype=object)
    counted = ~np.isin(points, EVIDENCE_EXCLUDED_POINTS)
    if data.has_retrievals:
        ranked = data.ranked_positions
        recall, precision = data.evidence_at(EVIDENCE_KS)
        saved_depth = int((ranked != data.pad).sum(axis=1).max()) if ranked.size else 0
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
