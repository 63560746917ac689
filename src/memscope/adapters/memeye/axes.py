"""MemEye's axes: visual granularity X1-X4 x reasoning depth Y1-Y3 (the paper's matrix)."""

from __future__ import annotations

from memscope.plugin import Axis, BenchmarkAxes, Level, MatrixView

X_AXIS = Axis(
    key="x",
    title="visual granularity",
    source="column:x",
    levels=(
        Level("X1", "X1 scene", "X1"),
        Level("X2", "X2 region", "X2"),
        Level("X3", "X3 instance", "X3"),
        Level("X4", "X4 pixel", "X4"),
    ),
    width=3,
)
Y_AXIS = Axis(
    key="y",
    title="reasoning depth",
    source="column:y",
    levels=(
        Level("Y1", "Y1 atomic", "Y1"),
        Level("Y2", "Y2 relational", "Y2"),
        Level("Y3", "Y3 evolutionary", "Y3"),
    ),
    width=3,
)

X_LEVELS = tuple(level.value for level in X_AXIS.levels)
"""MemEye's X levels in order: the one list the report, compare and the app lay out."""
Y_LEVELS = tuple(level.value for level in Y_AXIS.levels)
"""MemEye's Y levels in order."""

AXES = BenchmarkAxes(
    benchmark="memeye",
    name="MemEye",
    axes=(X_AXIS, Y_AXIS),
    views=(MatrixView("x", "y"),),
    metrics=(
        ("em", "EM"),
        ("judge", "Judge"),
        ("any_clue", "Any-Clue@K"),
        ("latest_at_k", "Latest@K (Y3)"),
    ),
    words={"question": "question", "unplaced": "unplaced (no X×Y cell)"},
)
