"""What a re-rank refuses before it starts: parameters out of range, a run without a ranked
retrieval list, or one without a retrieval score to weigh (``memscope rerun``, the app's
alpha keys). Each refusal is one message saying what would work instead."""

from __future__ import annotations

import math

import numpy as np

from memscope.errors import InputError
from memscope.usecases.runs.loading import RunData


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
