"""Answer quality per question: the score used for triage and whether it counts as correct.

docs/metrics.md §2: MCQ EM is the mean over rotations; an open answer counts as correct when its
judge score is >= 0.5 (the paper's binarisation), or on exact match when it has no judge
score, or when its token F1 is >= 0.5 where it has neither (runs graded by F1 only).
docs/taxonomy.md §5: a prediction has failed when MCQ EM < 1, or open judge < 0.5 (EM = 0
without a judge score).
"""

from __future__ import annotations

import numpy as np

JUDGE_CORRECT_AT = 0.5
F1_CORRECT_AT = 0.5


def _open_em(em: np.ndarray, f1: np.ndarray | None) -> np.ndarray:
    """EM, with F1 standing in where EM is absent (1.0 when F1 >= 0.5, else 0.0)."""
    if f1 is None:
        return em
    stand_in = np.where(np.isnan(f1), np.nan, (f1 >= F1_CORRECT_AT).astype(float))
    return np.where(np.isnan(em), stand_in, em)


def correctness(
    mode: np.ndarray, em: np.ndarray, judge: np.ndarray, f1: np.ndarray | None = None
) -> np.ndarray:
    """1.0 correct, 0.0 failed, NaN when the question has no answer score at all.

    Args:
        mode: ``"mcq"`` or ``"open"`` per question.
        em: exact match (MCQ: rotation-averaged), NaN when absent.
        judge: judge score, NaN when absent.
        f1: token F1, NaN when absent (used for open answers with neither judge nor EM).
    """
    is_mcq = mode == "mcq"
    has_judge = ~np.isnan(judge)
    open_em = _open_em(em, f1)
    open_correct = np.where(has_judge, judge >= JUDGE_CORRECT_AT, open_em >= 1.0)
    correct = np.where(is_mcq, em >= 1.0, open_correct).astype(float)
    unknown = np.where(is_mcq, np.isnan(em), ~has_judge & np.isnan(open_em))
    correct[unknown] = np.nan
    return correct


def answer_score(
    mode: np.ndarray, em: np.ndarray, judge: np.ndarray, f1: np.ndarray | None = None
) -> np.ndarray:
    """The single score compared across runs: MCQ EM, else the judge score, else EM, else
    the token F1."""
    open_score = em if f1 is None else np.where(np.isnan(em), f1, em)
    return np.where(mode == "mcq", em, np.where(np.isnan(judge), open_score, judge))
