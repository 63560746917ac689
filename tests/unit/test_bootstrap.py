"""Percentile bootstrap intervals: reproducible for a seed, paired, and the same bootstrap
whichever way the resamples are drawn."""

from __future__ import annotations

import numpy as np
import pytest

from memscope.analysis import bootstrap
from memscope.analysis.bootstrap import paired_delta, percentile_interval, resample_means


def binary(n: int, share: float, seed: int) -> np.ndarray:
    return (np.random.default_rng(seed).random(n) < share).astype(float)


def test_same_seed_same_interval() -> None:
    values = binary(400, 0.3, 1)
    first = percentile_interval(values, resamples=5000, seed=11)
    again = percentile_interval(values, resamples=5000, seed=11)
    other = percentile_interval(values, resamples=5000, seed=12)
    assert first == again
    assert (first.ci_low, first.ci_high) != (other.ci_low, other.ci_high)
    assert first.mean == pytest.approx(values.mean()) and first.n == 400


def test_interval_is_the_quantiles_of_the_resample_means() -> None:
    values = binary(250, 0.6, 2)
    means = resample_means(values, resamples=3000, seed=5)
    interval = percentile_interval(values, resamples=3000, seed=5, level=0.9)
    low, high = np.quantile(means, [0.05, 0.95])
    assert (interval.ci_low, interval.ci_high) == (pytest.approx(low), pytest.approx(high))


def test_count_draws_and_index_draws_are_the_same_bootstrap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Drawing how often each distinct value appears (multinomial) is the same bootstrap as
    # drawing question ids: the intervals agree up to Monte Carlo error.
    values = np.concatenate([np.ones(60), -np.ones(25), np.zeros(215)])
    by_counts = percentile_interval(values, resamples=20000, seed=3)
    monkeypatch.setattr(bootstrap, "MAX_CATEGORIES", 0)
    by_ids = percentile_interval(values, resamples=20000, seed=3)
    assert by_counts.mean == by_ids.mean
    assert by_counts.ci_low == pytest.approx(by_ids.ci_low, abs=0.006)
    assert by_counts.ci_high == pytest.approx(by_ids.ci_high, abs=0.006)
    # Analytic check: the sd of the mean is sqrt(var / n).
    sd = np.sqrt(values.var() / values.size)
    assert by_ids.ci_high - by_ids.ci_low == pytest.approx(2 * 1.96 * sd, rel=0.05)


def test_chunking_does_not_change_the_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    values = np.random.default_rng(4).random(97)  # all distinct: the index-matrix path
    monkeypatch.setattr(bootstrap, "MAX_CATEGORIES", 10)
    whole = resample_means(values, resamples=500, seed=9)
    monkeypatch.setattr(bootstrap, "CHUNK_ELEMENTS", 97 * 7)
    chunked = resample_means(values, resamples=500, seed=9)
    np.testing.assert_array_equal(whole, chunked)


def test_paired_delta_resamples_questions_once() -> None:
    before = binary(300, 0.4, 6)
    after = before.copy()
    flipped = np.flatnonzero(before == 0)[:30]
    after[flipped] = 1.0  # 30 questions fixed, none broken
    interval = paired_delta(before, after, resamples=4000, seed=1)
    assert interval.mean == pytest.approx(0.1)
    # Paired: every resample's delta is >= 0 (an unpaired bootstrap would cross zero).
    assert interval.ci_low > 0
    same = paired_delta(before, before, resamples=1000, seed=1)
    assert (same.mean, same.ci_low, same.ci_high) == (0.0, 0.0, 0.0)


def test_undefined_values_are_left_out() -> None:
    interval = percentile_interval(np.array([1.0, np.nan, 0.0, 1.0]), resamples=100, seed=1)
    assert interval.n == 3 and interval.mean == pytest.approx(2 / 3)
    empty = percentile_interval(np.array([np.nan]), resamples=100, seed=1)
    assert (empty.mean, empty.ci_low, empty.ci_high, empty.n) == (None, None, None, 0)
    constant = percentile_interval(np.full(10, 0.25), resamples=100, seed=1)
    assert (constant.ci_low, constant.ci_high) == (0.25, 0.25)
