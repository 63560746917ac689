"""Prediction-powered inference for a mean (PPI++, Angelopoulos, Duchi & Zrnic 2023).

A prevalence is the mean of a 0/1 label ``y``. People labelled ``n`` items; a rule
predicted ``yhat`` for them and for ``N`` items drawn from the same population (here: all
of a stratum's failures). The PPI++ estimate is

    theta = lam * mean_w(yhat_unlabelled) + mean_w(y - lam * yhat)

with the variance ``var(lam * yhat_unlabelled) / N + var(y - lam * yhat) / n`` and a normal
interval. ``lam = 0`` is the classical mean of the labels (the "labels only" estimator),
``lam = 1`` plain PPI, and ``lam = None`` the power-tuned value
``cov(y, yhat) / ((1 + n / N) var(yhat))`` clipped to [0, 1], the variance-minimising
choice: the interval is never much wider than the labels-only one and gets narrower the
better the rule agrees with people. Weights (``w``, e.g. ``1 / inclusion probability``)
are rescaled to average 1, as in the ``ppi-python`` reference implementation, which the
tests hold this module equal to.

That plug-in variance is optimistic for a rare 0/1 code: the rectifier rests on the few
labels where rule and person disagree (none at all in a small stratum, which gives an
interval of width 0). With ``pseudo > 0`` the variance, and only the variance, is taken
as if ``pseudo`` extra items of weight 1 sat in each of the four (label, rule) cells;
``agresti_pseudo`` (``z² / 4`` each) makes the labels-only variance Agresti & Coull's at
the shrunk share, over the real count. ``memscope estimate`` uses it; the coverage
benchmark (benchmarks/README.md) is where the choice was measured.

With design weights the labelled items fall into groups of equal weight (the sampling
strata a plan drew them from), and the weighted mean is a stratified mean,
``sum_g W_g mean_g(values)`` with ``W_g = n_g w_g / n``. Pseudo-items at 0/1 beside
weighted values on another scale (0 and 2.7, say) would pull the spread *down*; so the
adjusted variance is taken on the weighted scale: each group's own adjusted variance (its
values unweighted, its pseudo-items as above, its real count), combined as
``sum_g W_g² var_g``, and never below the plug-in one. One group (no weights, or equal
weights) is the unweighted adjustment exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

DEFAULT_LEVEL = 0.95


@dataclass(frozen=True)
class MeanEstimate:
    """A mean with its normal interval, the tuning weight used and the labels behind it."""

    estimate: float
    std_error: float
    ci_low: float
    ci_high: float
    lam: float
    n_labelled: int
    n_unlabelled: int

    @property
    def as_share(self) -> tuple[float, float, float]:
        """(estimate, low, high) clipped to [0, 1]: what is reported of a share (a normal
        interval, or a PPI++ estimate, can pass its bounds; a share cannot)."""
        return (
            _unit(self.estimate),
            _unit(self.ci_low),
            _unit(self.ci_high),
        )

    @property
    def effective_n(self) -> float | None:
        """Labels a simple random sample would need for the same variance: ``p(1-p)/se²``.

        None when the estimate sits on 0 or 1 or the standard error is 0 (undefined).
        """
        p = min(max(self.estimate, 0.0), 1.0)
        if self.std_error <= 0 or p in (0.0, 1.0):
            return None
        return p * (1.0 - p) / self.std_error**2


def _unit(value: float) -> float:
    return float(min(max(value, 0.0), 1.0))


def z_value(level: float = DEFAULT_LEVEL) -> float:
    """The two-sided normal quantile for a confidence level (1.96 for 0.95)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"a confidence level lies in (0, 1), got {level}")
    return NormalDist().inv_cdf(0.5 + level / 2.0)


def _weights(count: int, weights: np.ndarray | None) -> np.ndarray:
    """Weights rescaled to average 1 (all ones when None)."""
    if weights is None:
        return np.ones(count)
    weights = np.asarray(weights, dtype=float)
    if weights.shape != (count,):
        raise ValueError("one weight per item")
    total = weights.sum()
    if total <= 0:
        raise ValueError("weights must sum to a positive number")
    return weights / total * count


