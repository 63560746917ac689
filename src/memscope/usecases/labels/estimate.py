"""``memscope estimate``: each failure code's prevalence among a run's failures, with intervals.

The target: for failure code ``c``, the share of the run's failures whose (primary)
label is ``c``, overall and per stratum (X, Y or X×Y cell). Two estimators side by side:

- **labels only**: the design-weighted mean of the human labels in each stratum, with a
  normal interval;
- **PPI++** (``analysis.ppi``): the rule suggestions on the stratum's unlabelled
  failures, corrected by the labelled ones (rule vs label), ``lam`` tuned for the
  smallest variance.

Weights: a labelled failure weighs ``N_h / k_h`` (failures / labelled failures of its
sampling stratum ``h``): with a sample plan (``memscope open --queue sample``) ``h`` is
the plan's stratum, otherwise the reporting stratum itself, which assumes the labelled
failures are a random sample within it (the note says so). The overall estimate combines
the strata (``sum_h W_h theta_h``) when every stratum has two labels, else pools all
failures into one stratum. Estimates and intervals are clipped to [0, 1].

Both variances are the pseudo-count adjusted ones (``analysis.ppi.agresti_pseudo``): the
plug-in variance, which ``ppi-python`` uses, under-covered at rule accuracy 0.9 with 200
labels (90-93 % for a 95 % interval) and gives a stratum whose labels and rules agree on
every item an interval of width 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from memscope.analysis.ppi import (
    DEFAULT_LEVEL,
    MeanEstimate,
    StratumPart,
    agresti_pseudo,
    combine_strata,
    labels_only_mean,
    ppi_mean,
)
from memscope.errors import InputError
from memscope.json_types import JSONObject

if TYPE_CHECKING:
    from memscope.store import Store
    from memscope.usecases.labels.sample import Failures, SamplePlan

BY = ("y", "cell", "x")
"""MemEye's strata words (its Y, X and X×Y cell); every run also takes ``cell`` and the axes
of its own benchmark (``Failures.strata_words``)."""
MIN_LABELS = 2
"""Labels a stratum needs for an interval (one label has no spread)."""


def estimate_dict(found: MeanEstimate | None) -> dict[str, Any] | None:
    """JSON-ready estimate (clipped to [0, 1]), or None."""
    if found is None:
        return None
    n_eff = found.effective_n
    estimate, low, high = found.as_share
    return {
        "estimate": estimate,
        "ci_low": low,
        "ci_high": high,
        "std_error": found.std_error,
        "lambda": found.lam,
        "effective_n": None if n_eff is None else float(n_eff),
    }


@dataclass
class GroupEstimate:
    """One code's estimates in one group (a stratum, or overall)."""

    labels: MeanEstimate | None
    ppi: MeanEstimate | None
    n_labelled: int
    n_failures: int
    n_with_code: int
    """Labelled failures carrying the code (the raw count behind the estimate)."""

    def to_json(self) -> JSONObject:
        """The group as ``estimate --format json`` prints it."""
        return {
            "n_labelled": self.n_labelled,
            "n_failures": self.n_failures,
            "n_labelled_with_code": self.n_with_code,
            "labels_only": estimate_dict(self.labels),
            "ppi": estimate_dict(self.ppi),
        }


