"""Answer quality per question: the score used for triage and whether it counts as correct.

docs/metrics.md §2: MCQ EM is the mean over rotations; an open answer counts as correct when its
judge score is >= 0.5 (the paper's binarisation), or on exact match when it has no judge
score. docs/taxonomy.md §5: a prediction has failed when MCQ EM < 1, or open judge < 0.5 (EM = 0
without a judge score).
"""

from __future__ import annotations

import numpy as np

JUDGE_CORRECT_AT = 0.5


def correctness(mode: np.ndarray, em: np.ndarray, judge: np.ndarray) -> np.ndarray:
    """1.0 correct, 0.0 failed, NaN when the question has no answer score at all.

    Args:
        mode: ``"mcq"`` or ``"open"`` per question.
        em: exact match (MCQ: rotation-averaged), NaN when absent.
        judge: judge score, NaN when absent.
    """
    is_mcq = mode == "mcq"
    has_judge = ~np.isnan(judge)
    open_correct = np.where(has_judge, judge >= JUDGE_CORRECT_AT, em >= 1.0)
    correct = np.where(is_mcq, em >= 1.0, open_correct).astype(float)
    unknown = np.where(is_mcq | ~has_judge, np.isnan(em), False)
    correct[unknown] = np.nan
    return correct


def answer_score(mode: np.ndarray, em: np.ndarray, judge: np.ndarray) -> np.ndarray:
    """The single score compared across runs: MCQ EM, else the judge score, else EM."""
    return np.where((mode == "mcq") | np.isnan(judge), em, judge)
