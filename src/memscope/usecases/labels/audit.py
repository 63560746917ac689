"""``memscope audit``: is the grader right? The grader against people's verdicts, and the
accuracy per axis level corrected with PPI++.

:func:`audit_run` loads a run, turns one of its automatic scores into a 0/1 grader outcome
per question (:func:`grader_outcomes`: the run's own correctness, or judge / EM / F1 /
score at a threshold), reads the current verdicts (``correct`` 1, ``wrong`` 0; ``unsure``
counted and left out) and computes, with ``analysis.grader_audit``, the agreement on the
questions with a verdict and, per level of one axis and overall, the grader's mean, the
verdict-only mean and the PPI++ estimate of the true accuracy. When the verdicts come from
``memscope sample --for verdicts`` (stratified by level x grader outcome, stored with
inclusion probabilities), each verdict is weighted by ``1 / inclusion probability``.

:func:`corrected_accuracy` is the one number
a table cell needs (``table --corrected``): a run's PPI++ accuracy over all its questions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from memscope.errors import InputError

if TYPE_CHECKING:
    from memscope.analysis.grader_audit import GraderAgreement
    from memscope.analysis.ppi import MeanEstimate
    from memscope.store import Store
    from memscope.usecases.runs.loading import RunData

METRICS = ("correct", "judge", "em", "f1", "score")
"""What the grader can be: ``correct`` is the run's own correctness (what ``report`` and
``table`` count); the others a score column at a threshold."""
DEFAULT_THRESHOLDS = {"judge": 0.5, "em": 1.0, "f1": 0.5, "score": 0.5}
VARIANCES = ("adjusted", "plugin")
OVERALL = "all"
VERDICT_VALUE = {"correct": 1.0, "wrong": 0.0}


def score_column(data: RunData, metric: str) -> np.ndarray:
    """One score of every question (``em``, ``judge``, ``f1``; else the answer score), NaN where absent."""
    from memscope.analysis.answers import answer_score

    em = data.column("em").astype(float)
    judge = data.column("judge").astype(float)
    f1 = data.column("f1").astype(float)
    if metric == "em":
        return em
    if metric == "judge":
        return judge
    if metric == "f1":
        return f1
    mode = np.asarray(data.column("mode"), dtype=object).astype(str)
    return np.asarray(answer_score(mode, em, judge, f1), dtype=float)


def check_threshold(threshold: float | None) -> None:
    """Refuse a ``--threshold`` that is no score: NaN, infinite, or outside [0, 1].

    Raises:
        InputError: such a threshold (one message, whatever is wrong with it).
    """
    if threshold is None or 0.0 <= threshold <= 1.0:  # NaN fails both comparisons
        return
    raise InputError(
        f"--threshold must be a score between 0 and 1, not {threshold:g}",
        fix="A score at or above the threshold passes, e.g. --threshold 0.5.",
    )


def grader_outcomes(
    data: RunData, metric: str = "correct", threshold: float | None = None
) -> tuple[np.ndarray, np.ndarray, float | None]:
    """``(outcome, score, threshold)`` per question: the grader's 1/0 (NaN: no score) and
    the score it comes from.

    Raises:
        InputError: an unknown metric, a threshold for ``correct`` or outside [0, 1], or a
            metric the run lacks.
    """
    from memscope.analysis.answers import correctness

    check_threshold(threshold)

    if metric not in METRICS:
        raise InputError(f"unknown metric {metric!r}", fix=f"Metrics: {', '.join(METRICS)}.")
    if metric == "correct":
        if threshold is not None:
            raise InputError(
                "--threshold goes with a score metric (judge, em, f1, score)",
                fix="The run's own correctness has its benchmark's rule.",
            )
        mode = np.asarray(data.column("mode"), dtype=object).astype(str)
        em = data.column("em").astype(float)
        judge = data.column("judge").astype(float)
        f1 = data.column("f1").astype(float)
        outcome = correctness(mode, em, judge, f1)
        return outcome, np.asarray(answer_score_of(data), dtype=float), None
    score = score_column(data, metric)
    if score.size and np.isnan(score).all():
        raise InputError(
            f"run {data.run.run_id} has no {metric} score",
            fix="Pick a metric the run has: " + ", ".join(available_metrics(data)) + ".",
        )
    cut = DEFAULT_THRESHOLDS[metric] if threshold is None else threshold
    outcome = np.where(np.isnan(score), np.nan, (score >= cut).astype(float))
    return outcome, score, cut


def answer_score_of(data: RunData) -> np.ndarray:
    """The run's single answer score per question (``analysis.answers.answer_score``)."""
    return score_column(data, "score")


