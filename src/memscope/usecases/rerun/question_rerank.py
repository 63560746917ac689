"""One question re-ranked (``memscope rerun --question`` and the app's live alpha keys).

:func:`rerun_question` re-ranks one question's candidate pool with a recency weight and
returns the candidate table before and after with the per-question metrics; it is pure
numpy on one row, cheap enough for every keypress.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memscope.analysis.arrays import PAD
from memscope.analysis.evidence import (
    EvidenceSet,
    latest_clue,
    retrieval_access,
    stale_mask,
    temporal_authority,
    within_k,
)
from memscope.analysis.rerank import (
    DEFAULT_LAMBDA as DEFAULT_LAMBDA,  # re-exported: the front ends show it
)
from memscope.analysis.rerank import recency_order, recency_scores, recency_term
from memscope.usecases.rerun.checks import check_params, require_ranked
from memscope.usecases.rerun.pool import (
    ACCESS,
    BASELINE_ALPHA,
    TEMPORAL,
    CandidatePool,
    pool_of,
    rows_of,
)
from memscope.usecases.runs.ingest import effective_k
from memscope.usecases.runs.loading import RunData


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
    pool: CandidatePool,
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
    row_pool = pool_of(
        rows_of(data.evidence, slice(i, i + 1)),
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
