"""The questions two annotators both labelled and labelled differently (``agreement --disagreements``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memscope.store import Store


def disagreements(store: Store, run_id: str, first: str, second: str) -> list[dict[str, Any]]:
    """Per question both annotators currently label, where their codes or primary code differ.

    In benchmark order; each entry has both annotators' codes, primaries, notes and times.
    """
    from memscope.store.labels import question_index
    from memscope.usecases.labels.events import current_labels
    from memscope.usecases.labels.instants import utc_text

    labels = {name: current_labels(store, run_id, annotator=name) for name in (first, second)}
    with store.read() as con:
        order = list(question_index(con, run_id))
    position = {qid: index for index, qid in enumerate(order)}
    found = []
    for qid in sorted(
        set(labels[first]) & set(labels[second]), key=lambda q: position.get(q, len(order))
    ):
        a, b = labels[first][qid], labels[second][qid]
        if set(a.codes) == set(b.codes) and a.primary == b.primary:
            continue
        found.append(
            {
                "qid": qid,
                "primary": {first: a.primary, second: b.primary},
                "codes": {first: list(a.codes), second: list(b.codes)},
                "note": {first: a.note, second: b.note},
                "labelled_at": {
                    first: utc_text(a.labelled_at),
                    second: utc_text(b.labelled_at),
                },
            }
        )
    return found
