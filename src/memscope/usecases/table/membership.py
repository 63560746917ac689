"""``table --membership``: where a question with several X or Y labels is counted.

MemEye questions may carry several X and Y labels (``point`` ``[[X...], [Y...]]``). The
paper places a question by its highest label (``highest``, memscope's default, the app's
matrix and ``report``); the benchmark's runner counts it once in every bucket it names,
and every (X, Y) pair of them for cells (``every``: how ``metrics.json``'s ``by_x``,
``by_y`` and ``by_cell`` are made, upstream-formats §1.4). ``every`` reproduces the
runner's numbers; a question then appears in several columns of one axis.
"""

from __future__ import annotations

import numpy as np

from memscope.errors import InputError
from memscope.usecases.runs.loading import RunData

MEMBERSHIPS = ("highest", "every")
LISTED_AXES = {"x": "x_labels", "y": "y_labels"}
"""Axes whose every label the question table lists."""


def check_membership(membership: str, multi_label_axes: tuple[str, ...]) -> None:
    """Refuses an unknown rule, and ``every`` for a benchmark whose questions never name
    several levels of an axis (its ``TableLayout.multi_label_axes`` is empty)."""
    if membership not in MEMBERSHIPS:
        raise InputError(
            f"--membership {membership}: pass highest (the paper's rule) or every (the runner's)"
        )
    if membership == "every" and not multi_label_axes:
        raise InputError(
            "--membership every: this benchmark's questions never name several levels of an "
            "axis (only MemEye's carry several X / Y labels)",
            fix="Leave --membership out for this benchmark.",
        )


def every_labels(data: RunData, axis: str, separator: str = "_") -> np.ndarray | None:
    """Per question the tuple of every level it names on ``axis`` (``cell``: every X × Y
    pair), or None for an axis the question table does not list labels of."""

    def listed(name: str) -> list[tuple[str, ...]]:
        return [
            tuple(dict.fromkeys(str(v) for v in (labels if labels is not None else ()) if v))
            for labels in data.column(name)
        ]

    if axis in LISTED_AXES:
        found = listed(LISTED_AXES[axis])
    elif axis == "cell":
        found = [
            tuple(f"{x}{separator}{y}" for x in xs for y in ys)
            for xs, ys in zip(listed("x_labels"), listed("y_labels"), strict=True)
        ]
    else:
        return None
    out = np.empty(len(found), dtype=object)
    out[:] = found
    return out


def level_mask(labels: np.ndarray, level: str | None) -> np.ndarray:
    """Which questions count in ``level``: equal to it, or (``every``) naming it."""
    if labels.size and isinstance(labels[0], tuple):
        return np.fromiter((level in named for named in labels), dtype=bool, count=labels.size)
    return labels == level
