"""PPI++ mean estimation held equal to the reference implementation (ppi-python) on fixed data."""

from __future__ import annotations

import numpy as np
import pytest

from memscope.analysis.ppi import (
    StratumPart,
    agresti_pseudo,
    combine_strata,
    labels_only_mean,
    ppi_mean,
    z_value,
)
from reference import ppi

pytestmark = pytest.mark.reference  # tests/reference.py


def _data(seed: int, n: int = 40, big_n: int = 300, accuracy: float = 0.8):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(float)
    yhat = np.where(rng.random(n) < accuracy, y, 1 - y)
    truth_u = (rng.random(big_n) < 0.35).astype(float)
    yhat_u = np.where(rng.random(big_n) < accuracy, truth_u, 1 - truth_u)
    weights = rng.random(n) + 0.5
    return y, yhat, yhat_u, weights


@pytest.mark.parametrize("lam", [None, 0.0, 1.0, 0.4])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_ppi_python(lam: float | None, weighted: bool, seed: int) -> None:
    y, yhat, yhat_u, weights = _data(seed)
    w = weights if weighted else None
    mine = ppi_mean(y, yhat, yhat_u, lam=lam, w=w, level=0.95)
    low, high = ppi().ppi_mean_ci(y, yhat, yhat_u, alpha=0.05, lam=lam, w=w)
    point = ppi().ppi_mean_pointestimate(y, yhat, yhat_u, lam=lam, w=w)
    assert mine.estimate == pytest.approx(float(np.ravel(point)[0]), abs=1e-12)
    assert mine.ci_low == pytest.approx(float(np.ravel(low)[0]), abs=1e-12)
    assert mine.ci_high == pytest.approx(float(np.ravel(high)[0]), abs=1e-12)


def test_labels_only_is_the_classical_interval() -> None:
    y = np.array([1, 0, 0, 1, 1, 0, 0, 0, 1, 0], dtype=float)
    found = labels_only_mean(y)
    assert found.estimate == pytest.approx(0.4)
    assert found.std_error == pytest.approx(np.sqrt(0.4 * 0.6 / 10))
    assert found.ci_high - found.estimate == pytest.approx(1.959964 * found.std_error, rel=1e-6)
    assert z_value(0.9) == pytest.approx(1.644854, rel=1e-6)


def test_accurate_rules_narrow_the_interval_and_useless_rules_do_not_hurt() -> None:
    y, _, _, _ = _data(3, n=60)
    rng = np.random.default_rng(9)
    truth_u = (rng.random(2000) < y.mean()).astype(float)
    perfect = ppi_mean(y, y.copy(), truth_u)
    classical = labels_only_mean(y)
    assert perfect.std_error < 0.5 * classical.std_error
    constant = ppi_mean(y, np.zeros_like(y), np.zeros(2000))
    assert constant.lam == 0.0 and constant.std_error == pytest.approx(classical.std_error)


def test_combine_strata_weights_by_stratum_size() -> None:
    a = labels_only_mean(np.array([1, 1, 0, 0], dtype=float))  # 0.5
    b = labels_only_mean(np.array([1, 0, 0, 0], dtype=float))  # 0.25
    both = combine_strata([StratumPart(a, 30), StratumPart(b, 10)])
    assert both.estimate == pytest.approx(0.75 * 0.5 + 0.25 * 0.25)
    assert both.std_error == pytest.approx(
        np.sqrt((0.75 * a.std_error) ** 2 + (0.25 * b.std_error) ** 2)
    )
    assert both.n_labelled == 8


def test_adjusted_variance_gives_a_stratum_without_disagreements_a_width() -> None:
    # Eight labels, none with the code, and the rule agrees on all: the plug-in
    # variance is 0 ([0, 0]); the adjusted one is not, the estimate unchanged.
    y, yhat, yhat_u = np.zeros(8), np.zeros(8), np.zeros(100)
    plain = ppi_mean(y, yhat, yhat_u)
    adjusted = ppi_mean(y, yhat, yhat_u, pseudo=agresti_pseudo())
    assert plain.std_error == 0.0
    assert adjusted.estimate == plain.estimate == 0.0
    assert adjusted.ci_high > 0.05
    # All labels agree with a rule that sees the code on half of them.
    y = yhat = np.array([1, 0] * 4, dtype=float)
    agreed = ppi_mean(y, yhat, np.array([1, 0] * 50, dtype=float), lam=1.0, pseudo=1.0)
    assert ppi_mean(y, yhat, np.array([1, 0] * 50, dtype=float), lam=1.0).std_error < (
        agreed.std_error
    )


