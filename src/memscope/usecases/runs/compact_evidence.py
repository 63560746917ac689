"""A run's retrieval evidence kept as narrow numpy arrays, filled one chunk of questions at a
time: what a run-level computation over a large run holds instead of the run's Arrow
evidence table with its string lists (issue 30: the run-level re-rank of a
1,000,000-question run).

Positions and session orders are held in the narrowest signed integer type that holds the
dataset's largest one (:func:`narrowest_int`); the analysis widens each chunk back to int64
before computing with it (``usecases.rerun``), so narrowing changes no number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from memscope.analysis.arrays import PAD
from memscope.analysis.evidence import EvidenceSet
from memscope.usecases.runs.loading import evidence_from_table

if TYPE_CHECKING:
    import pyarrow as pa

    from memscope.adapters.spec import QuestionMatch
    from memscope.store.evidence_reads import EvidenceChunk, EvidenceChunks


@dataclass(frozen=True)
class CompactEvidence:
    """The evidence of some questions of a run, one row per question (in idx order)."""

    questions: pa.Table
    """``qid`` and ``y`` per row."""
    evidence: EvidenceSet
    """Positions and sessions in :func:`narrowest_int`'s type, padded with PAD."""
    scores: np.ndarray
    """``(n, S)`` logged or recomputed similarities (float64), NaN where none; ``S`` is
    one past the last scored column, at most the pool's width (``rerun.pool`` pads)."""
    recomputed: np.ndarray
    """``(n, width)`` whether each candidate's score was recomputed by the memory engine."""


def narrowest_int(largest: int) -> type[np.signedinteger]:
    """The smallest signed integer type holding every value in ``[PAD, largest]``."""
    for kind in (np.int8, np.int16, np.int32):
        if largest <= np.iinfo(kind).max:
            return kind
    return np.int64


def origin_flags(table: pa.Table, width: int) -> np.ndarray:
    """``(n, width)`` whether each candidate's score was recomputed by the memory engine
    (``origins`` of an evidence table, ``store.queries.evidence_table``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    column = table.column("origins").combine_chunks()
    rows = len(column)
    out = np.zeros((rows, width), dtype=bool)
    if not rows or not width:
        return out
    if isinstance(column, pa.ChunkedArray):  # an empty chunked array
        return out
    lengths = (
        pc.fill_null(pc.list_value_length(column), 0)
        .to_numpy(zero_copy_only=False)
        .astype(np.int64)
    )
    flags = pc.fill_null(pc.equal(pc.list_flatten(column), "recomputed"), False).to_numpy(
        zero_copy_only=False
    )
    row_index = np.repeat(np.arange(rows), lengths)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    col_index = np.arange(len(flags)) - np.repeat(starts, lengths)
    inside = col_index < width
    out[row_index[inside], col_index[inside]] = flags[inside]
    return out


@dataclass
class _Candidates:
    """The per-candidate arrays, filled chunk by chunk: positions, sessions and flags as
    wide as the longest pool so far, scores only as wide as the last scored column so far
    (beyond it every score is missing: MemEye logs five; the analysis pads them back)."""

    ranked_pos: np.ndarray
    ranked_session: np.ndarray
    recomputed: np.ndarray
    scores: np.ndarray

    @classmethod
    def unfilled(cls, rows: int, kind: type[np.signedinteger]) -> _Candidates:
        """Arrays whose rows :meth:`fill` writes (rows never filled cost no memory)."""
        return cls(
            np.empty((rows, 0), dtype=kind),
            np.empty((rows, 0), dtype=kind),
            np.empty((rows, 0), dtype=bool),
            np.empty((rows, 0)),
        )

    def fill(self, rows: slice, chunk: EvidenceChunk, latest: QuestionMatch | None) -> EvidenceSet:
        """Write one chunk's candidates into ``rows``; its evidence (``latest``: the
        benchmark's declared latest-state questions)."""
        table = chunk.table
        evidence, scores = evidence_from_table(table, latest)
        scored = _scored_width(scores)
        filled = rows.start
        if chunk.longest > self.ranked_pos.shape[1]:  # usually the first chunk only
            self.ranked_pos = _wider(self.ranked_pos, chunk.longest, filled, PAD)
            self.ranked_session = _wider(self.ranked_session, chunk.longest, filled, PAD)
            self.recomputed = _wider(self.recomputed, chunk.longest, filled, False)
        if scored > self.scores.shape[1]:
            self.scores = _wider(self.scores, scored, filled, np.nan)
        for target, values, pad in (
            (self.ranked_pos, evidence.ranked_pos, PAD),
            (self.ranked_session, evidence.ranked_session, PAD),
            (self.scores, scores[:, : self.scores.shape[1]], np.nan),
        ):
            target[rows] = pad
            target[rows, : values.shape[1]] = values
        self.recomputed[rows] = origin_flags(table, self.ranked_pos.shape[1])
        return evidence

    def head(self, rows: int) -> _Candidates:
        """The first ``rows`` rows (views)."""
        return _Candidates(
            self.ranked_pos[:rows],
            self.ranked_session[:rows],
            self.recomputed[:rows],
            self.scores[:rows],
        )


