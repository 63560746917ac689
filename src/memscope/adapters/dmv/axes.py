"""DMV-Bench's axes: reach (sessions between encoding and recall) x bank size, or x the
target's encoding position, all read from the probe's attributes (``adapters.dmv``)."""

from __future__ import annotations

from memscope.plugin import Axis, BenchmarkAxes, MatrixView

REACH_AXIS = Axis(key="reach", title="reach", source="extra:reach", numeric=True, width=5)
BANK_AXIS = Axis(
    key="bank",
    title="bank size",
    # The system's own bank size (its log; 0 for a memoryless system), else the
    # trajectory cache's: never another system's (docs/metrics.md §7).
    source="own:bank_size|extra:trajectory_bank_size",
    numeric=True,
    aliases=("bank_size",),
    width=5,
)
POSITION_AXIS = Axis(
    key="position",
    title="encoding position",
    source="extra:encoding_position",
    numeric=True,
    aliases=("encoding_position", "pos"),
    width=5,
)

AXES = BenchmarkAxes(
    benchmark="dmv",
    name="DMV-Bench",
    axes=(REACH_AXIS, BANK_AXIS, POSITION_AXIS),
    views=(MatrixView("reach", "bank"), MatrixView("reach", "position")),
    metrics=(
        ("tsr", "TSR"),
        ("r1_top_k", "target in top-K at R1"),
        # The run's own attribute (run.py writes it where the log has recall steps).
        ("own:target_seen_any_step", "target seen in any step"),
    ),
    words={
        "question": "probe",
        "unplaced": "no reach / bank size",
        "cue": "cue",
        "clue": "target",
    },
)