def agresti_pseudo(level: float = DEFAULT_LEVEL) -> float:
    """Pseudo-items per (label, rule) cell for the adjusted variance: ``z² / 4``.

    Four cells of ``z² / 4`` put ``z² / 2`` pseudo-successes and ``z² / 2`` pseudo-failures
    on the labels, Agresti & Coull's (1998) adjustment; on the rule's disagreements they
    put about one of each sign, near Bonett & Price's (2012) adjusted Wald interval for
    paired proportions (what the rectifier at ``lam = 1`` is).
    """
    return z_value(level) ** 2 / 4.0


def _check_binary(*arrays: np.ndarray) -> None:
    for values in arrays:
        if not np.isin(values, (0.0, 1.0)).all():
            raise ValueError("the adjusted variance needs 0/1 labels and predictions")


def _adjusted_variance(values: np.ndarray, pseudo_values: np.ndarray, pseudo: float) -> float:
    """The squared standard error of the mean of ``values``: the spread of ``values`` with
    ``pseudo`` copies of each of ``pseudo_values`` added (population form), over the real
    count. Dividing by the real count, not the augmented one, keeps it at least the
    plug-in variance for 0/1 labels (the shrunk share is nearer 1/2)."""
    count = values.size + pseudo * pseudo_values.size
    mean = (values.sum() + pseudo * pseudo_values.sum()) / count
    spread = ((values - mean) ** 2).sum() + pseudo * ((pseudo_values - mean) ** 2).sum()
    return float(spread / count / values.size)


def _weighted_adjusted_variance(
    values: np.ndarray, weights: np.ndarray, pseudo_values: np.ndarray, pseudo: float
) -> float:
    """The adjusted squared standard error of ``mean(weights * values)`` (weights averaging 1).

    Groups of equal weight are strata: ``sum_g W_g² adjusted_var_g`` with ``W_g`` the
    group's share ``n_g w_g / n`` and ``adjusted_var_g`` the unweighted adjustment of its
    values; at least the plug-in variance ``var(weights * values) / n``. One group is the
    unweighted adjustment, unchanged.
    """
    groups = np.unique(weights)
    if groups.size == 1:  # unweighted (or equal weights): the adjustment as it always was
        return _adjusted_variance(values, pseudo_values, pseudo)
    total = 0.0
    for weight in groups:
        members = weights == weight
        share = members.sum() * weight / values.size
        total += share**2 * _adjusted_variance(values[members], pseudo_values, pseudo)
    return max(float(total), float((weights * values).var() / values.size))


def tuned_lambda(
    y: np.ndarray,
    yhat: np.ndarray,
    yhat_unlabelled: np.ndarray,
    *,
    w: np.ndarray | None = None,
    w_unlabelled: np.ndarray | None = None,
) -> float:
    """PPI++'s variance-minimising ``lam``, clipped to [0, 1] (0 when the rule is constant)."""
    y, yhat, yhat_u = (np.asarray(a, dtype=float) for a in (y, yhat, yhat_unlabelled))
    n, big_n = y.size, yhat_u.size
    wl, wu = _weights(n, w), _weights(big_n, w_unlabelled)
    theta = (wu * yhat_u).mean() + (wl * (y - yhat)).mean()  # the lam = 1 estimate
    grads = wl * (y - theta)
    grads_hat = wl * (yhat - theta)
    grads_hat_u = wu * (yhat_u - theta)
    covariance = ((grads - grads.mean()) * (grads_hat - grads_hat.mean())).sum() / n
    pooled = np.concatenate([grads_hat, grads_hat_u])
    variance = pooled.var(ddof=1) if pooled.size > 1 else 0.0
    if variance <= 1e-15:  # a constant rule (up to rounding): nothing to tune
        return 0.0
    lam = covariance / ((1.0 + n / big_n) * variance)
    return float(np.clip(lam, 0.0, 1.0))


