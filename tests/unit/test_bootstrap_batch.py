"""Bootstrap intervals for many cells at once (``analysis/bootstrap_batch.py``): every
number is the one ``bootstrap.percentile_interval`` / ``resample_means`` gives cell by
cell with the same seed, bit for bit, while cells that share their values draw once."""

from __future__ import annotations

import numpy as np
import pytest

from memscope.analysis.bootstrap import percentile_interval, resample_means
from memscope.analysis.bootstrap_batch import SharedResamples, binomial_by_inversion

SEED = 20260430


def binary(n: int, right: int, rng: np.random.Generator) -> np.ndarray:
    values = np.array([1.0] * right + [0.0] * (n - right))
    rng.shuffle(values)
    return values


def test_binary_cells_match_numpy_bit_for_bit() -> None:
    rng = np.random.default_rng(1)
    shared = SharedResamples(resamples=2_000)
    cells = [
        binary(n, right, rng)
        for n in (1, 2, 3, 7, 23, 46, 61, 120, 368)
        for right in sorted({0, 1, n // 3, n // 2, n - 1, n})
    ]
    for values in cells:
        for seed in (SEED, SEED + 3):
            alone = percentile_interval(values, resamples=2_000, seed=seed)
            assert shared.bounds(values, seed=seed) == (alone.ci_low, alone.ci_high)
            np.testing.assert_array_equal(
                shared.means(values, seed=seed), resample_means(values, resamples=2_000, seed=seed)
            )
    # Most two-valued cells came from the shared uniforms, not numpy's own draw.
    assert shared.shared_draws > shared.drawn // 2


@pytest.mark.parametrize("n", [5, 46, 300])
def test_many_valued_and_nan_cells_match_numpy(n: int) -> None:
    rng = np.random.default_rng(n)
    shared = SharedResamples(resamples=1_000)
    rotations = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], size=n)
    continuous = rng.random(n)  # beyond 256 distinct values at n=300: index resampling
    with_nan = np.where(rng.random(n) < 0.2, np.nan, rotations)
    signed_zero = np.where(rotations == 0.0, -0.0, rotations)
    for values in (rotations, continuous, with_nan, signed_zero):
        alone = percentile_interval(values, resamples=1_000, seed=SEED)
        assert shared.bounds(values, seed=SEED) == (alone.ci_low, alone.ci_high)
    assert shared.bounds(np.array([np.nan, np.nan]), seed=SEED) == (None, None)


def test_cells_with_the_same_values_draw_once() -> None:
    shared = SharedResamples(resamples=500)
    values = np.array([0.0, 1.0, 1.0, 0.5, 1.0])
    first = shared.bounds(values, seed=SEED)
    assert shared.bounds(values[::-1].copy(), seed=SEED) == first  # same multiset
    assert shared.drawn == 1
    shared.bounds(values, seed=SEED + 1)  # another seed is another draw
    assert shared.drawn == 2
    means = shared.means(values, seed=SEED)
    assert not means.flags.writeable  # shared between cells: nobody may change it


def test_inversion_only_where_numpy_inverts() -> None:
    uniforms = np.random.default_rng(SEED).random(100)
    assert binomial_by_inversion(368, 0.5, uniforms) is None  # numpy uses BTPE there
    assert binomial_by_inversion(0, 0.5, uniforms) is None
    drawn = binomial_by_inversion(46, 0.75, uniforms)
    expected = np.random.default_rng(SEED).multinomial(46, [0.75, 0.25], size=100)[:, 0]
    assert drawn is not None
    np.testing.assert_array_equal(drawn, expected)
