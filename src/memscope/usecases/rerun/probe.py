"""The recency re-ranking probe (``memscope rerun`` and the app's live alpha keys).

``rerun_question`` re-ranks one question's candidate pool and returns the candidate table
before and after with the per-question metrics; it is pure numpy on one row, cheap enough
for every keypress. ``rerun_run`` re-ranks every latest-state question (MemEye's Y3) of a run for several alphas
at once and reports the temporal metrics with paired bootstrap deltas against alpha = 1.0
(the original order). ``store_rerun`` keeps a result so the app can list it later.

Similarities are never invented: where a run logged scores for only part of its ranking
(MemEye: the first five), only the scored candidates are re-ranked among the slots they
hold, and the output says so. Scores the memory engine recomputed (retrievals with
origin ``recomputed``) are used like logged ones and counted separately.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from memscope.analysis.arrays import PAD
from memscope.analysis.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, paired_delta
from memscope.analysis.evidence import (
    EvidenceSet,
    latest_clue,
    latest_miss_causes,
    retrieval_access,
    stale_mask,
    temporal_authority,
    within_k,
)
from memscope.analysis.history import Histories
from memscope.analysis.rerank import (
    DEFAULT_LAMBDA as DEFAULT_LAMBDA,  # re-exported: the front ends show it
)
from memscope.analysis.rerank import (
    candidate_ages,
    pool_prefix,
    pool_valid,
    recency_order,
    recency_scores,
    recency_term,
)
from memscope.errors import InputError, NotFoundError
from memscope.usecases.runs.compact_evidence import origin_flags
from memscope.usecases.runs.declared import latest_label_of
from memscope.usecases.runs.ingest import effective_k
from memscope.usecases.runs.loading import RunData

if TYPE_CHECKING:
    from memscope.store import Store

TEMPORAL = ("latest_at_k", "latest_miss", "rank_inversion", "stale_dominance")
ACCESS = ("any_clue", "coverage", "full_clue", "mrr")
BASELINE_ALPHA = 1.0


@dataclass(frozen=True)
class CandidateRow:
    """One candidate of a question's pool, as ranked in one ordering."""

    rank: int
    original_rank: int
    round_id: str
    session_id: str | None
    sim: float | None
    origin: str | None
    age: int | None
    recency: float | None
    score: float | None
    is_gold: bool
    is_latest: bool
    is_stale: bool
    in_top_k: bool


@dataclass(frozen=True)
class RankedPool:
    """A question's candidate pool in one order, with the per-question metrics of that order."""

    rows: list[CandidateRow]
    metrics: dict[str, float | None]

    @property
    def ranking(self) -> list[str]:
        """The round ids, rank 1 first."""
        return [row.round_id for row in self.rows]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready ``{"ranking", "metrics", "candidates"}``."""
        return {
            "ranking": self.ranking,
            "metrics": dict(self.metrics),
            "candidates": [row.__dict__.copy() for row in self.rows],
        }


@dataclass(frozen=True)
class QuestionRerun:
    """One question re-ranked with one alpha: the pool before and after."""

    run_id: str
    qid: str
    y: str | None
    alpha: float
    lam: float
    k: int
    pool: int | None
    pool_size: int
    scored_count: int
    recomputed_count: int
    before: RankedPool
    after: RankedPool
    note: str | None = None
    answer: dict[str, float | None] = field(default_factory=dict)
    """The answer's stored scores (EM, judge, F1): a re-rank does not re-answer, so they
    are the question's as graded, the same before and after."""

    @property
    def params(self) -> dict[str, Any]:
        """The parameters in the issue's JSON shape."""
        return {"alpha": self.alpha, "lambda": self.lam, "k": self.k, "pool": self.pool}

    def as_dict(self) -> dict[str, Any]:
        """The JSON printed by ``memscope rerun --question``."""
        return {
            "question": self.qid,
            "run": self.run_id,
            "y": self.y,
            "params": self.params,
            "scored": self.scored_count,
            "recomputed": self.recomputed_count,
            "pool": self.pool_size,
            "note": self.note,
            "before": self.before.as_dict(),
            "after": self.after.as_dict(),
            "answer": dict(self.answer),
        }


