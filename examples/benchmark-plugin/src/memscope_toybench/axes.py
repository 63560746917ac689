"""ToyBench's axes: question kind x evidence gap (the default matrix).

- ``kind``: what the question asks for (``extra.kind``, written by the dataset): a stated
  ``fact``, a fact that was later ``update``-d (only the latest statement is right), or a
  ``preference``; a filter takes ``kind:update`` or ``kind:changed``;
- ``gap``: sessions between the session of the latest evidence turn and the dialogue's last
  session (``extra.gap``), numeric, so ``gap:>=1`` and ``gap:0-1`` filter it.
"""

from __future__ import annotations

from memscope.plugin import Axis, BenchmarkAxes, Level, MatrixView

NAME = "toybench"
"""The benchmark's name: the entry point's name, stored with every run."""

KIND_AXIS = Axis(
    key="kind",
    title="question kind",
    source="extra:kind",
    levels=(
        Level("fact", "Fact", "fact"),
        Level("update", "Updated fact", "update", ("changed",)),
        Level("preference", "Preference", "pref", ("taste",)),
    ),
    width=6,
)
GAP_AXIS = Axis(
    key="gap",
    title="evidence gap (sessions)",
    source="extra:gap",
    numeric=True,
    aliases=("evidence_gap",),
    width=4,
)

AXES = BenchmarkAxes(
    benchmark=NAME,
    name="ToyBench",
    axes=(KIND_AXIS, GAP_AXIS),
    views=(MatrixView("kind", "gap"),),
    metrics=(("accuracy", "accuracy"), ("any_clue", "Any-Clue@K")),
    words={
        "question": "question",
        "unplaced": "no kind / evidence gap",
        "clue": "evidence turn",
    },
)
