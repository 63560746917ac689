"""An automatic grader checked against people's verdicts, and the accuracy it implies corrected.

A grader (an LLM judge, exact match, "F1 >= 0.5") says per question whether an answer is
right (1) or not (0); a person's verdict on a sample of the questions says the same with
authority. Here, all on 0/1 arrays:

- :func:`grader_agreement`: the grader against the verdicts on the questions both judged:
  the 2x2 table (rows: people, columns: grader), accuracy, sensitivity (the grader passes
  what people call correct), specificity (it fails what people call wrong), each with a
  Wilson score interval, and Cohen's kappa.
- :func:`accuracy_estimates`: the true accuracy of a set of questions three ways: the
  grader's mean over every question (no interval: it is what the tables print), the mean
  of the verdicts alone, and PPI++ (``analysis.ppi.ppi_mean``) with the verdicts as labels
  and the grader as the prediction on every question, ``lam`` tuned and clipped to [0, 1]
  as ``memscope estimate`` does. ``pseudo = 0`` gives ppi-python's plug-in variance
  (``ppi_mean_ci``); ``agresti_pseudo()`` the adjusted one ``estimate`` uses.
- :func:`krippendorff_alpha`: nominal Krippendorff's alpha for several raters (graders and
  people alike) with missing ratings, and :func:`pairwise_agreement` for each pair.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from memscope.analysis.agreement import kappa_from_matrix
from memscope.analysis.ppi import DEFAULT_LEVEL, MeanEstimate, labels_only_mean, ppi_mean, z_value


@dataclass(frozen=True)
class Rate:
    """A proportion ``hits / n`` with its Wilson score interval (None when ``n = 0``)."""

    hits: int
    n: int
    value: float | None
    low: float | None
    high: float | None

    def as_dict(self) -> dict[str, float | int | None]:
        """JSON-ready values."""
        return {
            "value": self.value,
            "low": self.low,
            "high": self.high,
            "hits": self.hits,
            "n": self.n,
        }


def wilson_rate(hits: int, n: int, level: float = DEFAULT_LEVEL) -> Rate:
    """``hits / n`` with Wilson's (1927) score interval, which stays inside [0, 1] and is
    honest at 0 and at n (where the normal interval has width 0)."""
    if n == 0:
        return Rate(hits, 0, None, None, None)
    if not 0 <= hits <= n:
        raise ValueError("hits lie between 0 and n")
    z = z_value(level)
    share = hits / n
    denominator = 1.0 + z * z / n
    centre = (share + z * z / (2 * n)) / denominator
    half = z * np.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / denominator
    return Rate(hits, n, share, float(max(0.0, centre - half)), float(min(1.0, centre + half)))


@dataclass(frozen=True)
class GraderAgreement:
    """The grader against people on the questions both judged (positive = correct)."""

    n: int
    both_correct: int
    people_correct_grader_wrong: int
    people_wrong_grader_correct: int
    both_wrong: int
    accuracy: Rate
    sensitivity: Rate
    specificity: Rate
    kappa: float | None

    def table(self) -> list[list[int]]:
        """The 2x2 counts: rows people (correct, wrong), columns grader (correct, wrong)."""
        return [
            [self.both_correct, self.people_correct_grader_wrong],
            [self.people_wrong_grader_correct, self.both_wrong],
        ]


def _binary(values: np.ndarray, what: str) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1 or not np.isin(array, (0.0, 1.0)).all():
        raise ValueError(f"{what} must be a 1-d array of 0/1")
    return array


def grader_agreement(
    verdicts: np.ndarray, grader: np.ndarray, level: float = DEFAULT_LEVEL
) -> GraderAgreement:
    """The grader's 0/1 outcomes against people's 0/1 verdicts, question by question."""
    people = _binary(verdicts, "verdicts")
    machine = _binary(grader, "grader outcomes")
    if people.shape != machine.shape:
        raise ValueError("one grader outcome per verdict")
    both_correct = int(((people == 1) & (machine == 1)).sum())
    missed = int(((people == 1) & (machine == 0)).sum())
    passed_wrong = int(((people == 0) & (machine == 1)).sum())
    both_wrong = int(((people == 0) & (machine == 0)).sum())
    n = people.size
    matrix = np.array([[both_correct, missed], [passed_wrong, both_wrong]])
    return GraderAgreement(
        n=n,
        both_correct=both_correct,
        people_correct_grader_wrong=missed,
        people_wrong_grader_correct=passed_wrong,
        both_wrong=both_wrong,
        accuracy=wilson_rate(both_correct + both_wrong, n, level),
        sensitivity=wilson_rate(both_correct, both_correct + missed, level),
        specificity=wilson_rate(both_wrong, both_wrong + passed_wrong, level),
        kappa=kappa_from_matrix(matrix).kappa,
    )


@dataclass(frozen=True)
class AccuracyEstimates:
    """One set of questions' accuracy: the grader's mean, verdicts only, PPI++ (None: no verdicts)."""

    n_questions: int
    n_verdicts: int
    grader_mean: float
    verdict_only: MeanEstimate | None
    ppi: MeanEstimate | None


def accuracy_estimates(
    grader_all: np.ndarray,
    verdicts: np.ndarray,
    grader_at_verdicts: np.ndarray,
    *,
    level: float = DEFAULT_LEVEL,
    pseudo: float = 0.0,
    weights: np.ndarray | None = None,
) -> AccuracyEstimates:
    """The accuracy of a set of questions from the grader on all of them and verdicts on some.

    Args:
        grader_all: ``(N,)`` the grader's 0/1 outcome on every question of the set.
        verdicts: ``(n,)`` people's 0/1 verdicts on the sampled questions (may be empty).
        grader_at_verdicts: ``(n,)`` the grader's outcome on the same questions.
        pseudo: 0 for the plug-in variance (ppi-python's), above 0 for the adjusted one.
        weights: optional ``(n,)`` design weights of the verdicts (1 / inclusion probability).
    """
    machine = _binary(grader_all, "grader outcomes")
    people = _binary(verdicts, "verdicts")
    machine_n = _binary(grader_at_verdicts, "grader outcomes")
    if machine.size == 0:
        raise ValueError("no questions")
    if people.shape != machine_n.shape:
        raise ValueError("one grader outcome per verdict")
    grader_mean = float(machine.mean())
    if people.size == 0:
        return AccuracyEstimates(machine.size, 0, grader_mean, None, None)
    verdict_only = labels_only_mean(people, level=level, w=weights, pseudo=pseudo)
    corrected = ppi_mean(people, machine_n, machine, level=level, w=weights, pseudo=pseudo)
    return AccuracyEstimates(machine.size, people.size, grader_mean, verdict_only, corrected)


def krippendorff_alpha(ratings: np.ndarray) -> float | None:
    """Nominal Krippendorff's alpha of a ``(raters, units)`` array, NaN where a rater is silent.

    Units with fewer than two ratings carry no pairs and are left out. None when fewer
    than two pairable ratings remain or every rating is the same value (no disagreement
    is possible, so alpha is undefined).
    """
    data = np.asarray(ratings, dtype=float)
    if data.ndim != 2:
        raise ValueError("ratings are a (raters, units) array")
    present = ~np.isnan(data)
    values = np.unique(data[present])
    if values.size == 0:
        return None
    index = {value: i for i, value in enumerate(values)}
    coincidence = np.zeros((values.size, values.size))
    for unit in range(data.shape[1]):
        found = data[present[:, unit], unit]
        m = found.size
        if m < 2:
            continue
        counts = np.zeros(values.size)
        for value in found:
            counts[index[value]] += 1
        # Every ordered pair of different raters' values in the unit, weighted 1 / (m - 1).
        coincidence += (np.outer(counts, counts) - np.diag(counts)) / (m - 1)
    totals = coincidence.sum(axis=1)
    pairable = totals.sum()
    if pairable <= 1:
        return None
    observed = pairable - np.trace(coincidence)
    expected = (pairable * pairable - (totals * totals).sum()) / (pairable - 1)
    if expected <= 0:
        return None
    return float(1.0 - observed / expected)


@dataclass(frozen=True)
class PairAgreement:
    """Two raters on the questions both rated: how many, the share agreeing, Cohen's kappa."""

    first: str
    second: str
    n: int
    agreement: float | None
    kappa: float | None


def pairwise_agreement(names: list[str], ratings: np.ndarray) -> list[PairAgreement]:
    """Every pair of raters (rows of a ``(raters, units)`` 0/1 array, NaN: not rated)."""
    data = np.asarray(ratings, dtype=float)
    if data.shape[0] != len(names):
        raise ValueError("one name per rater")
    pairs = []
    for first, second in combinations(range(len(names)), 2):
        both = ~np.isnan(data[first]) & ~np.isnan(data[second])
        a, b = data[first, both], data[second, both]
        n = int(both.sum())
        if n == 0:
            pairs.append(PairAgreement(names[first], names[second], 0, None, None))
            continue
        matrix = np.array(
            [
                [((a == 1) & (b == 1)).sum(), ((a == 1) & (b == 0)).sum()],
                [((a == 0) & (b == 1)).sum(), ((a == 0) & (b == 0)).sum()],
            ]
        )
        pairs.append(
            PairAgreement(
                names[first],
                names[second],
                n,
                float((a == b).mean()),
                kappa_from_matrix(matrix).kappa,
            )
        )
    return pairs
