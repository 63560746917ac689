"""CUE-Mem metrics (docs/metrics.md §8): accuracy per task and evidence setting, Memory
Avg., EI-Gap, and evidence Recall@k / Precision@k.

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

Pure numpy over per-question arrays.
"""

from __future__ import annotations

from typing import TypedDict

import numpy as np

from memscope.analysis.arrays import PAD, row_member

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


def evidence_at_k(
    ranked: np.ndarray, gold: np.ndarray, ks: tuple[int, ...] = EVIDENCE_KS
) -> tuple[np.ndarray, np.ndarray]:
    """Per-question Recall@k and Precision@k of ranked retrieved turns against gold turns.

    Args:
        ranked: ``(n, P)`` retrieved turn codes in rank order, padded with :data:`PAD`
            (a code of 0 is a retrieved id unknown to the dataset: it holds its rank and
            matches nothing).
        gold: ``(n, G)`` gold turn codes, padded with :data:`PAD`.
        ks: the cut-offs.

    Returns:
        ``(recall, precision)``, each ``(n, len(ks))``; NaN for questions without a gold
        turn.
    """
    n = ranked.shape[0]
    recall = np.full((n, len(ks)), np.nan)
    precision = np.full((n, len(ks)), np.nan)
    golds = (gold != PAD).sum(axis=1)
    has_gold = golds > 0
    columns = np.arange(ranked.shape[1])[None, :]
    for j, k in enumerate(ks):
        top = np.where(columns < k, ranked, PAD)
        hits = row_member(gold, top).sum(axis=1)
        recall[has_gold, j] = hits[has_gold] / golds[has_gold]
        precision[has_gold, j] = hits[has_gold] / k
    return recall, precision


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
