"""LoCoMo's own F1, recomputed from an answer's text: the one yardstick for every harness.

A port of upstream's ``task_eval/evaluation.py`` (snap-research/LoCoMo, main ``3eb6f2c``):
``normalize_answer`` (commas dropped, lower case, ASCII punctuation dropped, the words
``a an the and`` dropped, whitespace collapsed), tokens Porter-stemmed (NLTK's default
mode, :mod:`.porter`), token F1 (0 when no token is shared); and
``eval_question_answering``'s rules per category:

- 1 multi-hop: the answer and the gold are split at ``,`` into sub-answers; each gold
  sub-answer takes its best F1 over the answer's parts; the mean of those;
- 2, 3, 4: one token F1; for category 3 the gold is cut at the first ``;``;
- 5 adversarial: 1 when the answer says "no information available" or "not mentioned"
  (any case), else 0.

The reference files round each value to three places (``round(x, 3)``); :func:`locomo_f1`
returns the unrounded value, :func:`reference_f1` the rounded one (numpy's rounding for the
multi-hop mean, which upstream computes with ``np.mean``).
"""

from __future__ import annotations

import re
import string
from collections import Counter

from memscope.adapters.locomo.porter import stem

_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
REFUSALS = ("no information available", "not mentioned")


def normalize_answer(text: str) -> str:
    """Upstream's ``normalize_answer``."""
    text = text.replace(",", "").lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def _tokens(text: str) -> list[str]:
    return [stem(word) for word in normalize_answer(text).split()]


def token_f1(prediction: str, gold: str) -> float:
    """Upstream's ``f1_score``: stemmed token F1 of one answer against one gold."""
    predicted, wanted = _tokens(prediction), _tokens(gold)
    same = sum((Counter(predicted) & Counter(wanted)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(predicted), same / len(wanted)
    return 2 * precision * recall / (precision + recall)


def multi_answer_f1(prediction: str, gold: str) -> float:
    """Upstream's ``f1``: the mean over the gold's ``,`` parts of the best F1 over the
    answer's ``,`` parts."""
    parts = [p.strip() for p in prediction.split(",")]
    golds = [g.strip() for g in gold.split(",")]
    return sum(max(token_f1(p, g) for p in parts) for g in golds) / len(golds)


def locomo_f1(prediction: str | None, gold: object, category: int) -> float | None:
    """LoCoMo's F1 of one answer (None: no answer, or a category upstream does not score)."""
    if prediction is None:
        return None
    answer = str(gold) if gold is not None else ""
    if category == 3:
        answer = answer.split(";")[0].strip()
    if category in (2, 3, 4):
        return token_f1(prediction, answer)
    if category == 1:
        return multi_answer_f1(prediction, answer)
    if category == 5:
        lowered = prediction.lower()
        return 1.0 if any(refusal in lowered for refusal in REFUSALS) else 0.0
    return None


def reference_f1(prediction: str | None, gold: object, category: int) -> float | None:
    """:func:`locomo_f1` rounded to three places, as ``evaluate_qa.py`` writes ``<key>_f1``."""
    value = locomo_f1(prediction, gold, category)
    if value is None:
        return None
    if category == 1:
        # Upstream's multi-hop F1 is numpy's mean, and numpy rounds a float64 by scaling
        # (0.2625 -> 0.262), not as Python rounds a float (-> 0.263).
        import numpy as np

        return float(np.round(np.float64(value), 3))
    return round(value, 3)
