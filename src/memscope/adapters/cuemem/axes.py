"""CUE-Mem's axes: task x evidence (explicit / implicit), with the cue's modality as a
filter and a third view.

The task is the QA's ``task_group`` and the evidence setting its ``explicitness``
(``adapters.cuemem``); the modality is the one the QA point is about, the suffix of its
``point`` (``entity_img`` is an image point, ``rec_text`` a text one).
"""

from __future__ import annotations

from memscope.plugin import Axis, BenchmarkAxes, Level, MatrixView

MODALITY_SUFFIXES = {
    "img": "image",
    "image": "image",
    "audio": "audio",
    "voice": "audio",
    "text": "text",
}


def point_modality(point: object) -> str | None:
    """``entity_img`` → ``image``, ``pref_text`` → ``text`` (None when the point has no known suffix)."""
    if not isinstance(point, str) or "_" not in point:
        return None
    return MODALITY_SUFFIXES.get(point.rsplit("_", 1)[1].lower())


TASK_AXIS = Axis(
    key="task",
    title="task",
    source="extra:task_group",
    levels=(
        Level("entity_recall", "Entity Recall", "entity", ("er", "recall")),
        Level("long_pattern", "Long Pattern", "pattern", ("lp", "long", "pref")),
        Level(
            "personalized_recommendation",
            "Personalized Recommendation",
            "rec",
            ("pr", "recommendation"),
        ),
        Level("answer_refusal", "Answer Refusal", "refusal", ("ar", "adversarial")),
    ),
    width=7,
)
EVIDENCE_AXIS = Axis(
    key="evidence",
    title="evidence",
    source="extra:explicitness",
    levels=(
        Level("explicit", "explicit", "explicit", ("exp",)),
        Level("implicit", "implicit", "implicit", ("imp",)),
    ),
    aliases=("explicitness", "setting"),
    width=8,
)
MODALITY_AXIS = Axis(
    key="modality",
    title="modality",
    source="extra:point",
    derive=point_modality,
    levels=(
        Level("image", "image", "image", ("img",)),
        Level("audio", "audio", "audio", ("voice",)),
        Level("text", "text", "text"),
    ),
    width=5,
)

AXES = BenchmarkAxes(
    benchmark="cuemem",
    name="CUE-Mem",
    axes=(TASK_AXIS, EVIDENCE_AXIS, MODALITY_AXIS),
    views=(MatrixView("task", "evidence"), MatrixView("task", "modality")),
    metrics=(
        ("accuracy", "accuracy"),
        ("evidence_recall", "evidence Recall@K"),
        ("evidence_precision", "evidence Precision@K"),
    ),
    words={
        "question": "QA",
        "unplaced": "no task / evidence setting",
        "cue": "cue",
        "setting": "explicit / implicit",
    },
)