ANSWER_SCORES = ("em", "judge", "f1")
"""The answer's own scores, which re-ranking the memory leaves as they are."""


@dataclass
class _Pool:
    """A run's candidate pool cut to ``--pool``, with what re-ranking needs."""

    evidence: EvidenceSet
    sims: np.ndarray
    ages: np.ndarray
    valid: np.ndarray
    recomputed: np.ndarray


def check_params(alphas: list[float], lam: float, k: int | None, pool: int | None) -> None:
    """Refuse parameters outside their range with one clear message.

    Raises:
        InputError: alpha outside [0, 1], negative lambda, K < 1, or a pool smaller than K.
    """
    if not alphas:
        raise InputError(
            "give at least one recency weight: --alpha A (0 ≤ A ≤ 1), e.g. --alpha 0.7"
        )
    for alpha in alphas:
        if not 0.0 <= alpha <= 1.0:
            raise InputError(
                f"--alpha must lie in [0, 1], got {alpha:g}",
                fix="alpha weighs similarity against recency: 1.0 keeps the original order, 0.0 ranks by recency alone.",
            )
    if not lam >= 0.0 or math.isinf(lam):
        raise InputError(
            f"--lambda must be a finite number ≥ 0, got {lam:g}",
            fix="The default decay is 0.02 per round.",
        )
    if k is not None and k < 1:
        raise InputError(
            f"--k must be at least 1, got {k}", fix="Pass a positive cut-off, e.g. --k 10."
        )
    if pool is not None:
        if pool < 1:
            raise InputError(f"--pool must be at least 1, got {pool}")
        if k is not None and pool < k:
            raise InputError(
                f"--pool ({pool}) must be at least --k ({k})",
                fix="The pool is what re-ranking can draw from; it cannot be smaller than the cut-off.",
            )


def require_ranked(data: RunData) -> None:
    """Refuse a run without a ranked retrieval list: there is nothing to re-rank.

    Raises:
        InputError: naming the run, its retrieval kind and its method.
    """
    kind = data.run.retrieval_kind
    if kind == "ranked":
        return
    method = data.run.method or "unknown method"
    why = {
        "context": "it puts a fixed context in front of the model instead of retrieving",
        "unranked": "it logged an unranked set of retrieved rounds, so there is no order to change",
        "none": "it logged no retrieved evidence",
    }.get(kind or "none", "it logged no retrieved evidence")
    raise InputError(
        f"run {data.run.run_id} logged no ranked retrievals ({method}, retrieval: {kind}): nothing to re-rank; {why}",
        fix="Re-rank a retrieval run (e.g. semantic_rag), or build a native run with the memory engine.",
    )


def require_scores(
    data: RunData, gap_fill_hint: str | None = None, *, requery: bool = True
) -> None:
    """Refuse a ranked run that logged no retrieval score at all: there is nothing to weigh.

    Re-ranking mixes each candidate's similarity with its recency; a run that logged ids
    only (DMV-Bench's logs, some CUE-Mem memories) has no similarity to mix, so the table
    would be empty. The message says what would give scores: ``gap_fill_hint`` (from
    ``engine_jobs.recompute_hint``) where ``memscope recompute`` can work on this machine.

    ``requery`` says whether ``rerun --requery`` can reproduce the run's retriever; ``memscope
    retrieve`` is offered only for a benchmark with a run writer: a way the benchmark or the
    run refuses is never suggested.

    Raises:
        InputError: naming the run and the ways to get scores that can work for it.
    """
    scores = data.scores
    if scores.size and not np.isnan(scores).all():
        return
    why = data.spec.no_scores_reason
    ways = [
        way
        for way, works in (
            ("`memscope rerun --requery`", requery),
            ("`memscope retrieve`", data.spec.run_writer is not None),
        )
        if works
    ]
    engine = f"re-retrieve with the memory engine: {' or '.join(ways)}" if ways else ""
    if gap_fill_hint:
        hint = f"{gap_fill_hint[:1].upper()}{gap_fill_hint[1:]}"
        fix = f"{hint}; or {engine}." if engine else f"{hint}."
    elif engine:
        fix = f"{engine[:1].upper()}{engine[1:]}."
    else:
        fix = (
            f"{data.spec.title} runs can be re-ranked only where they log retrieval scores; "
            "the memory engine cannot re-retrieve this one."
        )
    raise InputError(f"run {data.run.run_id} has no retrieval scores to re-rank: {why}", fix=fix)