def test_adjusted_labels_only_variance_is_agresti_coull_at_the_shrunk_share() -> None:
    y = np.array([1, 0, 0, 0, 0, 0, 0, 0, 0, 0], dtype=float)
    z2 = z_value(0.95) ** 2
    found = labels_only_mean(y, pseudo=agresti_pseudo(0.95))
    shrunk = (1 + z2 / 2) / (10 + z2)
    assert found.estimate == pytest.approx(0.1)  # the centre stays the mean
    assert found.std_error == pytest.approx(np.sqrt(shrunk * (1 - shrunk) / 10))
    assert found.std_error > labels_only_mean(y).std_error
    # lam = 0 is labels only, with the adjustment too (weighted as well).
    weights = np.linspace(0.5, 2.0, 10)
    as_ppi = ppi_mean(y, np.ones(10), np.ones(40), lam=0.0, w=weights, pseudo=1.0)
    direct = labels_only_mean(y, w=weights, pseudo=1.0)
    assert as_ppi.estimate == pytest.approx(direct.estimate)
    assert as_ppi.std_error == pytest.approx(direct.std_error)


@pytest.mark.parametrize("seed", [0, 1])
def test_adjusted_variance_vanishes_with_many_labels(seed: int) -> None:
    y, yhat, yhat_u, _ = _data(seed, n=4000, big_n=8000)
    plain = ppi_mean(y, yhat, yhat_u)
    adjusted = ppi_mean(y, yhat, yhat_u, pseudo=agresti_pseudo())
    assert adjusted.lam == plain.lam and adjusted.estimate == plain.estimate
    assert plain.std_error < adjusted.std_error < 1.002 * plain.std_error


def test_adjusted_variance_needs_binary_data() -> None:
    with pytest.raises(ValueError, match="0/1"):
        ppi_mean(np.array([0.5, 1.0]), np.array([1.0, 0.0]), np.ones(5), pseudo=1.0)
    with pytest.raises(ValueError, match="0/1"):
        labels_only_mean(np.array([2.0, 0.0]), pseudo=1.0)


def test_adjusted_variance_with_design_weights_is_on_the_weighted_scale() -> None:
    """Two plan strata in one estimate stratum (issue 28): 900 failures with 10 labels and
    100 with 20. The adjusted variance is the stratified one, each plan stratum adjusted at
    its own count, and never below the plug-in variance (the old one fell below it)."""
    from memscope.analysis.ppi import _adjusted_variance

    y = np.array([1, 0, 0, 0, 0, 0, 0, 0, 0, 0] + [1, 1, 0, 0] + [0] * 16, dtype=float)
    weights = np.array([900 / 10] * 10 + [100 / 20] * 20)
    pseudo = agresti_pseudo()
    adjusted = labels_only_mean(y, w=weights, pseudo=pseudo)
    plug_in = labels_only_mean(y, w=weights)
    assert adjusted.estimate == pytest.approx(plug_in.estimate)
    assert adjusted.estimate == pytest.approx(0.9 * 0.1 + 0.1 * 0.1)
    cells = np.array([0.0, 1.0, 1.0, 0.0])
    stratified = 0.9**2 * _adjusted_variance(y[:10], cells, pseudo) + 0.1**2 * _adjusted_variance(
        y[10:], cells, pseudo
    )
    assert adjusted.std_error**2 == pytest.approx(max(stratified, plug_in.std_error**2))
    assert adjusted.std_error >= plug_in.std_error
    # PPI++ takes its rectifier the same way
    yhat = y.copy()
    yhat[0] = 0.0
    found = ppi_mean(y, yhat, np.zeros(970), w=weights, pseudo=pseudo)
    assert found.std_error >= ppi_mean(y, yhat, np.zeros(970), w=weights).std_error


def test_equal_weights_keep_the_unweighted_adjustment() -> None:
    y = np.array([1, 0, 0, 1, 0, 0, 0, 1, 0, 0], dtype=float)
    pseudo = agresti_pseudo()
    assert labels_only_mean(y, w=np.full(10, 7.0), pseudo=pseudo) == labels_only_mean(
        y, pseudo=pseudo
    )
