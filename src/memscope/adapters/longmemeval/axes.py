"""LongMemEval's axes: question type x abstention (the default matrix), the number of
evidence sessions, and how far the evidence lies from the question.

- type: upstream's six ``question_type``s (``extra.question_type``); a filter takes the
  name or its initials (``type:ku``, ``type:knowledge-update``);
- abstention: whether the question is an abstention variant (``_abs`` in its id, upstream's
  own test): ``abs:yes`` …;
- evidence: the number of evidence sessions (``answer_session_ids``), numeric;
- distance: sessions of the question's own haystack after its latest evidence session,
  numeric (``distance:>=10``);
- days: days from the latest evidence session to the question's date, numeric.

The values are set by ``adapters.longmemeval.dataset``.
"""

from __future__ import annotations

from memscope.plugin import Axis, BenchmarkAxes, Level, MatrixView

NAME = "longmemeval"
"""The benchmark's name: the entry point's name, stored with every run."""

TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "temporal-reasoning",
    "knowledge-update",
)
"""Upstream's six question types (``print_qa_metrics.py`` averages over exactly these)."""

TYPE_AXIS = Axis(
    key="type",
    title="question type",
    source="extra:question_type",
    levels=(
        Level("single-session-user", "single-session user", "ss-user", ("ssu", "user")),
        Level("single-session-assistant", "single-session assistant", "ss-asst", ("ssa", "assistant")),
        Level("single-session-preference", "single-session preference", "ss-pref", ("ssp", "preference")),
        Level("multi-session", "multi-session", "multi", ("ms", "multi")),
        Level("temporal-reasoning", "temporal reasoning", "temporal", ("tr", "temporal")),
        Level("knowledge-update", "knowledge update", "update", ("ku", "update")),
    ),
    aliases=("question_type", "qtype"),
    width=8,
)  # fmt: skip
ABSTENTION_AXIS = Axis(
    key="abstention",
    title="abstention",
    source="extra:abstention",
    levels=(
        Level("yes", "abstention (_abs)", "abs", ("abs", "true")),
        Level("no", "answerable", "ans", ("answerable", "false")),
    ),
    aliases=("abs",),
    width=3,
)
EVIDENCE_AXIS = Axis(
    key="evidence",
    title="evidence sessions",
    source="extra:evidence_sessions",
    numeric=True,
    aliases=("evidence_sessions",),
    width=3,
)
DISTANCE_AXIS = Axis(
    key="distance",
    title="sessions after the latest evidence",
    source="extra:evidence_distance",
    numeric=True,
    aliases=("evidence_distance", "age"),
    width=4,
)
DAYS_AXIS = Axis(
    key="days",
    title="days from the latest evidence to the question",
    source="extra:evidence_days",
    numeric=True,
    aliases=("evidence_days",),
    width=4,
)

AXES = BenchmarkAxes(
    benchmark=NAME,
    name="LongMemEval",
    axes=(TYPE_AXIS, ABSTENTION_AXIS, EVIDENCE_AXIS, DISTANCE_AXIS, DAYS_AXIS),
    views=(MatrixView("type", "abstention"), MatrixView("type", "distance")),
    metrics=(("accuracy", "accuracy"), ("any_clue", "Any-Clue@K")),
    words={
        "question": "question",
        "unplaced": "no question type",
        "clue": "evidence turn",
        "turn": "round",
        "session": "session",
    },
)
