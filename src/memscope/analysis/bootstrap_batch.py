"""Bootstrap intervals for many cells at once: ``table --ci`` over a sweep of runs.

A results table over a sweep asks for thousands of percentile intervals (every run × every
column, each resampled 10,000 times), and every one must stay exactly the number
``bootstrap.percentile_interval`` / ``bootstrap.resample_means`` gives that cell alone with
the same seed (published tables must not move). Two things are shared without moving one:

- A cell's resample means depend only on its values as a multiset
  (``bootstrap.drawn_means``: multinomial counts per distinct value), so cells with the same
  values and seed (a 0/1 metric over n questions has only n + 1 multisets) draw once.
- Every cell draws from a fresh generator of the same seed, so all of them start from the
  same stream of uniforms. Over two distinct values numpy's multinomial is one binomial per
  resample, drawn by inversion of one uniform while n · min(p, 1 - p) <= 30; that is
  reproduced here from the seed's uniforms, drawn once, with a ``searchsorted`` per cell
  instead of numpy's per-resample loop (:func:`binomial_by_inversion`).

What cannot be shared: one resampling matrix for all cells of a size (it would change every
interval: numpy's draws depend on each cell's value counts), and cells with more than two
distinct values (MemEye's rotation-averaged EM), whose multinomial steps through several
binomials per resample; those take numpy's own call (``build.py`` spreads rows over threads).
The tests compare every path with numpy's own draw, bit for bit.
"""

from __future__ import annotations

import math

import numpy as np

from memscope.analysis.bootstrap import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    MAX_CATEGORIES,
    drawn_means,
)

MAX_KEPT_DRAWS = 512
"""Resample-mean vectors kept for reuse (10,000 floats each: at most about 40 MB)."""


class SharedResamples:
    """``resample_means`` and percentile bounds for many cells, each distinct multiset of
    values (with its seed) drawn once.

    One instance serves one table: it keeps what it drew until it is dropped.
    """

    def __init__(self, *, resamples: int = DEFAULT_RESAMPLES, level: float = DEFAULT_LEVEL):
        self.resamples = resamples
        self.level = level
        self._means: dict[tuple[object, ...], np.ndarray] = {}
        self._bounds: dict[tuple[object, ...], tuple[float, float]] = {}
        self._uniforms: dict[int, np.ndarray] = {}
        self.drawn = 0
        """How many draws were made (the rest were shared): for tests and profiles."""
        self.shared_draws = 0
        """How many of them were made from a seed's shared uniforms."""

    def means(self, values: np.ndarray, *, seed: int) -> np.ndarray:
        """``bootstrap.resample_means(values, resamples=self.resamples, seed=seed)``, read-only.

        Args:
            values: ``(n,)`` finite values, ``n >= 1``.
        """
        values = np.asarray(values, dtype=float)
        key, distinct, counts = self._key(values, seed)
        kept = self._means.get(key)
        if kept is not None:
            return kept
        drawn = self._draw(values, distinct, counts, seed)
        drawn.flags.writeable = False
        if len(self._means) < MAX_KEPT_DRAWS:
            self._means[key] = drawn
        return drawn

    def bounds(self, values: np.ndarray, *, seed: int) -> tuple[float | None, float | None]:
        """The ``(ci_low, ci_high)`` of ``bootstrap.percentile_interval(values, ...)``:
        over the defined (non-NaN) values, ``(None, None)`` when there are none."""
        values = np.asarray(values, dtype=float)
        defined = values[~np.isnan(values)]
        if defined.size == 0:
            return None, None
        key, distinct, counts = self._key(defined, seed)
        kept = self._bounds.get(key)
        if kept is None:
            drawn = self._means.get(key)
            if drawn is None:
                drawn = self._draw(defined, distinct, counts, seed)
            tail = (1.0 - self.level) / 2.0
            low, high = np.quantile(drawn, [tail, 1.0 - tail])
            kept = self._bounds[key] = (float(low), float(high))
        return kept

    def _draw(
        self, values: np.ndarray, distinct: np.ndarray, counts: np.ndarray, seed: int
    ) -> np.ndarray:
        """``drawn_means``: two distinct values from the seed's shared uniforms where that
        reproduces numpy's draw exactly, otherwise numpy's own call."""
        self.drawn += 1
        n = values.size
        if distinct.size == 2:
            uniforms = self._uniforms.get(seed)
            if uniforms is None:
                uniforms = self._uniforms[seed] = np.random.default_rng(seed).random(self.resamples)
            first = binomial_by_inversion(n, counts[0] / n, uniforms)
            if first is not None:
                draws = np.empty((self.resamples, 2), dtype=np.int64)
                draws[:, 0] = first
                draws[:, 1] = n - first
                self.shared_draws += 1
                return (draws @ distinct) / n  # as drawn_means computes it
        return drawn_means(values, distinct, counts, resamples=self.resamples, seed=seed)

    def _key(
        self, values: np.ndarray, seed: int
    ) -> tuple[tuple[object, ...], np.ndarray, np.ndarray]:
        distinct, counts = np.unique(values, return_counts=True)
        if distinct.size <= MAX_CATEGORIES:  # the draw depends on the multiset only
            key: tuple[object, ...] = (seed, distinct.tobytes(), counts.tobytes())
        else:  # index resampling: the order of the values matters too
            key = (seed, values.tobytes())
        return key, distinct, counts