def available_metrics(data: RunData) -> list[str]:
    """The metrics of :data:`METRICS` the run has at least one value of."""
    found = ["correct"]
    for metric in ("judge", "em", "f1"):
        column = score_column(data, metric)
        if column.size and not np.isnan(column).all():
            found.append(metric)
    return [*found, "score"]


@dataclass(frozen=True)
class LevelAudit:
    """One axis level's (or the whole run's) accuracy three ways."""

    axis: str
    level: str
    label: str
    n_questions: int
    n_verdicts: int
    metric_mean: float | None
    verdict_only: MeanEstimate | None
    ppi: MeanEstimate | None


@dataclass(frozen=True)
class Disagreement:
    """A question where the grader and the person differ (to open in the app)."""

    qid: str
    verdict: str
    grader: int
    score: float | None
    level: str
    note: str | None


@dataclass(frozen=True)
class GraderAudit:
    """Everything ``memscope audit`` prints."""

    run_id: str
    metric: str
    threshold: float | None
    annotator: str | None
    variance: str
    axis: str
    n_questions: int
    n_unsure: int
    weighted: bool
    agreement: GraderAgreement | None
    levels: list[LevelAudit]
    stratified: MeanEstimate | None
    disagreements: list[Disagreement]
    notes: list[str] = field(default_factory=list)


def _pseudo(variance: str) -> float:
    from memscope.analysis.ppi import agresti_pseudo

    if variance not in VARIANCES:
        raise InputError(f"unknown variance {variance!r}", fix=f"Use {' or '.join(VARIANCES)}.")
    return agresti_pseudo() if variance == "adjusted" else 0.0


def audit_axis(data: RunData, by: str | None) -> str:
    """The key of the axis ``by`` names (default: the benchmark's first queue axis)."""
    from memscope.usecases.runs.axes import run_axes

    axes = run_axes(data)
    if by is None:
        return axes.queue_axes[0].key
    found = axes.axis(by)
    if found is None:
        raise InputError(
            f"{axes.name} has no axis {by!r}",
            fix=f"Axes: {', '.join(axis.key for axis in axes.axes)}.",
        )
    return found.key


@dataclass(frozen=True)
class _Prepared:
    """The arrays every part of the audit works on (questions with a grader outcome)."""

    qids: list[str]
    outcome: np.ndarray
    score: np.ndarray
    levels: np.ndarray
    level_order: list[str]
    level_label: dict[str, str]
    verdict: np.ndarray
    """1/0 per question, NaN: no verdict (or unsure)."""
    weight: np.ndarray
    """1 / inclusion probability of the verdicts (1 where unweighted)."""
    verdict_words: dict[str, str]
    verdict_notes: dict[str, str | None]
    n_unsure: int
    n_unscored_verdicts: int
    """Correct/wrong verdicts on questions without a grader score (left out)."""
    weighted: bool
    notes: list[str]


