"""A whole run re-ranked (``memscope rerun`` without ``--question``, the app's run-level numbers).

:func:`rerun_run` re-ranks every latest-state question of a run (the benchmark's declared
``latest_state``: MemEye's Y3, a knowledge update) for several alphas at once, a chunk of
questions at a time, and reports the temporal metrics with paired bootstrap deltas against
alpha = 1.0 (the original order).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memscope.analysis.arrays import PAD
from memscope.analysis.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, paired_delta
from memscope.analysis.evidence import (
    EvidenceSet,
    latest_clue,
    latest_miss_causes,
    temporal_authority,
)
from memscope.analysis.rerank import DEFAULT_LAMBDA, recency_order
from memscope.errors import InputError
from memscope.usecases.rerun.checks import check_params, require_ranked
from memscope.usecases.rerun.pool import BASELINE_ALPHA, TEMPORAL, pool_of, rows_of
from memscope.usecases.runs.compact_evidence import origin_flags
from memscope.usecases.runs.declared import latest_label_of
from memscope.usecases.runs.ingest import effective_k
from memscope.usecases.runs.loading import RunData


def _alpha_list(alphas: list[float]) -> list[float]:
    ordered = [BASELINE_ALPHA]
    for alpha in alphas:
        if float(alpha) not in ordered:
            ordered.append(float(alpha))
    return ordered


CHUNK_QUESTIONS = 8_192
"""Questions :func:`rerun_run` re-ranks at a time: its per-candidate arrays (pools, ages,
orders) stay this many rows high whatever the run's size; only the per-question metric
vectors, which the bootstrap needs, are kept whole."""


@dataclass(frozen=True)
class _ChunkPool:
    """The measured questions (latest-state, with a gold clue) of one chunk of a run, pool cut."""

    evidence: EvidenceSet
    sims: np.ndarray
    ages: np.ndarray
    valid: np.ndarray
    recomputed: np.ndarray


def _chunk_pools(data: RunData, pool: int | None, chunk: int) -> Iterator[_ChunkPool]:
    """The run's measured questions, ``chunk`` rows of the run at a time, in row order.

    Every step is row by row (pool cut, ages, validity), so the chunks' rows are exactly
    those of the whole run computed at once; positions are widened to int64 first (a
    compact read keeps them narrower).
    """
    evidence = data.evidence
    n, width = evidence.ranked_pos.shape
    for start in range(0, n, max(1, chunk)):
        rows = slice(start, min(n, start + max(1, chunk)))
        part = _as_int64(rows_of(evidence, rows))
        flags = (
            data.recomputed[rows]
            if data.recomputed is not None
            else origin_flags(data.evidence_table.slice(start, rows.stop - start), width)
        )
        histories = None if data.histories is None else data.histories.rows(rows)
        whole = pool_of(part, data.scores[rows], flags, data.n_rounds, pool, histories)
        measured = np.flatnonzero(part.asks_latest & (latest_clue(part) != PAD))
        yield _ChunkPool(
            rows_of(whole.evidence, measured),
            whole.sims[measured],
            whole.ages[measured],
            whole.valid[measured],
            whole.recomputed[measured],
        )


def _as_int64(ev: EvidenceSet) -> EvidenceSet:
    """``ev`` with int64 positions and sessions (no copy where they already are)."""
    return EvidenceSet(
        ranked_pos=ev.ranked_pos.astype(np.int64, copy=False),
        ranked_session=ev.ranked_session.astype(np.int64, copy=False),
        gold_pos=ev.gold_pos.astype(np.int64, copy=False),
        source_sessions=ev.source_sessions.astype(np.int64, copy=False),
        has_ranking=ev.has_ranking,
        asks_latest=ev.asks_latest,
    )


@dataclass
class _MetricParts:
    """One metric's per-question values over a run, chunk by chunk: as int8 codes (-1 for
    NaN) where every value is 0, 1 or NaN, as the temporal metrics are, else as they are;
    a whole run's float64 vector is built only while it is used (:meth:`vector`)."""

    parts: list[np.ndarray] = field(default_factory=list)

    def add(self, values: np.ndarray) -> None:
        missing = np.isnan(values)
        if (missing | (values == 0.0) | (values == 1.0)).all():
            self.parts.append(np.where(missing, -1, values).astype(np.int8))
        else:
            self.parts.append(values)

    def vector(self) -> np.ndarray:
        """The values of every question, in row order, as float64 (NaN: undefined)."""
        out = np.empty(sum(len(part) for part in self.parts))
        start = 0
        for part in self.parts:
            stop = start + len(part)
            out[start:stop] = np.where(part == -1, np.nan, part) if part.dtype == np.int8 else part
            start = stop
        return out


@dataclass
class _AlphaPass:
    """One alpha's per-question temporal metrics over the run and its miss causes."""

    values: dict[str, _MetricParts] = field(
        default_factory=lambda: {name: _MetricParts() for name in TEMPORAL}
    )
    causes: dict[str, int] = field(default_factory=lambda: {"not_in_pool": 0, "in_pool_below_k": 0})

    def add(self, ev: EvidenceSet, k: int) -> None:
        """Measure one chunk's questions in the order ``ev`` holds them."""
        for name, values in temporal_authority(ev, k).items():
            self.values[name].add(values)
        for name, count in latest_miss_causes(ev, k).items():
            self.causes[name] += count


