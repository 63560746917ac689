"""LoCoMo's axes: category x evidence age (the default matrix), and evidence modality.

- category: upstream's five QA categories (``extra.category``, 1–5) under upstream's names;
  a filter takes the number, the name or a spelling of it (``category:2``,
  ``category:temporal``, ``category:multihop``);
- age: sessions between the session of the latest evidence turn and the conversation's last
  session (``extra.evidence_age``; none when no evidence id resolves), numeric, so
  ``age:>=10`` and ``age:2-5`` filter it;
- modality: whether any evidence turn shares an image (``extra.evidence_modality``).

The values are set by ``adapters.locomo.dataset``.
"""

from __future__ import annotations

from memscope.plugin import Axis, BenchmarkAxes, Level, MatrixView

CATEGORY_VALUES = {
    1: "multi_hop",
    2: "temporal",
    3: "open_domain",
    4: "single_hop",
    5: "adversarial",
}
"""Upstream's category number -> the axis value."""


def category_value(raw: object) -> str | None:
    """The axis value of a category as stored (``2`` or ``"2"`` -> ``temporal``); None when
    it is not one of 1–5."""
    if isinstance(raw, bool):
        return None
    try:
        number = int(str(raw).strip())
    except (TypeError, ValueError):
        return None
    return CATEGORY_VALUES.get(number)


CATEGORY_AXIS = Axis(
    key="category",
    title="category",
    source="extra:category",
    derive=category_value,
    levels=(
        Level("multi_hop", "Multi-hop", "multi", ("1", "multihop", "mh")),
        Level("temporal", "Temporal", "temporal", ("2", "time", "temp")),
        Level("open_domain", "Open-domain", "open", ("3", "opendomain", "od")),
        Level("single_hop", "Single-hop", "single", ("4", "singlehop", "sh")),
        Level("adversarial", "Adversarial", "advers", ("5", "adv")),
    ),
    aliases=("cat",),
    width=8,
)
AGE_AXIS = Axis(
    key="age",
    title="evidence age (sessions)",
    source="extra:evidence_age",
    numeric=True,
    aliases=("evidence_age",),
    width=5,
)
MODALITY_AXIS = Axis(
    key="modality",
    title="evidence modality",
    source="extra:evidence_modality",
    levels=(
        Level("image", "image", "image", ("img",)),
        Level("text", "text", "text"),
    ),
    aliases=("evidence_modality",),
    width=5,
)

AXES = BenchmarkAxes(
    benchmark="locomo",
    name="LoCoMo",
    axes=(CATEGORY_AXIS, AGE_AXIS, MODALITY_AXIS),
    views=(MatrixView("category", "age"), MatrixView("category", "modality")),
    metrics=(
        ("f1", "F1"),
        ("judge", "Judge"),
        ("any_clue", "Any-Clue@K"),
    ),
    words={
        "question": "question",
        "unplaced": "no category / evidence age (no evidence turn resolves)",
        "turn": "turn",
        "session": "session",
        "cue": "evidence turn",
    },
)
