"""The grader-audit statistics held equal to the references: ppi-python, scikit-learn, krippendorff."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from memscope.analysis.grader_audit import (
    accuracy_estimates,
    grader_agreement,
    krippendorff_alpha,
    pairwise_agreement,
    wilson_rate,
)
from memscope.analysis.ppi import agresti_pseudo
from reference import cohen_kappa_score, ppi

pytestmark = pytest.mark.reference  # tests/reference.py


def _run(seed: int, n_questions: int = 300, n_verdicts: int = 40, accuracy: float = 0.85):
    rng = np.random.default_rng(seed)
    truth = (rng.random(n_questions) < 0.6).astype(float)
    grader = np.where(rng.random(n_questions) < accuracy, truth, 1 - truth)
    sampled = rng.choice(n_questions, n_verdicts, replace=False)
    return grader, truth[sampled], grader[sampled]


def test_wilson_interval_known_values() -> None:
    # Wilson's interval for 8 of 10 at 95 %: (0.4902, 0.9433) (Newcombe 1998, table I).
    rate = wilson_rate(8, 10)
    assert rate.value == pytest.approx(0.8)
    assert rate.low == pytest.approx(0.4902, abs=1e-4)
    assert rate.high == pytest.approx(0.9433, abs=1e-4)
    zero = wilson_rate(0, 10)
    assert zero.low == pytest.approx(0.0, abs=1e-12) and zero.high == pytest.approx(
        0.2775, abs=1e-4
    )
    assert wilson_rate(0, 0).value is None


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_agreement_table_rates_and_kappa_match_scikit_learn(seed: int) -> None:
    _, verdicts, grader = _run(seed)
    found = grader_agreement(verdicts, grader)
    assert found.n == verdicts.size
    assert sum(map(sum, found.table())) == verdicts.size
    assert found.accuracy.value == pytest.approx(float((verdicts == grader).mean()))
    positives = verdicts == 1
    assert found.sensitivity.value == pytest.approx(float(grader[positives].mean()))
    assert found.specificity.value == pytest.approx(float(1 - grader[~positives].mean()))
    assert found.kappa == pytest.approx(cohen_kappa_score(verdicts, grader), abs=1e-12)


def test_agreement_counts_each_cell() -> None:
    verdicts = np.array([1, 1, 1, 0, 0, 1])
    grader = np.array([1, 0, 1, 1, 0, 1])
    found = grader_agreement(verdicts, grader)
    assert found.table() == [[3, 1], [1, 1]]
    assert (found.sensitivity.hits, found.sensitivity.n) == (3, 4)
    assert (found.specificity.hits, found.specificity.n) == (1, 2)
    assert found.kappa == pytest.approx(0.25)  # docs/metrics.md §13's worked example


@pytest.mark.parametrize("seed", [0, 1, 2, 5])
def test_plugin_ppi_equals_ppi_mean_ci(seed: int) -> None:
    grader_all, verdicts, grader = _run(seed)
    found = accuracy_estimates(grader_all, verdicts, grader, pseudo=0.0)
    assert found.ppi is not None and found.verdict_only is not None
    low, high = ppi().ppi_mean_ci(verdicts, grader, grader_all, alpha=0.05)
    point = ppi().ppi_mean_pointestimate(verdicts, grader, grader_all)
    assert found.ppi.estimate == pytest.approx(float(np.ravel(point)[0]), abs=1e-12)
    assert found.ppi.ci_low == pytest.approx(float(np.ravel(low)[0]), abs=1e-12)
    assert found.ppi.ci_high == pytest.approx(float(np.ravel(high)[0]), abs=1e-12)
    assert 0.0 <= found.ppi.lam <= 1.0
    # lam = 0 in ppi-python is the verdict-only (classical) interval
    low0, high0 = ppi().ppi_mean_ci(verdicts, grader, grader_all, alpha=0.05, lam=0)
    assert found.verdict_only.ci_low == pytest.approx(float(np.ravel(low0)[0]), abs=1e-12)
    assert found.verdict_only.ci_high == pytest.approx(float(np.ravel(high0)[0]), abs=1e-12)
    assert found.grader_mean == pytest.approx(float(grader_all.mean()))


def test_a_share_is_reported_within_its_bounds() -> None:
    """9 of 10 verdicts correct: the normal interval (ppi-python's, lam = 0) passes 1, and
    what is reported of it stops there; the estimate and the low end are kept."""
    verdicts = np.array([1.0] * 9 + [0.0])
    grader = verdicts.copy()
    grader_all = np.concatenate([grader, np.ones(20)])
    found = accuracy_estimates(grader_all, verdicts, grader, pseudo=0.0)
    assert found.verdict_only is not None
    low, high = ppi().ppi_mean_ci(verdicts, grader, grader_all, alpha=0.05, lam=0)
    assert float(np.ravel(high)[0]) > 1.0  # the case this test is about
    estimate, shown_low, shown_high = found.verdict_only.as_share
    assert estimate == pytest.approx(0.9)
    assert shown_low == pytest.approx(float(np.ravel(low)[0]), abs=1e-12)
    assert shown_high == 1.0
    assert found.verdict_only.ci_high == pytest.approx(float(np.ravel(high)[0]), abs=1e-12)


def test_adjusted_variance_is_not_narrower_and_keeps_the_centre() -> None:
    grader_all, verdicts, grader = _run(7, n_verdicts=25, accuracy=1.0)
    plugin = accuracy_estimates(grader_all, verdicts, grader)
    adjusted = accuracy_estimates(grader_all, verdicts, grader, pseudo=agresti_pseudo())
    assert plugin.ppi is not None and adjusted.ppi is not None
    assert adjusted.ppi.estimate == pytest.approx(plugin.ppi.estimate)
    # a grader that agrees everywhere gives the plug-in rectifier variance 0
    assert adjusted.ppi.std_error > plugin.ppi.std_error


def test_no_verdicts_gives_only_the_grader_mean() -> None:
    found = accuracy_estimates(np.array([1.0, 0.0, 1.0]), np.array([]), np.array([]))
    assert found.n_verdicts == 0 and found.verdict_only is None and found.ppi is None
    assert found.grader_mean == pytest.approx(2 / 3)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_krippendorff_alpha_matches_the_package(seed: int) -> None:
    rng = np.random.default_rng(seed)
    truth = (rng.random(60) < 0.5).astype(float)
    raters = np.vstack([np.where(rng.random(60) < p, truth, 1 - truth) for p in (0.9, 0.8, 0.7)])
    raters[rng.random(raters.shape) < 0.25] = np.nan  # a person rates only some questions
    mine = krippendorff_alpha(raters)
    reference = krippendorff.alpha(reliability_data=raters, level_of_measurement="nominal")
    assert mine == pytest.approx(reference, abs=1e-12)


def test_krippendorff_alpha_undefined_without_variation() -> None:
    assert krippendorff_alpha(np.ones((3, 5))) is None
    assert krippendorff_alpha(np.full((2, 3), np.nan)) is None


def test_pairwise_agreement_on_shared_questions() -> None:
    ratings = np.array([[1, 0, 1, np.nan], [1, 1, 1, 0], [np.nan, np.nan, np.nan, np.nan]])
    pairs = pairwise_agreement(["judge", "f1", "ann"], ratings)
    first = pairs[0]
    assert (first.first, first.second, first.n) == ("judge", "f1", 3)
    assert first.agreement == pytest.approx(2 / 3)
    assert first.kappa == pytest.approx(cohen_kappa_score([1, 0, 1], [1, 1, 1]), abs=1e-12)
    assert pairs[1].n == 0 and pairs[1].kappa is None