def _prepare(
    store: Store,
    run_id: str,
    *,
    annotator: str | None,
    metric: str,
    threshold: float | None,
    axis_key: str | None,
) -> tuple[_Prepared, str, float | None, RunData]:
    from memscope.store import labels as stored
    from memscope.usecases.labels.verdicts import current_verdicts
    from memscope.usecases.runs.axes import axis_columns, run_axes
    from memscope.usecases.runs.loading import load_run

    data = load_run(store, run_id, detail=False)
    key = audit_axis(data, axis_key)
    outcome, score, cut = grader_outcomes(data, metric, threshold)
    labels, _numbers, level_values = axis_columns(data)
    axis = run_axes(data).require(key)
    scored = ~np.isnan(outcome)
    qids = [str(q) for q in np.asarray(data.qids)[scored].tolist()]
    levels = np.array([value or "none" for value in labels[key][scored].tolist()], dtype=object)
    order = [value for value in level_values[key] if value in set(levels.tolist())]
    order += sorted(set(levels.tolist()) - set(order))
    verdicts = current_verdicts(store, run_id, annotator=annotator)
    with store.read() as con:
        sample = {
            qid: probability for qid, _stratum, probability in stored.verdict_sample(con, run_id)
        }
    verdict = np.full(len(qids), np.nan)
    weight = np.ones(len(qids))
    n_unsure = 0
    words: dict[str, str] = {}
    notes_of: dict[str, str | None] = {}
    position = {qid: row for row, qid in enumerate(qids)}
    n_unscored_verdicts = 0
    for qid, given in verdicts.items():
        row = position.get(qid)
        if row is None:
            n_unscored_verdicts += given.verdict in VERDICT_VALUE
            continue
        words[qid] = given.verdict
        notes_of[qid] = given.note
        if given.verdict == "unsure":
            n_unsure += 1
            continue
        verdict[row] = VERDICT_VALUE[given.verdict]
    judged = [qid for qid in qids if not np.isnan(verdict[position[qid]])]
    notes: list[str] = []
    weighted = bool(judged) and bool(sample) and all(qid in sample for qid in judged)
    if weighted:
        for qid in judged:
            weight[position[qid]] = 1.0 / sample[qid]
    elif sample and judged:
        notes.append(
            "some verdicts are outside the run's verdict sample: the verdicts are taken as a "
            "simple random sample (unweighted)"
        )
    unscored = int((~scored).sum())
    if unscored:
        notes.append(f"{unscored} question(s) without a {metric} score are left out")
    prepared = _Prepared(
        qids=qids,
        outcome=outcome[scored],
        score=score[scored],
        levels=levels,
        level_order=order,
        level_label={value: axis.label(value) for value in order},
        verdict=verdict,
        weight=weight,
        verdict_words=words,
        verdict_notes=notes_of,
        n_unsure=n_unsure,
        n_unscored_verdicts=n_unscored_verdicts,
        weighted=weighted,
        notes=notes,
    )
    return prepared, key, cut, data


def _level(
    prepared: _Prepared, rows: np.ndarray, axis: str, level: str, label: str, pseudo: float
) -> LevelAudit:
    from memscope.analysis.grader_audit import accuracy_estimates

    grader_all = prepared.outcome[rows]
    judged = rows[~np.isnan(prepared.verdict[rows])]
    weights = prepared.weight[judged] if prepared.weighted else None
    found = accuracy_estimates(
        grader_all,
        prepared.verdict[judged],
        prepared.outcome[judged],
        pseudo=pseudo,
        weights=weights,
    )
    return LevelAudit(
        axis=axis,
        level=level,
        label=label,
        n_questions=int(rows.size),
        n_verdicts=int(judged.size),
        metric_mean=found.grader_mean,
        verdict_only=found.verdict_only,
        ppi=found.ppi,
    )


def audit_run(
    store: Store,
    run_id: str,
    *,
    annotator: str | None = None,
    metric: str = "correct",
    threshold: float | None = None,
    by: str | None = None,
    variance: str = "adjusted",
) -> GraderAudit:
    """The grader of ``run_id`` against the current verdicts (see the module docstring).

    Raises:
        InputError: an unknown metric, axis or variance; no verdicts on the run.
        NotFoundError: an unknown run.
    """
    from memscope.analysis.grader_audit import grader_agreement
    from memscope.analysis.ppi import StratumPart, combine_strata

    pseudo = _pseudo(variance)
    prepared, axis, cut, _data = _prepare(
        store, run_id, annotator=annotator, metric=metric, threshold=threshold, axis_key=by
    )
    judged = np.flatnonzero(~np.isnan(prepared.verdict))
    if judged.size == 0:
        who = f" by {annotator}" if annotator else ""
        if prepared.n_unscored_verdicts:
            raise InputError(
                f"run {run_id} has {prepared.n_unscored_verdicts} verdict(s){who}, all on "
                f"questions with no {metric} score: the {metric} grader cannot be checked "
                "against them",
                fix="Give verdicts on questions the grader scored, or audit another metric: "
                "--metric correct.",
            )
        raise InputError(
            f"run {run_id} has no correct/wrong verdicts{who} yet"
            + (f" ({prepared.n_unsure} unsure)" if prepared.n_unsure else ""),
            fix=f"Give some: memscope sample {run_id} --for verdicts, then "
            f"memscope label {run_id} --question Q --verdict correct|wrong.",
        )
    agreement = grader_agreement(prepared.verdict[judged], prepared.outcome[judged])
    every = np.arange(len(prepared.qids))
    levels = [_level(prepared, every, axis, OVERALL, OVERALL, pseudo)]
    for value in prepared.level_order:
        rows = np.flatnonzero(prepared.levels == value)
        levels.append(
            _level(prepared, rows, axis, value, prepared.level_label.get(value, value), pseudo)
        )
    per_level = levels[1:]
    stratified = None
    if len(per_level) > 1 and all(part.ppi is not None for part in per_level):
        stratified = combine_strata(
            [StratumPart(part.ppi, part.n_questions) for part in per_level if part.ppi is not None]
        )
    disagreements = [
        Disagreement(
            qid=prepared.qids[row],
            verdict=prepared.verdict_words[prepared.qids[row]],
            grader=int(prepared.outcome[row]),
            score=None if np.isnan(prepared.score[row]) else float(prepared.score[row]),
            level=str(prepared.levels[row]),
            note=prepared.verdict_notes.get(prepared.qids[row]),
        )
        for row in judged
        if prepared.verdict[row] != prepared.outcome[row]
    ]
    return GraderAudit(
        run_id=run_id,
        metric=metric,
        threshold=cut,
        annotator=annotator,
        variance=variance,
        axis=axis,
        n_questions=len(prepared.qids),
        n_unsure=prepared.n_unsure,
        weighted=prepared.weighted,
        agreement=agreement,
        levels=levels,
        stratified=stratified,
        disagreements=disagreements,
        notes=prepared.notes,
    )


