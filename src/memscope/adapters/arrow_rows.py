"""Column lists an adapter collected, as typed Arrow tables for the store's bulk loaders.

A column's Arrow type depends only on its name (``COLUMN_TYPES``), so every benchmark's
predictions, retrievals and detail rows reach the store with the same types.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa

COLUMN_TYPES: dict[str, pa.DataType] = {
    # predictions
    "qid": pa.string(),
    "line_no": pa.int32(),
    "mode": pa.string(),
    "question": pa.string(),
    "gold": pa.string(),
    "pred": pa.string(),
    "choice": pa.string(),
    "em": pa.float64(),
    "exact_match": pa.bool_(),
    "f1": pa.float64(),
    "judge": pa.float64(),
    "judge_reasoning": pa.string(),
    "bleu_1": pa.float64(),
    "latency_ms": pa.int64(),
    "total_tokens": pa.int64(),
    "extra": pa.string(),
    # retrievals
    "rank": pa.int32(),
    "round_id": pa.string(),
    "score": pa.float64(),
    "origin": pa.string(),
    # CUE-Mem RQ3 retrieved items
    "turn_id": pa.string(),
    "turn_rank": pa.int32(),
    "item_id": pa.string(),
    "modality": pa.string(),
    "path": pa.string(),
    "fallback": pa.bool_(),
    "item_rank": pa.int32(),
    "query_source": pa.string(),
    "query_letter": pa.string(),
    "composition_method": pa.string(),
    # DMV-Bench recall steps
    "step": pa.int32(),
    "observed_url": pa.string(),
    "retrieved": pa.list_(pa.string()),
    "action": pa.string(),
    "action_url": pa.string(),
    "vlm_text": pa.string(),
}


def typed_table(columns: Mapping[str, Sequence[object]]) -> pa.Table:
    """``columns`` (name -> values, in the table's order), each typed by :data:`COLUMN_TYPES`."""
    return pa.table(
        {name: pa.array(values, COLUMN_TYPES[name]) for name, values in columns.items()}
    )
