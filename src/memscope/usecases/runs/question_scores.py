"""Per-question numbers the app's views show beside ``report``'s: whether an answer is
correct (``analysis.answers``), and evidence Recall@k / Precision@k
(``analysis.evidence_at_k``), so ``triage/`` reaches the analysis through a use case."""

from __future__ import annotations

import numpy as np

from memscope.analysis.answers import correctness as correctness
from memscope.analysis.evidence_at_k import evidence_at_k
from memscope.usecases.runs.loading import RunData
from memscope.usecases.runs.question_extras import extra_columns

__all__ = ["correctness", "evidence_values"]

EVIDENCE_EXCLUDED_POINTS = ("refusal_text",)
"""Question points left out of evidence Recall/Precision (CUE-Mem's refusal questions have no
evidence to find, as its own ``step3_evaluate`` counts; the report's section does the same)."""


def evidence_values(data: RunData, k: int, *, precision: bool = False) -> np.ndarray:
    """Per question, CUE-Mem's evidence Recall@k (or Precision@k) of the retrieved turns;
    NaN for the questions the benchmark leaves out of it (Answer Refusal)."""
    recall_at, precision_at = evidence_at_k(data.evidence.ranked_pos, data.evidence.gold_pos, (k,))
    values = (precision_at if precision else recall_at)[:, 0].copy()
    points = extra_columns(data.questions, ("point",))["point"]
    values[np.isin(points.astype(str), EVIDENCE_EXCLUDED_POINTS)] = np.nan
    return values
