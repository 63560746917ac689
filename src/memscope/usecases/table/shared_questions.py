"""``table --shared``: every row over the questions all rows hold (issue 38).

Memory systems' harnesses each keep their own subset of a benchmark's questions (one drops
two questions, another keeps a category the rest leave out), so rows of different systems
are over different questions by default: each equals its harness's own overall. With
``--shared`` every row keeps only the questions every row holds (by question key, the
identity ``compare`` pairs on), and the caption says how many each row left out.

Rows whose questions are disjoint by design (one row per task or per conversation) share
none: that is refused rather than printed as an empty table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memscope.errors import InputError


@dataclass(frozen=True)
class SharedQuestions:
    """Which questions each part of each row keeps, and what the rows lose."""

    keep: list[list[np.ndarray]]
    """Per row, per part (run), a boolean mask over the part's questions."""
    n_shared: int
    left_out: list[int]
    """Per row, how many of its distinct questions are not held by every row."""

    def note(self, labels: Sequence[str]) -> str:
        """The caption's line: the shared count, and what each row left out."""
        lost = "; ".join(
            f"{label} {n}" for label, n in zip(labels, self.left_out, strict=True) if n
        )
        return f"--shared: every row over the {self.n_shared} questions all rows hold" + (
            f" (left out: {lost})" if lost else " (no row left any out)"
        )


def shared_questions(rows: Sequence[Sequence[Sequence[str]]]) -> SharedQuestions:
    """The masks keeping, in every part of every row, the question keys all rows hold.

    ``rows``: per row, per part, the part's question keys (a row's questions are the union
    of its parts': parts of one row are disjoint pieces or repeats).

    Raises:
        InputError: the rows share no question.
    """
    row_keys = [set().union(*(set(part) for part in parts)) for parts in rows]
    common: set[str] = set.intersection(*row_keys) if row_keys else set()
    if row_keys and not common:
        raise InputError(
            "--shared: the table's rows hold no question in common",
            fix="Leave out --shared (each row over its own questions), or group the rows "
            "so that each holds the same benchmark questions (--group, --per-run).",
        )
    keep = [
        [
            np.fromiter((key in common for key in part), dtype=bool, count=len(part))
            for part in parts
        ]
        for parts in rows
    ]
    return SharedQuestions(
        keep=keep, n_shared=len(common), left_out=[len(keys - common) for keys in row_keys]
    )
