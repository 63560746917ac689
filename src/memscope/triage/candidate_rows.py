"""Rows of the candidate table: the retrieved pool of one question in the current order.

From a re-ranking result (``usecases.rerun.rerun_question``) when the run has a ranked
pool, else as the run logged it; each row carries its per-channel scores (text, image)
from :class:`ChannelIndex`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from memscope.triage.round_index import RoundIndex, float_or_none
from memscope.usecases.runs.loading import RunData
from memscope.usecases.runs.session_io import RecomputeHint

if TYPE_CHECKING:
    import pyarrow as pa

    from memscope.usecases.rerun.question_rerank import CandidateRow


@dataclass(frozen=True)
class Candidate:
    """One row of the candidate table (the retrieved pool, in the current order)."""

    rank: int
    original_rank: int
    round_id: str
    session_id: str
    sim: float | None
    text_score: float | None
    image_score: float | None
    age: int | None
    recency: float | None
    score: float | None
    is_gold: bool
    is_latest: bool
    is_stale: bool
    in_top_k: bool


class ChannelIndex:
    """Per-channel scores (text, image) of a run's retrieved rounds, by (qid, round); and
    ``recompute_hint``, the sentence pointing to ``memscope recompute`` where it can fill
    the scores the run did not log on this machine (None where it cannot)."""

    def __init__(
        self, table: pa.Table | None, recompute_hint: str | RecomputeHint | None = None
    ) -> None:
        self._hint = (
            recompute_hint
            if isinstance(recompute_hint, RecomputeHint)
            else RecomputeHint(recompute_hint, known=True)
        )
        self._table = table
        self._spans: dict[str, tuple[int, int]] = {}
        if table is not None and table.num_rows:
            qids = table.column("qid").to_numpy(zero_copy_only=False)
            starts = np.flatnonzero(np.r_[True, qids[1:] != qids[:-1]])
            ends = np.r_[starts[1:], len(qids)]
            self._spans = {
                str(qids[s]): (int(s), int(e - s)) for s, e in zip(starts, ends, strict=True)
            }

    @property
    def recompute_hint(self) -> str | None:
        """The sentence pointing to ``memscope recompute`` (None where it cannot work here,
        or while that is still being found out)."""
        return self._hint.text

    def scores(self, qid: str) -> dict[str, tuple[float | None, float | None]]:
        """round id -> (text score, image score) for one question (empty when not logged)."""
        span = self._spans.get(qid)
        if span is None or self._table is None:
            return {}
        part = self._table.slice(*span).to_pydict()
        return {
            r: (float_or_none(t), float_or_none(i))
            for r, t, i in zip(
                part["round_id"], part["text_score"], part["image_score"], strict=True
            )
        }


def candidates_from_rerun(
    rows: list[CandidateRow],
    original: list[CandidateRow],
    channels: dict[str, tuple[float | None, float | None]],
    temporal: bool = True,
) -> list[Candidate]:
    """Candidate rows from a re-ranking result (``QuestionRerun.after``) with each round's
    original rank (from ``.before``) and its channel scores. Latest / stale markers are
    kept only when ``temporal`` (a question the benchmark declares asks for the latest
    state: elsewhere "latest" means nothing)."""
    original_rank = {row.round_id: row.rank for row in original}
    return [
        Candidate(
            rank=row.rank,
            original_rank=original_rank.get(row.round_id, 0),
            round_id=row.round_id,
            session_id=row.session_id or "",
            sim=float_or_none(row.sim),
            text_score=channels.get(row.round_id, (None, None))[0],
            image_score=channels.get(row.round_id, (None, None))[1],
            age=row.age,
            recency=float_or_none(row.recency),
            score=float_or_none(row.score),
            is_gold=row.is_gold,
            is_latest=temporal and row.is_latest,
            is_stale=temporal and row.is_stale,
            in_top_k=row.in_top_k,
        )
        for row in rows
    ]


def logged_candidates(
    data: RunData,
    row: int,
    rounds: RoundIndex,
    k: int,
    channels: dict[str, tuple[float | None, float | None]],
) -> list[Candidate]:
    """The candidate rows as the run logged them (when no re-ranking is available)."""
    values = data.evidence_table.slice(row, 1).to_pylist()[0]
    ids = values.get("ranked_ids") or []
    scores = values.get("scores") or []
    gold = set(values.get("gold_pos") or [])
    asks_latest = row < len(data.evidence.asks_latest) and bool(data.evidence.asks_latest[row])
    latest = max(gold) if gold and asks_latest else None
    ranked = bool(values.get("has_ranking", True))
    history = None if data.histories is None else data.histories.rows(slice(row, row + 1))
    result = []
    for i, round_id in enumerate(ids):
        position = rounds.position(round_id)
        age = (rounds.n - position) if position else None
        if history is not None and position:  # the question's own history (Benchmark.history)
            age = int(history.ages(np.array([[position]]))[0, 0])
        text_score, image_score = channels.get(round_id, (None, None))
        result.append(
            Candidate(
                rank=i + 1,
                original_rank=i + 1,
                round_id=round_id,
                session_id=rounds.session_ids[rounds.row_of[round_id]]
                if round_id in rounds.row_of
                else "",
                sim=float_or_none(scores[i]) if i < len(scores) else None,
                text_score=text_score,
                image_score=image_score,
                age=age,
                recency=None,
                score=None,
                is_gold=position in gold,
                is_latest=latest is not None and position == latest,
                is_stale=False,
                in_top_k=(i < k) or not ranked,
            )
        )
    return result