def _pool_of(
    evidence: EvidenceSet,
    scores: np.ndarray,
    recomputed: np.ndarray,
    n_rounds: int,
    pool: int | None,
    histories: Histories | None = None,
) -> _Pool:
    """The candidate pool cut to its first ``pool`` entries, with ages and validity."""
    evidence, scores = pool_prefix(evidence, scores, pool)
    width = evidence.ranked_pos.shape[1]
    valid = pool_valid(evidence)
    return _Pool(
        evidence=evidence,
        sims=np.where(valid, _fit(scores, width), np.nan),
        ages=candidate_ages(evidence.ranked_pos, n_rounds, histories),
        valid=valid,
        recomputed=_fit(recomputed, width, fill=False).astype(bool) & valid,
    )


def _fit(matrix: np.ndarray, width: int, fill: float | bool = np.nan) -> np.ndarray:
    """``matrix`` cut or padded (with ``fill``) to ``width`` columns."""
    if matrix.shape[1] >= width:
        return matrix[:, :width]
    out = np.full((matrix.shape[0], width), fill, dtype=matrix.dtype)
    out[:, : matrix.shape[1]] = matrix
    return out


_ROWS_BY_TABLE: dict[int, tuple[weakref.ref[Any], dict[str, int]]] = {}
"""qid -> row per loaded question table, so a keypress does not convert 50k qids again."""


def _row_index(data: RunData, qid: str) -> int:
    table = data.questions
    cached = _ROWS_BY_TABLE.get(id(table))
    if cached is None or cached[0]() is not table:
        for key in [key for key, (ref, _) in _ROWS_BY_TABLE.items() if ref() is None]:
            del _ROWS_BY_TABLE[key]
        rows = {str(value): row for row, value in enumerate(table.column("qid").to_pylist())}
        cached = (weakref.ref(table), rows)
        _ROWS_BY_TABLE[id(table)] = cached
    found = cached[1].get(qid)
    if found is not None:
        return found
    from memscope.usecases.runs.questions import unknown_question

    raise unknown_question(qid, data.run.run_id, list(cached[1]))