def _scored_width(scores: np.ndarray) -> int:
    """One past the last column holding any score (0: none)."""
    columns = np.flatnonzero(~np.isnan(scores).all(axis=0))
    return int(columns[-1]) + 1 if columns.size else 0


def _wider(array: np.ndarray, width: int, filled: int, pad: float | bool) -> np.ndarray:
    """``array`` ``width`` columns wide, its first ``filled`` rows kept and padded."""
    out = np.empty((array.shape[0], width), dtype=array.dtype)
    out[:filled] = pad
    out[:filled, : array.shape[1]] = array[:filled]
    return out


def compact_evidence(chunks: EvidenceChunks, latest: QuestionMatch | None) -> CompactEvidence:
    """Read ``chunks`` one at a time into arrays as wide as the run's longest pool (the
    largest ``longest`` of the chunks; the scores up to the last scored column): only one
    chunk's Arrow table is alive at a time. ``latest``: the benchmark's declared
    latest-state questions (``EvidenceSet.asks_latest``)."""
    import pyarrow as pa

    pool = pa.default_memory_pool()
    at_most = chunks.at_most
    kind = narrowest_int(chunks.largest)
    candidates = _Candidates.unfilled(at_most, kind)
    has_ranking = np.empty(at_most, dtype=bool)
    asks_latest = np.empty(at_most, dtype=bool)
    # Gold clues and source sessions are a few per question, their widths known only at
    # the end: kept per chunk, then padded together.
    gold_parts: list[np.ndarray] = []
    source_parts: list[np.ndarray] = []
    question_parts: list[pa.Table] = []
    start = 0
    for chunk in chunks.chunks:
        rows = slice(start, start + chunk.table.num_rows)
        if rows.stop > at_most:  # pragma: no cover - a run's questions are its dataset's
            raise RuntimeError(f"more than the {at_most} questions the dataset holds")
        evidence = candidates.fill(rows, chunk, latest)
        has_ranking[rows] = evidence.has_ranking
        asks_latest[rows] = evidence.asks_latest
        gold_parts.append(evidence.gold_pos.astype(kind))
        source_parts.append(evidence.source_sessions.astype(kind))
        question_parts.append(chunk.table.select(["qid", "y"]))
        start = rows.stop
        # Arrow's allocator keeps the pages a chunk freed; handing them back each chunk
        # keeps the read's footprint flat (about 12 MB less at 1,000,000 questions).
        pool.release_unused()
    candidates = candidates.head(start)
    # One copy of the qids and levels: the chunks' own buffers are let go.
    questions = pa.concat_tables(question_parts).combine_chunks()
    evidence = EvidenceSet(
        ranked_pos=candidates.ranked_pos,
        ranked_session=candidates.ranked_session,
        gold_pos=_stacked(gold_parts, kind),
        source_sessions=_stacked(source_parts, kind),
        has_ranking=has_ranking[:start],
        asks_latest=asks_latest[:start],
    )
    return CompactEvidence(questions, evidence, candidates.scores, candidates.recomputed)


def _stacked(parts: list[np.ndarray], kind: type[np.signedinteger]) -> np.ndarray:
    """Padded matrices of different widths stacked into one, padded with PAD."""
    width = max((part.shape[1] for part in parts), default=0)
    out = np.full((sum(part.shape[0] for part in parts), width), PAD, dtype=kind)
    start = 0
    for part in parts:
        out[start : start + part.shape[0], : part.shape[1]] = part
        start += part.shape[0]
    return out