@dataclass
class Estimates:
    """Every code's prevalence, overall and per stratum, with what it rests on."""

    run_id: str
    by: str
    annotator: str | None
    level: float
    n_failures: int
    n_labelled: int
    design: str
    overall_method: str
    rule_agreement: float | None
    strata: dict[str, dict[str, int]]
    codes: list[str]
    twin_runs: list[str] = field(default_factory=list)
    """The twin runs the rule suggestions were made with (``usecases.suggest.twins``)."""
    overall: dict[str, GroupEstimate] = field(default_factory=dict)
    per_stratum: dict[str, dict[str, GroupEstimate]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> JSONObject:
        """The estimates as ``estimate --format json`` prints them."""
        return {
            "run": self.run_id,
            "by": self.by,
            "annotator": self.annotator,
            "level": self.level,
            "n_failures": self.n_failures,
            "n_labelled": self.n_labelled,
            "design": self.design,
            "overall_method": self.overall_method,
            "rule_agreement": self.rule_agreement,
            "twin_runs": list(self.twin_runs),
            "strata": {stratum: dict(counts) for stratum, counts in self.strata.items()},
            "codes": {
                code: {
                    "overall": self.overall[code].to_json(),
                    "per_stratum": {
                        stratum: groups[code].to_json()
                        for stratum, groups in self.per_stratum.items()
                    },
                }
                for code in self.codes
            },
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class _Design:
    """Per failure: its labelled flag, its label weight and its weight as an unlabelled item."""

    labelled: np.ndarray
    strata: np.ndarray
    weight: np.ndarray
    weight_unlabelled: np.ndarray


def _design(design_strata: np.ndarray, is_labelled: np.ndarray) -> _Design:
    """Weights by sampling stratum ``h``: a label ``N_h / k_h``, an unlabelled failure
    ``N_h / (N_h - k_h)``, so both sets stand for the whole stratum."""
    weight = np.zeros(is_labelled.size)
    weight_unlabelled = np.zeros(is_labelled.size)
    for h in set(design_strata.tolist()):
        members = design_strata == h
        k = int((members & is_labelled).sum())
        rest = int(members.sum()) - k
        if k:
            weight[members & is_labelled] = members.sum() / k
        if rest:
            weight_unlabelled[members & ~is_labelled] = members.sum() / rest
    return _Design(is_labelled, design_strata, weight, weight_unlabelled)


def _estimate_group(
    y_all: np.ndarray,
    yhat_all: np.ndarray,
    members: np.ndarray,
    design: _Design,
    level: float,
    pseudo: float,
) -> tuple[MeanEstimate | None, MeanEstimate | None]:
    """Labels-only and PPI++ estimates over the failures in ``members``; None when the
    labels are too few.

    PPI++ takes the group's unlabelled failures as its unlabelled set (independent of
    the labelled ones, as the method assumes; the coverage benchmark found that using
    every failure, labelled ones included, under-covers when a large share is labelled).
    When a sampling stratum of the group is labelled completely, the unlabelled ones no
    longer stand for the group, and every failure of the group is used instead.
    """
    lab = members & design.labelled
    if int(lab.sum()) < MIN_LABELS:
        return None, None
    y, yhat, w = y_all[lab], yhat_all[lab], design.weight[lab]
    labels = labels_only_mean(y, level=level, w=w, pseudo=pseudo)
    unl = members & ~design.labelled
    complete = any(
        not (unl & (design.strata == h)).any() for h in set(design.strata[members].tolist())
    )
    if complete:
        ppi = ppi_mean(y, yhat, yhat_all[members], level=level, w=w, pseudo=pseudo)
    else:
        ppi = ppi_mean(
            y,
            yhat,
            yhat_all[unl],
            level=level,
            w=w,
            w_unlabelled=design.weight_unlabelled[unl],
            pseudo=pseudo,
        )
    return labels, ppi


def _checked_by(found: Failures, by: str | None) -> str:
    """The strata word ``by`` names for this run (``None``: its first axis: MemEye's Y,
    DMV-Bench's reach …).

    Raises:
        InputError: ``by`` is not ``cell`` nor an axis of the run's benchmark.
    """
    if by is None:
        return next(iter(found.axes), "cell") if "y" not in found.axes else "y"
    if by == "cell":
        return by
    key = found.axis_key(by)
    if key is None:
        words = [word for word in found.strata_words() if word != "code"]
        raise InputError(f"cannot estimate by {by!r}", fix=f"Use --by {' | '.join(words)}.")
    return key


def compute_estimates(
    found: Failures,
    labelled: dict[str, str],
    *,
    by: str | None = "y",
    plan: SamplePlan | None = None,
    codes: list[str] | None = None,
    level: float = DEFAULT_LEVEL,
    annotator: str | None = None,
    pseudo: float | None = None,
) -> Estimates:
    """Estimates from the failures, the primary label per labelled qid and an optional plan.

    ``pseudo``: pseudo-items per (label, rule) cell in the variances; None takes
    ``agresti_pseudo(level)``, 0 the plug-in variance of ``ppi-python``.
    """
    by = _checked_by(found, by)
    if pseudo is None:
        pseudo = agresti_pseudo(level)
    strata = np.asarray(found.stratum(by), dtype=object)
    qids = found.qids
    is_labelled = np.array([qid in labelled for qid in qids], dtype=bool)
    label = np.array([labelled.get(qid, "") for qid in qids], dtype=object)
    suggested = np.asarray(found.suggested, dtype=object)
    if plan is not None:
        design_strata = np.array([plan.stratum_of.get(qid, "unplanned") for qid in qids], object)
        design = f"sample plan: {plan.strata} strata, seed {plan.seed}"
    else:
        design_strata = strata
        design = f"no sample plan: labelled failures taken as a random sample within each {by}"
    weights = _design(np.asarray(design_strata, dtype=object), is_labelled)
    used = list(
        codes
        or sorted({str(c) for c in label[is_labelled].tolist()} | set(suggested.tolist()) - {""})
    )
    order = sorted(set(strata.tolist()))
    result = Estimates(
        run_id=found.run_id,
        by=by,
        annotator=annotator,
        level=level,
        n_failures=len(qids),
        n_labelled=int(is_labelled.sum()),
        design=design,
        overall_method="stratified",
        rule_agreement=(
            float((suggested[is_labelled] == label[is_labelled]).mean())
            if is_labelled.any()
            else None
        ),
        strata={
            h: {
                "n_failures": int((strata == h).sum()),
                "n_labelled": int(((strata == h) & is_labelled).sum()),
            }
            for h in order
        },
        codes=used,
        twin_runs=list(found.twin_runs),
    )
    stratified = all(result.strata[h]["n_labelled"] >= MIN_LABELS for h in order)
    if not stratified:
        result.overall_method = "pooled"
        result.notes.append(
            f"some {by} strata have fewer than {MIN_LABELS} labels: the overall estimate pools "
            f"all failures into one stratum, and those strata get no interval"
        )
    if plan is None:
        result.notes.append(
            "no sample plan: the labelled failures are assumed to be a random sample within "
            f"each {by}; `memscope open RUN --queue sample` makes that true"
        )
    for code in used:
        y_all = (label == code).astype(float)
        yhat_all = (suggested == code).astype(float)
        labels_parts: list[StratumPart] = []
        ppi_parts: list[StratumPart] = []
        for h in order:
            members = strata == h
            lab = members & is_labelled
            labels_est, ppi_est = _estimate_group(y_all, yhat_all, members, weights, level, pseudo)
            result.per_stratum.setdefault(h, {})[code] = GroupEstimate(
                labels_est,
                ppi_est,
                int(lab.sum()),
                int(members.sum()),
                int(y_all[lab].sum()),
            )
            if labels_est is not None and ppi_est is not None:
                labels_parts.append(StratumPart(labels_est, float(members.sum())))
                ppi_parts.append(StratumPart(ppi_est, float(members.sum())))
        overall_labels: MeanEstimate | None
        overall_ppi: MeanEstimate | None
        if stratified and order:
            overall_labels = combine_strata(labels_parts, level)
            overall_ppi = combine_strata(ppi_parts, level)
        else:
            overall_labels, overall_ppi = _estimate_group(
                y_all, yhat_all, np.ones(len(qids), dtype=bool), weights, level, pseudo
            )
        result.overall[code] = GroupEstimate(
            overall_labels,
            overall_ppi,
            int(is_labelled.sum()),
            len(qids),
            int(y_all[is_labelled].sum()),
        )
    return result


def estimate_run(
    store: Store,
    run_id: str,
    *,
    by: str | None = None,
    annotator: str | None = None,
    level: float = DEFAULT_LEVEL,
    twins: list[str] | None = None,
) -> Estimates:
    """Load the run's failures, labels (of ``annotator``, else the latest of anyone) and plan.

    The rule suggestions are those stored, with the twin runs pinned with them; ``twins``
    (``--twin``) recomputes them with other twin runs first (and pins those).

    Raises:
        InputError: an unknown ``by``, a level outside (0, 1), no failure or no label.
    """
    from memscope.taxonomy import load_taxonomy
    from memscope.usecases.labels.events import current_labels
    from memscope.usecases.labels.sample import failures, load_sample

    if not 0.0 < level < 1.0:
        raise InputError(f"--level must lie between 0 and 1, got {level}")
    found = failures(store, run_id, twins=twins)
    by = _checked_by(found, by)
    if not len(found):
        raise InputError(f"run {run_id} has no failing question", fix="Nothing to estimate.")
    labels = current_labels(store, run_id, annotator=annotator)
    fails = set(found.qids)
    labelled = {qid: label.primary or "" for qid, label in labels.items() if qid in fails}
    if not labelled:
        who = f" by {annotator}" if annotator else ""
        raise InputError(
            f"no failure of run {run_id} is labelled{who}",
            fix="Label some first: `memscope open RUN --queue sample`.",
        )
    plan = load_sample(store, run_id)
    if plan is not None and plan.run_hash != found.run_hash:
        plan = None
    taxonomy = load_taxonomy()
    present = {code for code in labelled.values() if code} | {s for s in found.suggested if s}
    codes = [code for code in taxonomy.names if code in present] + sorted(
        present - set(taxonomy.names)
    )
    result = compute_estimates(
        found, labelled, by=by, plan=plan, codes=codes, level=level, annotator=annotator
    )
    used = ", ".join(found.twin_runs) or "no twin run"
    result.notes[:0] = [*found.notes, f"the rule suggestions use {used} (`--twin` to change)"]
    return result