def ppi_mean(
    y: np.ndarray,
    yhat: np.ndarray,
    yhat_unlabelled: np.ndarray,
    *,
    lam: float | None = None,
    level: float = DEFAULT_LEVEL,
    w: np.ndarray | None = None,
    w_unlabelled: np.ndarray | None = None,
    pseudo: float = 0.0,
) -> MeanEstimate:
    """The PPI++ estimate of ``mean(y)`` with its normal interval (see the module docstring).

    Args:
        y: ``(n,)`` labels of the labelled items, ``n >= 1``.
        yhat: ``(n,)`` the rule's predictions for the same items.
        yhat_unlabelled: ``(N,)`` the rule's predictions for the other items, ``N >= 1``.
        lam: the tuning weight; None tunes it (PPI++), 0 gives the labels-only mean.
        level: confidence level of the interval.
        w, w_unlabelled: optional item weights.
        pseudo: 0 (the default) gives ppi-python's plug-in variance; above 0 (0/1 data
            only) the rectifier's variance is taken with ``pseudo`` pseudo-items of weight
            1 in each (label, rule) cell (``agresti_pseudo``), so that a stratum with few
            or no disagreements still gets an honest width. The estimate is unchanged.

    The interval is not clipped to [0, 1]; callers reporting a proportion do that.
    """
    y, yhat, yhat_u = (np.asarray(a, dtype=float) for a in (y, yhat, yhat_unlabelled))
    if y.size == 0 or yhat_u.size == 0:
        raise ValueError("PPI needs at least one labelled and one unlabelled item")
    if yhat.shape != y.shape:
        raise ValueError("one prediction per label")
    n, big_n = y.size, yhat_u.size
    wl, wu = _weights(n, w), _weights(big_n, w_unlabelled)
    if lam is None:
        lam = tuned_lambda(y, yhat, yhat_u, w=w, w_unlabelled=w_unlabelled)
    estimate = lam * (wu * yhat_u).mean() + (wl * (y - lam * yhat)).mean()
    imputed = (wu * lam * yhat_u).std() / np.sqrt(big_n)
    if pseudo > 0:
        _check_binary(y, yhat)
        cells = np.array([0.0, 1.0 - lam, 1.0, -lam])  # (y, yhat) = 00, 11, 10, 01
        rectifier_var = _weighted_adjusted_variance(y - lam * yhat, wl, cells, pseudo)
    else:
        rectifier_var = float((wl * (y - lam * yhat)).var() / n)
    std_error = float(np.sqrt(imputed**2 + rectifier_var))
    half = z_value(level) * std_error
    return MeanEstimate(
        estimate=float(estimate),
        std_error=std_error,
        ci_low=float(estimate - half),
        ci_high=float(estimate + half),
        lam=float(lam),
        n_labelled=n,
        n_unlabelled=big_n,
    )


def labels_only_mean(
    y: np.ndarray,
    *,
    level: float = DEFAULT_LEVEL,
    w: np.ndarray | None = None,
    pseudo: float = 0.0,
) -> MeanEstimate:
    """The (weighted) mean of the labels with its normal interval: PPI with ``lam = 0``.

    ``pseudo`` as in ``ppi_mean``: above 0 the variance is ``p~(1 - p~) / n`` at the
    share ``p~`` shrunk by ``2 * pseudo`` pseudo-counts on each side (Agresti-Coull's
    ``p~``, the real ``n``); the centre stays the mean.
    """
    y = np.asarray(y, dtype=float)
    if y.size == 0:
        raise ValueError("no labels")
    wl = _weights(y.size, w)
    estimate = float((wl * y).mean())
    if pseudo > 0:
        _check_binary(y)
        variance = _weighted_adjusted_variance(y, wl, np.array([0.0, 1.0, 1.0, 0.0]), pseudo)
    else:
        variance = float((wl * y).var() / y.size)
    std_error = float(np.sqrt(variance))
    half = z_value(level) * std_error
    return MeanEstimate(estimate, std_error, estimate - half, estimate + half, 0.0, y.size, 0)


@dataclass(frozen=True)
class StratumPart:
    """One stratum's estimate and its share ``weight = N_h / N`` of the population."""

    estimate: MeanEstimate
    weight: float


def combine_strata(parts: list[StratumPart], level: float = DEFAULT_LEVEL) -> MeanEstimate:
    """The stratified estimate ``sum_h W_h theta_h`` with ``var = sum_h W_h² var_h``.

    The strata are independent (each is estimated from its own items), so variances add.
    """
    if not parts:
        raise ValueError("no strata")
    total = sum(part.weight for part in parts)
    estimate = sum(part.weight / total * part.estimate.estimate for part in parts)
    variance = sum((part.weight / total * part.estimate.std_error) ** 2 for part in parts)
    std_error = float(np.sqrt(variance))
    half = z_value(level) * std_error
    lams = [part.estimate.lam for part in parts]
    return MeanEstimate(
        estimate=float(estimate),
        std_error=std_error,
        ci_low=float(estimate - half),
        ci_high=float(estimate + half),
        lam=float(np.mean(lams)),
        n_labelled=sum(part.estimate.n_labelled for part in parts),
        n_unlabelled=sum(part.estimate.n_unlabelled for part in parts),
    )