def corrected_accuracy(
    store: Store,
    run_id: str,
    *,
    metric: str = "correct",
    threshold: float | None = None,
    variance: str = "adjusted",
) -> MeanEstimate | None:
    """A run's PPI++ accuracy over all its questions (None without verdicts): a table
    cell's corrected value (``table --corrected``)."""
    try:
        found = audit_run(store, run_id, metric=metric, threshold=threshold, variance=variance)
    except InputError:
        return None
    return found.levels[0].ppi


def _estimate(found: MeanEstimate | None, *, with_lambda: bool) -> dict[str, Any] | None:
    """An accuracy estimate for JSON and CSV, clipped to [0, 1] as on screen."""
    if found is None:
        return None
    estimate, low, high = found.as_share
    data: dict[str, Any] = {
        "estimate": estimate,
        "low": low,
        "high": high,
        "std_error": found.std_error,
    }
    if with_lambda:
        data["lambda"] = found.lam
    return data


def _rate(rate: Any) -> dict[str, Any]:
    return {"value": rate.value, "low": rate.low, "high": rate.high, "n": rate.n}


def audit_to_json(audit: GraderAudit) -> dict[str, Any]:
    """The JSON ``memscope audit --format json`` prints."""
    agreement = audit.agreement
    assert agreement is not None  # audit_run raises without verdicts
    return {
        "run": audit.run_id,
        "metric": audit.metric,
        "threshold": audit.threshold,
        "annotator": audit.annotator,
        "variance": audit.variance,
        "weighted": audit.weighted,
        "n_questions": audit.n_questions,
        "n_unsure": audit.n_unsure,
        "agreement": {
            "n": agreement.n,
            "accuracy": agreement.accuracy.value,
            "sensitivity": agreement.sensitivity.value,
            "specificity": agreement.specificity.value,
            "kappa": agreement.kappa,
            "intervals": {
                "accuracy": _rate(agreement.accuracy),
                "sensitivity": _rate(agreement.sensitivity),
                "specificity": _rate(agreement.specificity),
            },
            "table": {
                "rows": "people: correct, wrong",
                "columns": "grader: correct, wrong",
                "counts": agreement.table(),
            },
        },
        "levels": [
            {
                "axis": level.axis,
                "level": level.level,
                "label": level.label,
                "n_questions": level.n_questions,
                "n_verdicts": level.n_verdicts,
                "metric_mean": level.metric_mean,
                "verdict_only": _estimate(level.verdict_only, with_lambda=False),
                "ppi": _estimate(level.ppi, with_lambda=True),
            }
            for level in audit.levels
        ],
        "stratified": _estimate(audit.stratified, with_lambda=True),
        "disagreements": [item.__dict__ for item in audit.disagreements],
        "notes": audit.notes,
    }