def _clean(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def _row_metrics(ev: EvidenceSet, k: int) -> dict[str, float | None]:
    values = retrieval_access(ev, k) | temporal_authority(ev, k)
    return {name: _clean(values[name][0]) for name in (*TEMPORAL, *ACCESS)}


def _candidate_rows(
    ev: EvidenceSet,
    order: np.ndarray,
    pool: _Pool,
    i: int,
    ids: list[str],
    sessions: list[str | None],
    origins: list[str | None],
    alpha: float,
    lam: float,
    k: int,
) -> list[CandidateRow]:
    reordered = ev.reordered(order[None, :])
    columns = order[pool.valid[i][order]]
    in_k = within_k(reordered, k)[0]
    latest = latest_clue(ev)[0]
    stale = stale_mask(reordered)[0]
    gold = set(ev.gold_pos[0][ev.gold_pos[0] != PAD].tolist())
    sims, ages = pool.sims[i], pool.ages[i]
    recency = recency_term(ages, lam)
    scores = recency_scores(sims, ages, alpha, lam)
    rows = []
    for rank, column in enumerate(columns.tolist(), start=1):
        position = int(ev.ranked_pos[0, column])
        rows.append(
            CandidateRow(
                rank=rank,
                original_rank=column + 1,
                round_id=ids[column],
                session_id=sessions[column] if column < len(sessions) else None,
                sim=_clean(sims[column]),
                origin=origins[column]
                if column < len(origins) and not math.isnan(sims[column])
                else None,
                age=None if math.isnan(ages[column]) else int(ages[column]),
                recency=_clean(recency[column]),
                score=_clean(scores[column]),
                is_gold=position > 0 and position in gold,
                is_latest=bool(position > 0 and position == int(latest)),
                is_stale=bool(stale[rank - 1]),
                in_top_k=bool(in_k[rank - 1]),
            )
        )
    return rows


def _question_note(
    valid: np.ndarray,
    scored: np.ndarray,
    unknown_mask: np.ndarray,
    recomputed: int,
    *,
    disagrees: bool = False,
    gap_fill_hint: str | None = None,
) -> str | None:
    """What the user must know about one question's pool, in one sentence (None: nothing)."""
    hint = f"; {gap_fill_hint}" if gap_fill_hint else ""
    size, n_scored, unknown = int(valid.sum()), int(scored.sum()), int(unknown_mask.sum())
    parts = []
    if size and n_scored == 0:
        parts.append(f"none of the {size} candidates has a score, so the order cannot change{hint}")
    elif n_scored < size - unknown:
        fixed = np.flatnonzero(valid & ~scored & ~unknown_mask) + 1
        tail = (
            fixed.size
            and fixed[0] > n_scored
            and (fixed == np.arange(fixed[0], fixed[0] + fixed.size)).all()
        )
        if tail and fixed.size > 1:
            which = f"ranks {fixed[0]}–{fixed[-1]} keep their order"
        elif tail:
            which = f"rank {fixed[0]} keeps its place"
        else:
            which = f"the {fixed.size} without one keep their ranks"
        parts.append(f"{n_scored} of {size} candidates have scores; {which}{hint}")
    if unknown:
        parts.append(
            f"{unknown} retrieved round(s) are unknown to the dataset (no age) and keep their ranks"
        )
    if recomputed:
        parts.append(
            f"{recomputed} of the scores were recomputed by the memory engine, the rest were logged"
        )
    if disagrees:
        parts.append(
            "the logged ranking disagrees with the scores; alpha = 1.0 keeps the logged order"
        )
    return "; ".join(parts) or None


def rerun_question(
    data: RunData,
    qid: str,
    *,
    alpha: float,
    lam: float = DEFAULT_LAMBDA,
    k: int | None = None,
    pool: int | None = None,
    gap_fill_hint: str | None = None,
) -> QuestionRerun:
    """Re-rank one question's candidate pool with recency weight ``alpha``.

    ``gap_fill_hint``: the sentence pointing to ``memscope recompute`` where it can fill
    missing scores on this machine (``engine_jobs.recompute_hint``); None says nothing.

    Raises:
        InputError: a parameter out of range, or a run without a ranked retrieval list.
        NotFoundError: ``qid`` is not a question of the run (naming the nearest ones).
    """
    check_params([alpha], lam, k, pool)
    require_ranked(data)
    cutoff = effective_k(data.run, k)
    check_params([alpha], lam, cutoff, pool)
    i = _row_index(data, qid)
    table = data.evidence_table
    ids = table.column("ranked_ids")[i].as_py() or []
    sessions = table.column("ranked_session_ids")[i].as_py() or []
    origins = table.column("origins")[i].as_py() or []
    recomputed_flags = np.array(
        [[origin == "recomputed" for origin in origins]], dtype=bool
    ).reshape(1, len(origins))
    row_pool = _pool_of(
        _subset(data.evidence, slice(i, i + 1)),
        data.scores[i : i + 1],
        recomputed_flags,
        data.n_rounds,
        pool,
        None if data.histories is None else data.histories.rows(slice(i, i + 1)),
    )
    ev = row_pool.evidence
    width = ev.ranked_pos.shape[1]
    identity = np.arange(width)
    by_score = recency_order(row_pool.sims, row_pool.ages, row_pool.valid, alpha, lam)[0]
    # docs/metrics.md §5: alpha = 1.0 is the original order, even where recomputed similarities
    # would sort the pool differently.
    after_order = identity if alpha == BASELINE_ALPHA else by_score
    # "Before" is the original order with its own scores (alpha = 1: the similarity), not
    # the new alpha's scores laid out in the old order.
    before = RankedPool(
        _candidate_rows(
            ev, identity, row_pool, 0, ids, sessions, origins, BASELINE_ALPHA, lam, cutoff
        ),
        _row_metrics(ev, cutoff),
    )
    after = RankedPool(
        _candidate_rows(ev, after_order, row_pool, 0, ids, sessions, origins, alpha, lam, cutoff),
        _row_metrics(ev.reordered(after_order[None, :]), cutoff),
    )
    valid = row_pool.valid[0]
    scored_mask = valid & ~np.isnan(row_pool.sims[0]) & ~np.isnan(row_pool.ages[0])
    scored = int(scored_mask.sum())
    unknown_mask = valid & np.isnan(row_pool.ages[0])
    recomputed = int((row_pool.recomputed[0] & scored_mask).sum())
    size = int(valid.sum())
    y = data.questions.column("y")[i].as_py()
    return QuestionRerun(
        run_id=data.run.run_id,
        qid=qid,
        y=y,
        alpha=alpha,
        lam=lam,
        k=cutoff,
        pool=pool,
        pool_size=size,
        scored_count=scored,
        recomputed_count=recomputed,
        before=before,
        after=after,
        answer={
            name: _clean(float(data.column(name)[i]))
            for name in ANSWER_SCORES
            if name in data.questions.column_names
        },
        note=_question_note(
            valid,
            scored_mask,
            unknown_mask,
            recomputed,
            disagrees=alpha == BASELINE_ALPHA and bool((by_score != identity).any()),
            gap_fill_hint=gap_fill_hint,
        ),
    )


def _subset(ev: EvidenceSet, rows: np.ndarray | slice) -> EvidenceSet:
    """The evidence of some questions (an index array or a slice of rows)."""
    return EvidenceSet(
        ranked_pos=ev.ranked_pos[rows],
        ranked_session=ev.ranked_session[rows],
        gold_pos=ev.gold_pos[rows],
        source_sessions=ev.source_sessions[rows],
        has_ranking=ev.has_ranking[rows],
        asks_latest=ev.asks_latest[rows],
    )


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
        part = _as_int64(_subset(evidence, rows))
        flags = (
            data.recomputed[rows]
            if data.recomputed is not None
            else origin_flags(data.evidence_table.slice(start, rows.stop - start), width)
        )
        histories = None if data.histories is None else data.histories.rows(rows)
        whole = _pool_of(part, data.scores[rows], flags, data.n_rounds, pool, histories)
        measured = np.flatnonzero(part.asks_latest & (latest_clue(part) != PAD))
        yield _ChunkPool(
            _subset(whole.evidence, measured),
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


def store_rerun(store: Store, run_id: str, result: dict[str, Any]) -> int:
    """Keep a rerun result (from :func:`rerun_run` or ``QuestionRerun.as_dict()``); returns its id."""
    from memscope.store import reruns

    kind = "question" if "question" in result else "run"
    with store.write() as con:
        return reruns.insert_rerun(con, run_id, kind, result.get("params", {}), result, _now())


def list_reruns(store: Store, run_id: str | None = None) -> list[dict[str, Any]]:
    """Stored reruns (of one run, or all), newest first, without their results."""
    from memscope.store import reruns

    with store.read() as con:
        return reruns.list_reruns(con, run_id)


def get_rerun(store: Store, rerun_id: int) -> dict[str, Any]:
    """One stored rerun with its results.

    Raises:
        NotFoundError: no rerun with that id.
    """
    from memscope.store import reruns

    with store.read() as con:
        found = reruns.get_rerun(con, rerun_id)
    if found is None:
        raise NotFoundError(f"no stored rerun {rerun_id}", where=str(store.path))
    return found


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)