INVERSION_LIMIT = 30.0
"""numpy draws a binomial by inversion where n · min(p, 1 - p) is at most this (else BTPE,
which uses a varying number of uniforms per draw and is left to numpy)."""
NEAR = 1e-12
"""Uniforms this close to a threshold are stepped through one by one (the thresholds are
sums of up to ~90 probabilities, each subtraction off by at most half an ulp)."""


def binomial_by_inversion(n: int, p: float, uniforms: np.ndarray) -> np.ndarray | None:
    """The first column of ``rng.multinomial(n, [p, 1 - p], size=len(uniforms))`` for the
    generator whose ``rng.random(len(uniforms))`` is ``uniforms``, or None where it cannot
    be had from them alone (numpy would use BTPE, or a draw would restart).

    numpy's multinomial over two values is one binomial per resample; for
    ``n · min(p, 1 - p) <= 30`` that binomial is drawn by inversion: one uniform U, from
    which the probabilities of 0, 1, 2, … successes are subtracted in turn until U is no
    larger than the next one (more than ``bound`` successes: start over with a new uniform).
    The count is monotone in U, so it is the number of cumulative thresholds below U
    (``searchsorted``); uniforms within :data:`NEAR` of a threshold are stepped through
    exactly as numpy does, so rounding can never tell the two apart.
    """
    if n <= 0 or p <= 0.0:
        return None
    flipped = p > 0.5
    small = 1.0 - p if flipped else p  # numpy: q = 1.0 - p, then inversion over q
    if small * n > INVERSION_LIMIT:
        return None
    q = 1.0 - small
    qn = math.exp(n * math.log(q))
    mean = n * small
    bound = int(min(float(n), mean + 10.0 * math.sqrt(mean * q + 1)))
    steps = [qn]  # the probability of 0, 1, … bound successes, as numpy updates it
    for x in range(1, bound + 1):
        steps.append(((n - x + 1) * small * steps[-1]) / (x * q))
    thresholds = np.cumsum(steps)
    successes = np.searchsorted(thresholds, uniforms, side="left")
    if successes.max(initial=0) > bound:
        return None  # a restart draws a second uniform: numpy's stream moves on
    above = np.abs(uniforms - thresholds[np.minimum(successes, bound)])
    below = np.where(
        successes > 0, np.abs(uniforms - thresholds[np.maximum(successes - 1, 0)]), np.inf
    )
    for at in np.flatnonzero((above <= NEAR) | (below <= NEAR)):
        exact = _inversion_step_by_step(float(uniforms[at]), steps, bound)
        if exact is None:
            return None
        successes[at] = exact
    return n - successes if flipped else successes


def _inversion_step_by_step(uniform: float, steps: list[float], bound: int) -> int | None:
    """numpy's inversion loop for one uniform; None where it would draw another."""
    successes = 0
    while uniform > steps[successes]:
        successes += 1
        if successes > bound:
            return None
        uniform -= steps[successes - 1]
    return successes
