"""``memscope sample RUN --for verdicts``: which answers people should judge.

A stratified random sample of the run's questions (every one the grader scored, passed
or failed), strata = axis level x grader outcome, proportional allocation with at least
two per stratum (``analysis.sampling``): judge-positive and judge-negative answers of
every level are both checked, so the audit sees both of the grader's error rates. The
sample is stored with each question's stratum and inclusion probability
(``verdict_sample_items``, migration 010); ``memscope audit`` weights the verdicts by
``1 / inclusion probability`` when every verdict is from it. Drawing again replaces it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from memscope.errors import InputError

if TYPE_CHECKING:
    from memscope.store import Store
    from memscope.usecases.labels.sample import SamplePlan

DEFAULT_VERDICT_SAMPLE = 40
DEFAULT_SEED = 20261228


@dataclass(frozen=True)
class VerdictSample:
    """The questions drawn for verdicts, in the order to judge them."""

    run_id: str
    axis: str
    metric: str
    seed: int
    qids: list[str]
    strata: list[str]
    inclusion_probability: list[float]
    per_stratum: dict[str, dict[str, int]]


def draw_verdict_sample(
    store: Store,
    run_id: str,
    *,
    size: int = DEFAULT_VERDICT_SAMPLE,
    metric: str = "correct",
    threshold: float | None = None,
    by: str | None = None,
    seed: int = DEFAULT_SEED,
) -> VerdictSample:
    """Draw and store the run's verdict sample (replacing any earlier one).

    Raises:
        InputError: a size below 1, an unknown metric or axis.
    """
    from memscope.analysis.sampling import sample_order
    from memscope.store import labels as stored
    from memscope.usecases.labels.audit import audit_axis, grader_outcomes
    from memscope.usecases.labels.instants import utc_now
    from memscope.usecases.runs.axes import axis_columns
    from memscope.usecases.runs.loading import load_run

    if size < 1:
        raise InputError(f"--n must be at least 1, got {size}")
    data = load_run(store, run_id, detail=False)
    key = audit_axis(data, by)
    outcome, _score, _cut = grader_outcomes(data, metric, threshold)
    labels, _numbers, _levels = axis_columns(data)
    scored = np.flatnonzero(~np.isnan(outcome))
    qids = [str(q) for q in np.asarray(data.qids)[scored].tolist()]
    strata = [
        f"{labels[key][row] or 'none'}·{'pass' if outcome[row] == 1.0 else 'fail'}"
        for row in scored.tolist()
    ]
    items, counts = sample_order(strata, size, seed=seed)
    planned = [item for item in items if item.planned]
    chosen = [(qids[item.row], item.stratum, item.inclusion_probability) for item in planned]
    with store.write() as con:
        stored.save_verdict_sample(
            con, run_id, chosen, metric=metric, seed=seed, created_at=utc_now()
        )
    sizes: dict[str, int] = {}
    for stratum in strata:
        sizes[stratum] = sizes.get(stratum, 0) + 1
    return VerdictSample(
        run_id=run_id,
        axis=key,
        metric=metric,
        seed=seed,
        qids=[qid for qid, _, _ in chosen],
        strata=[stratum for _, stratum, _ in chosen],
        inclusion_probability=[probability for _, _, probability in chosen],
        per_stratum={
            h: {"questions": sizes[h], "planned": counts.get(h, 0)} for h in sorted(sizes)
        },
    )


def load_verdict_sample(store: Store, run_id: str) -> list[tuple[str, str, float]]:
    """The run's stored verdict sample in order, (qid, stratum, inclusion probability);
    empty when none was drawn. What the app's queue can step through for verdicts."""
    from memscope.store import labels as stored

    with store.read() as con:
        return stored.verdict_sample(con, run_id)


def verdict_sample_plan(store: Store, run_id: str) -> SamplePlan | None:
    """The stored verdict sample as the app's sampled queue plan (None when none was drawn).

    Every drawn answer is planned, passed or failed alike: the queue serves them all, and
    its progress counts verdicts, not labels.
    """
    from memscope.usecases.labels.sample import SamplePlan

    drawn = load_verdict_sample(store, run_id)
    if not drawn:
        return None
    per_stratum: dict[str, dict[str, int]] = {}
    for _qid, stratum, _probability in drawn:
        entry = per_stratum.setdefault(stratum, {"failures": 0, "planned": 0})
        entry["planned"] += 1
    return SamplePlan(
        run_id=run_id,
        run_hash=None,
        seed=0,  # the describe line of a verdict sample does not name it
        strata="verdicts",
        sample_size=len(drawn),
        allocation="proportional",
        per_stratum=per_stratum,
        qids=[qid for qid, _, _ in drawn],
        stratum_of={qid: stratum for qid, stratum, _ in drawn},
        inclusion_probability={qid: probability for qid, _, probability in drawn},
        planned={qid for qid, _, _ in drawn},
        purpose="verdicts",
    )
