"""Assembles a run's per-question evidence lists from flat Arrow tables (no Python row loop).

Used by ``queries.evidence_table``: the retrieved rounds of every question, in rank order,
with their dialogue positions, sessions, scores and origins; the gold clue rounds in
dialogue order; the source sessions' orders. Rows without retrievals get null lists.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def _lists(
    values: pa.Array, rows: np.ndarray, order: np.ndarray, n_rows: int, *, empty_is_null: bool
) -> pa.ListArray:
    """Group ``values`` into one list per row, in the order ``order`` gives."""
    counts = np.bincount(rows, minlength=n_rows) if len(rows) else np.zeros(n_rows, dtype=np.int64)
    offsets = pa.array(np.concatenate(([0], np.cumsum(counts))).astype(np.int32))
    mask = pa.array(counts == 0) if empty_is_null else None
    return pa.ListArray.from_arrays(offsets, values.take(pa.array(order)), mask=mask)


def _row_of(keys: pa.Array, qids: pa.Array) -> np.ndarray:
    return pc.index_in(keys, value_set=qids).to_numpy(zero_copy_only=False)


def assemble_evidence(
    questions: pa.Table, rounds: pa.Table, sessions: pa.Table, retrieved: pa.Table
) -> pa.Table:
    """Build the evidence table (see ``queries.evidence_table`` for its columns)."""
    n = questions.num_rows
    qids = questions.column("qid").combine_chunks()
    round_ids = rounds.column("round_id").combine_chunks()

    # Retrieved rounds: rank order (an unranked set: dialogue order).
    ret = (
        retrieved.filter(pc.is_in(retrieved.column("qid"), value_set=qids))
        if retrieved.num_rows
        else retrieved
    )
    ret_rows = (
        _row_of(ret.column("qid").combine_chunks(), qids).astype(np.int64)
        if ret.num_rows
        else np.array([], np.int64)
    )
    where = pc.index_in(ret.column("round_id"), value_set=round_ids)
    position = pc.fill_null(pc.take(rounds.column("position"), where), 0)
    session_order = pc.fill_null(pc.take(rounds.column("session_order"), where), -1)
    session_id = pc.take(rounds.column("session_id"), where)
    ranks = ret.column("rank").combine_chunks() if ret.num_rows else pa.array([], pa.int32())
    unranked = pc.is_null(ranks).to_numpy(zero_copy_only=False)
    # One integer sort key: question row, then rank (an unranked set: after every rank,
    # by dialogue position).
    rank_part = np.where(unranked, 0, pc.fill_null(ranks, 0).to_numpy(zero_copy_only=False)).astype(
        np.int64
    )
    position_values = position.to_numpy(zero_copy_only=False).astype(np.int64)
    within_row = np.where(unranked, (1 << 31) + position_values, rank_part)
    order = np.argsort(ret_rows * (1 << 33) + within_row, kind="stable")
    sorted_rows = ret_rows[order]

    def grouped(values: pa.ChunkedArray | pa.Array) -> pa.ListArray:
        array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
        return _lists(array, sorted_rows, order, n, empty_is_null=True)

    unranked_per_row = np.bincount(ret_rows[unranked], minlength=n) if ret.num_rows else np.zeros(n)
    has_ranking = pa.array(unranked_per_row == 0)

    # Gold clue rounds, in dialogue order.
    clue_lists = questions.column("clue_rounds").combine_chunks()
    clue_rows = pc.list_parent_indices(clue_lists).to_numpy(zero_copy_only=False).astype(np.int64)
    clues = pc.list_flatten(clue_lists)
    clue_at = pc.index_in(clues, value_set=round_ids)
    known = pc.is_valid(clue_at).to_numpy(zero_copy_only=False)
    clue_rows, clue_at = clue_rows[known], pc.filter(clue_at, pa.array(known))
    gold_position = pc.take(rounds.column("position"), clue_at).combine_chunks()
    gold_order = np.lexsort((gold_position.to_numpy(zero_copy_only=False), clue_rows))
    gold_rows = clue_rows[gold_order]
    gold_pos = _lists(gold_position, gold_rows, gold_order, n, empty_is_null=True)
    gold_ids = _lists(pc.take(round_ids, clue_at), gold_rows, gold_order, n, empty_is_null=True)

    # Source sessions: their orders, each once, ascending.
    source_lists = questions.column("source_sessions").combine_chunks()
    source_rows = (
        pc.list_parent_indices(source_lists).to_numpy(zero_copy_only=False).astype(np.int64)
    )
    source_at = pc.index_in(
        pc.list_flatten(source_lists), value_set=sessions.column("session_id").combine_chunks()
    )
    known = pc.is_valid(source_at).to_numpy(zero_copy_only=False)
    source_rows = source_rows[known]
    source_order_values = pc.take(
        sessions.column("session_order"), pc.filter(source_at, pa.array(known))
    ).combine_chunks()
    values = source_order_values.to_numpy(zero_copy_only=False)
    by_row = np.lexsort((values, source_rows))
    keep = np.ones(len(by_row), dtype=bool)
    keep[1:] = (source_rows[by_row][1:] != source_rows[by_row][:-1]) | (
        values[by_row][1:] != values[by_row][:-1]
    )
    unique = by_row[keep]
    source_sessions = _lists(
        source_order_values, source_rows[unique], unique, n, empty_is_null=True
    )

    return pa.table(
        {
            "qid": qids,
            "y": questions.column("y"),
            # What a benchmark's declared latest-state questions may be read from.
            "extra": questions.column("extra")
            if "extra" in questions.column_names
            else pa.nulls(n, pa.string()),
            "ranked_pos": grouped(position),
            "ranked_session": grouped(session_order),
            "ranked_ids": grouped(ret.column("round_id")),
            "scores": grouped(ret.column("score")),
            "origins": grouped(ret.column("origin")),
            "has_ranking": has_ranking,
            "gold_pos": gold_pos,
            "source_sessions": source_sessions,
            "ranked_session_ids": grouped(session_id),
            "gold_ids": gold_ids,
        }
    )
