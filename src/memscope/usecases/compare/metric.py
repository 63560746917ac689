"""Which named metric ``compare`` compares, in the names ``report`` and the app use.

``compare`` compares one answer score per question (``analysis.answers.answer_score``): EM
for an MCQ question (rotation-averaged) and the judge score for an open one (EM where it
has none). Rather than call that a bare "score", the comparison is named after the
metric(s) it is: ``EM`` (all MCQ or unjudged), ``Judge`` (all judged open questions), or
``EM (MCQ) / Judge (open)`` for a mix.
"""

from __future__ import annotations

import numpy as np

EM = {"key": "em", "label": "EM"}
JUDGE = {"key": "judge", "label": "Judge"}
MIXED = {"key": "em_mcq_judge_open", "label": "EM (MCQ) / Judge (open)"}


def compared_metric(mode: np.ndarray, judge: np.ndarray) -> dict[str, str]:
    """The metric a comparison of these matched questions compares (``mode``, ``judge`` of run A)."""
    uses_judge = (mode != "mcq") & ~np.isnan(judge)
    if uses_judge.all() and len(uses_judge):
        return dict(JUDGE)
    if not uses_judge.any():
        return dict(EM)
    return dict(MIXED)


def named_metric(name: str, benchmark: str) -> dict[str, str]:
    """The metric ``compare --metric NAME`` compares (``f1``: the benchmark's own F1)."""
    if name == "judge":
        return dict(JUDGE)
    return {"key": "f1", "label": "F1"}
