"""``memscope audit --raters``: every automatic score and every person as raters of the
same answers, with pairwise agreement and Krippendorff's alpha (``analysis.grader_audit``).

Graders are the run's judge, EM and F1 score columns, each at its threshold, where the run
has them, and each judge run of a harness that judged every answer several times
(EverMemOS's three judgements); people are everyone's current correct/wrong verdicts
(unsure left out).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from memscope.errors import InputError
from memscope.usecases.labels.audit import DEFAULT_THRESHOLDS, VERDICT_VALUE, score_column

if TYPE_CHECKING:
    from memscope.store import Store


@dataclass(frozen=True)
class RaterAudit:
    """Every automatic score and every person as raters of the same answers."""

    run_id: str
    raters: list[str]
    n_questions: int
    alpha: float | None
    pairs: list[Any]


def audit_raters(
    store: Store, run_id: str, *, thresholds: dict[str, float] | None = None
) -> RaterAudit:
    """Pairwise agreement and Krippendorff's alpha over the run's graders and people.

    Graders: the run's judge, EM and F1 score columns (each at its threshold) where it has
    them; people: every annotator's current correct/wrong verdicts (unsure left out).
    """
    from memscope.analysis.grader_audit import krippendorff_alpha, pairwise_agreement
    from memscope.usecases.labels.verdicts import verdicts_by_annotator
    from memscope.usecases.runs.loading import load_run

    data = load_run(store, run_id, detail=False)
    cuts = {**DEFAULT_THRESHOLDS, **(thresholds or {})}
    qids = [str(q) for q in np.asarray(data.qids).tolist()]
    position = {qid: row for row, qid in enumerate(qids)}
    names: list[str] = []
    rows: list[np.ndarray] = []
    for metric in ("judge", "em", "f1"):
        score = score_column(data, metric)
        if score.size and not np.isnan(score).all():
            names.append(f"{metric}>={cuts[metric]:g}")
            rows.append(np.where(np.isnan(score), np.nan, (score >= cuts[metric]).astype(float)))
    # A harness that judged every answer several times (EverMemOS, MemOS): each judge run
    # is a rater of its own, beside the judge score (their mean) and the people.
    from memscope.store.queries import judge_runs

    with store.read() as con:
        judged = judge_runs(con, run_id)
    for number in range(max((len(v) for v in judged.values()), default=0)):
        row = np.full(len(qids), np.nan)
        for qid, values in judged.items():
            if qid in position and len(values) > number:
                row[position[qid]] = values[number]
        names.append(f"judge run {number + 1}")
        rows.append(row)
    for person, given in verdicts_by_annotator(store, run_id).items():
        row = np.full(len(qids), np.nan)
        for qid, word in given.items():
            if qid in position and word in VERDICT_VALUE:
                row[position[qid]] = VERDICT_VALUE[word]
        names.append(person)
        rows.append(row)
    if len(names) < 2:
        raise InputError(
            f"run {run_id} has fewer than two raters ({', '.join(names) or 'none'})",
            fix="Raters are the run's automatic scores and everyone who gave verdicts.",
        )
    ratings = np.vstack(rows)
    return RaterAudit(
        run_id=run_id,
        raters=names,
        n_questions=len(qids),
        alpha=krippendorff_alpha(ratings),
        pairs=pairwise_agreement(names, ratings),
    )


def raters_to_json(found: RaterAudit) -> dict[str, Any]:
    """The JSON ``memscope audit --raters --format json`` prints."""
    return {
        "run": found.run_id,
        "raters": found.raters,
        "n_questions": found.n_questions,
        "krippendorff_alpha": found.alpha,
        "pairs": [pair.__dict__ for pair in found.pairs],
    }
