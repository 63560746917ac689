"""Each question's own history: the rounds it could have seen (``Benchmark.history``).

Where every question follows one dialogue, a question's history is the whole dataset and a
round's age is ``N - position``. A benchmark may give each question its own haystack: there the
history is the question's own rounds, its size is how many they are, and a round's age is how
many of the question's own rounds come after it. Over the whole dataset (positions 1..N) both
definitions agree, so one formula serves both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

_AFTER_ALL = np.iinfo(np.int64).max
"""Padding of a history row: after every real position, so it never counts as earlier."""


@dataclass(frozen=True)
class Histories:
    """Per question (row), the ascending positions of the rounds of its own history."""

    positions: np.ndarray
    """``(n, H)`` int64, ascending per row, padded with :data:`_AFTER_ALL`."""
    sizes: np.ndarray
    """``(n,)`` how many rounds each question's history holds."""

    @classmethod
    def of(cls, qids: Sequence[str], found: Mapping[str, Sequence[int]]) -> Histories:
        """The histories of ``qids`` in row order from ``found`` (qid → positions; a qid
        without one has an empty history)."""
        lists = [sorted(found.get(str(qid), ())) for qid in qids]
        width = max((len(one) for one in lists), default=0)
        positions = np.full((len(lists), width), _AFTER_ALL, dtype=np.int64)
        for row, one in enumerate(lists):
            positions[row, : len(one)] = one
        sizes = np.array([len(one) for one in lists], dtype=np.int64)
        return cls(positions, sizes)

    def rows(self, rows: slice | np.ndarray) -> Histories:
        """The histories of some rows (a slice or an index array)."""
        return Histories(self.positions[rows], self.sizes[rows])

    def ages(self, ranked_pos: np.ndarray) -> np.ndarray:
        """``(n, P)`` per candidate, how many rounds of its question's history come after it
        (float; NaN for padding and rounds unknown to the dataset, position ≤ 0)."""
        ages = np.full(ranked_pos.shape, np.nan)
        for row in range(ranked_pos.shape[0]):
            earlier = np.searchsorted(self.positions[row], ranked_pos[row], side="right")
            ages[row] = self.sizes[row] - earlier
        ages[ranked_pos <= 0] = np.nan
        return ages