def _joined(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate(parts) if parts else np.empty(0, dtype=dtype)


def _entry(
    alpha: float, base: _AlphaPass, measured: _AlphaPass, *, resamples: int, seed: int
) -> dict[str, Any]:
    """One alpha's result: the mean metrics, miss causes and paired deltas against 1.0,
    one metric's whole-run vectors at a time."""
    means: dict[str, float | None] = {}
    delta: dict[str, dict[str, Any]] = {}
    for name in TEMPORAL:
        values = measured.values[name].vector()
        before = values if measured is base else base.values[name].vector()
        defined = values[~np.isnan(values)]
        means[name] = float(defined.mean()) if defined.size else None
        interval = paired_delta(before, values, resamples=resamples, seed=seed)
        delta[name] = {key: value for key, value in interval.as_dict().items() if key != "n"}
    return {"alpha": alpha, **means, "latest_miss_causes": measured.causes, "delta": delta}


@dataclass
class _PoolCounts:
    """What the notes and ``scored`` of a run-level rerun count over its questions."""

    questions: int = 0
    candidates: int = 0
    scored: int = 0
    recomputed: int = 0
    disagree: int = 0
    partial_widths: list[np.ndarray] = field(default_factory=list)
    """Per chunk, the scored counts of its partly scored questions."""

    def add(self, chunk: _ChunkPool, lam: float) -> None:
        sims, ages, valid = chunk.sims, chunk.ages, chunk.valid
        scored = valid & ~np.isnan(sims) & ~np.isnan(ages)
        n_scored = scored.sum(axis=1)
        n_candidates = valid.sum(axis=1)
        partial = (n_scored < n_candidates) & (n_candidates > 0)
        self.questions += len(valid)
        self.candidates += int(n_candidates.sum())
        self.scored += int(n_scored.sum())
        self.recomputed += int((chunk.recomputed & scored).sum())
        identity = np.arange(valid.shape[1])[None, :]
        self.disagree += int(
            (recency_order(sims, ages, valid, BASELINE_ALPHA, lam) != identity).any(axis=1).sum()
        )
        self.partial_widths.append(n_scored[partial])

    def widths(self) -> np.ndarray:
        """The scored counts of the partly scored questions."""
        return _joined(self.partial_widths, np.int64)


def rerun_run(
    data: RunData,
    alphas: list[float],
    *,
    lam: float = DEFAULT_LAMBDA,
    k: int | None = None,
    pool: int | None = None,
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
    gap_fill_hint: str | None = None,
    chunk: int = CHUNK_QUESTIONS,
) -> dict[str, Any]:
    """Re-rank every latest-state question of a run for each alpha; metrics, deltas and miss causes.

    ``gap_fill_hint`` as for :func:`rerun_question`. The run is re-ranked ``chunk``
    questions at a time, one alpha after the other, so memory follows the chunk and the
    number of questions, not the pool size times the alphas; the numbers are those of the
    whole run at once, bit for bit.

    Returns the JSON of ``memscope rerun`` without ``--question``: ``{"run", "params",
    "n", "scored", "results": [{"alpha", "latest_at_k", "latest_miss", "rank_inversion",
    "stale_dominance", "latest_miss_causes", "delta": {metric: {"mean", "ci_low",
    "ci_high"}}}], "notes"}``; the first result is alpha = 1.0, the original order.

    Raises:
        InputError: a parameter out of range, or a run without a ranked retrieval list.
    """
    check_params(alphas, lam, k, pool)
    if resamples < 1:
        raise InputError(f"--resamples must be at least 1, got {resamples}")
    require_ranked(data)
    cutoff = effective_k(data.run, k)
    check_params(alphas, lam, cutoff, pool)
    # alpha = 1.0 first: the original order, measured with the pools' counts.
    original = _AlphaPass()
    counts = _PoolCounts()
    for part in _chunk_pools(data, pool, chunk):
        original.add(part.evidence, cutoff)
        counts.add(part, lam)
    results = [_entry(BASELINE_ALPHA, original, original, resamples=resamples, seed=seed)]
    for alpha in _alpha_list(alphas)[1:]:
        reordered = _AlphaPass()
        for part in _chunk_pools(data, pool, chunk):
            order = recency_order(part.sims, part.ages, part.valid, alpha, lam)
            reordered.add(part.evidence.reordered(order), cutoff)
        results.append(_entry(alpha, original, reordered, resamples=resamples, seed=seed))
    widths = counts.widths()
    partial = len(widths)
    word = latest_label_of(data.benchmark)
    notes = []
    if partial:
        top = int(np.median(widths)) if widths.size else 0
        notes.append(
            f"{partial} of {counts.questions} {word} questions have scores for only part of their pool "
            f"(typically the first {top}); only the scored candidates are re-ranked and the rest keep "
            "their ranks" + (f"; {gap_fill_hint}" if gap_fill_hint else "")
        )
    if counts.recomputed:
        notes.append(
            f"{counts.recomputed} candidate scores were recomputed by the memory engine; the rest were logged"
        )
    if counts.disagree:
        notes.append(
            f"{counts.disagree} question(s) have a logged ranking that disagrees with their scores; alpha = 1.0 "
            "keeps the logged order"
        )
    if not counts.questions:
        notes.append(
            f"the run has no {word} question with a gold clue: the recency probe has nothing to measure"
        )
    width = data.evidence.ranked_pos.shape[1]
    return {
        "run": data.run.run_id,
        "params": {
            "alphas": [entry["alpha"] for entry in results[1:]] or [BASELINE_ALPHA],
            "lambda": lam,
            "k": cutoff,
            "pool": pool,
            "seed": seed,
            "resamples": resamples,
        },
        "n": counts.questions,
        "scored": {
            "candidates": counts.candidates,
            "scored": counts.scored,
            "recomputed": counts.recomputed,
            "questions_partly_scored": partial,
            # The pool cut (pool_prefix) keeps the whole width when ``pool`` is as wide.
            "pool_size": width if pool is None or pool >= width else pool,
        },
        "results": results,
        "notes": notes,
    }
