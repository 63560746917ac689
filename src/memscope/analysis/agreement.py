"""Inter-annotator agreement: Cohen's kappa on the questions two annotators both labelled.

``kappa = (p_o - p_e) / (1 - p_e)`` with ``p_o`` the observed agreement and ``p_e`` the
agreement expected from each annotator's own category frequencies. When ``p_e = 1``
(both annotators used one and the same category for every question) kappa is undefined
and reported as None.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Kappa:
    """Cohen's kappa with the numbers behind it."""

    kappa: float | None
    observed: float | None
    expected: float | None
    n: int

    def as_dict(self) -> dict[str, float | int | None]:
        """JSON-ready values."""
        return {
            "kappa": self.kappa,
            "observed": self.observed,
            "expected": self.expected,
            "n": self.n,
        }


def confusion_matrix(first: Sequence[str], second: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """The categories (sorted) and the ``(C, C)`` count matrix, rows = first annotator."""
    if len(first) != len(second):
        raise ValueError("both annotators need one label per question")
    categories = sorted(set(first) | set(second))
    index = {category: i for i, category in enumerate(categories)}
    matrix = np.zeros((len(categories), len(categories)), dtype=np.int64)
    if categories:
        np.add.at(matrix, ([index[c] for c in first], [index[c] for c in second]), 1)
    return categories, matrix


def kappa_from_matrix(matrix: np.ndarray) -> Kappa:
    """Cohen's kappa of a confusion matrix."""
    n = int(matrix.sum())
    if n == 0:
        return Kappa(None, None, None, 0)
    observed = float(np.trace(matrix)) / n
    expected = float((matrix.sum(axis=1) / n) @ (matrix.sum(axis=0) / n))
    if np.isclose(expected, 1.0):
        return Kappa(None, observed, expected, n)
    return Kappa((observed - expected) / (1.0 - expected), observed, expected, n)


def cohen_kappa(first: Sequence[str], second: Sequence[str]) -> Kappa:
    """Cohen's kappa of two annotators' single labels for the same questions."""
    return kappa_from_matrix(confusion_matrix(first, second)[1])


def presence_kappas(
    first: Sequence[Sequence[str]], second: Sequence[Sequence[str]], codes: Sequence[str]
) -> dict[str, Kappa]:
    """Per code, Cohen's kappa of "the question carries this code" (yes / no) between annotators."""
    result: dict[str, Kappa] = {}
    for code in codes:
        has_first = ["yes" if code in labels else "no" for labels in first]
        has_second = ["yes" if code in labels else "no" for labels in second]
        result[code] = cohen_kappa(has_first, has_second)
    return result
