"""MemEye's ``predictions.jsonl`` as the store should read it (docs/formats.md §1.2).

One row per question, keyed by its 1-based ``idx`` in the dialog JSON's QA list. Retrieval
provenance is in ``method_runtime``: ``seed_round_ids`` is the ranking and
``top_candidates`` scores its first five (usually in the same order); gen_agents'
``retrieved_round_ids`` is an unranked set, lagged by one row because agentic methods
snapshot their runtime before answering. ``method_runtime`` is large, so only the parts
memscope uses are named: the store parses just those.
"""

from __future__ import annotations

from memscope.plugin import LinesFormat, RankedIds

PREDICTIONS_FORMAT = LinesFormat(
    file_name="predictions.jsonl",
    described="a MemEye predictions file",
    key="idx",
    qid_prefix="q",
    # Checked even where memscope stores nothing of them (point, clue_rounds,
    # source_sessions): a wrongly typed one marks a damaged line.
    fields={
        "mode": "text",
        "question": "text",
        "gt": "text",
        "pred": "text",
        "choice": "text",
        "judge_reasoning": "text",
        "em": "unit",
        "judge": "unit",
        "f1": "number",
        "bleu_1": "number",
        "latency_ms": "number",
        "point": "list",
        "clue_rounds": "list",
        "source_sessions": "list",
        "rotations": "list",
        "position_bias": "object",
        "exact_match": "flag",
    },
    shapes={
        "method_runtime": {
            "seed_round_ids": ["text"],
            "selected_round_ids": ["text"],
            "retrieved_round_ids": ["text"],
            "top_candidates": [
                {
                    "round_id": "text",
                    "score": "number",
                    "text_dense_score": "number",
                    "image_dense_score": "number",
                    "semantic_score": "number",
                }
            ],
        },
        "usage": {"total_tokens": "integer"},
    },
    columns={
        "mode": "mode",
        "question": "question",
        "gold": "gt",
        "pred": "pred",
        "choice": "choice",
        "em": "em",
        "exact_match": "exact_match",
        "judge": "judge",
        "judge_reasoning": "judge_reasoning",
        "f1": "f1",
        "bleu_1": "bleu_1",
        "rotations": "rotations",
        "position_bias": "position_bias",
        "latency_ms": "latency_ms",
        "total_tokens": "usage.total_tokens",
        "context_rounds": "method_runtime.selected_round_ids",
    },
    # MemEye writes no mode on older rows: a row with rotations or a choice was an MCQ.
    mcq_when=("rotations", "choice"),
    question_field="question",
    dataset_fix="Pass the dialog JSON this run was made from with --dataset PATH.",
    ranked=RankedIds(
        ids="method_runtime.seed_round_ids",
        candidates="method_runtime.top_candidates",
        candidate_id="round_id",
        score=("score",),
        # Older runs name the text channel's score semantic_score.
        text_score=("text_dense_score", "semantic_score"),
        image_score=("image_dense_score",),
    ),
    unranked_ids="method_runtime.retrieved_round_ids",
    unranked_late=1,
)
