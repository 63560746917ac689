"""MemEye (MinghoKwok/MemEye): visual granularity X1–X4 × reasoning depth Y1–Y3.

A run directory holds ``config.json``, ``metrics.json`` and ``predictions.jsonl``
(docs/formats.md §1; ``run``), over a dialog JSON (``dataset``; the store loads it in SQL).
Its questions sit on X × Y (``axes``); its table pools a sweep's tasks (``table``); its
own summaries are cross-checked (``summary``); the memory engine opens dialog files with
``dataset`` and writes its native runs in this layout with ``native_run``.
"""

from __future__ import annotations

from memscope.adapters.memeye.axes import AXES
from memscope.adapters.memeye.summary import check_stored, check_table
from memscope.adapters.memeye.table import LAYOUT
from memscope.plugin import (
    API_VERSION,
    Benchmark,
    MatrixStyle,
    ModuleDatasetReader,
    ModuleReader,
    ModuleRunWriter,
    QuestionMatch,
)

DATASET_READER = ModuleDatasetReader(
    "memscope.adapters.memeye.dataset", accepts="a dialog JSON (data/dialog/<Task>.json)"
)
RUN_WRITER = ModuleRunWriter("memscope.adapters.memeye.native_run", answers=True)
"""MemEye's layout plus ``retrieval.jsonl`` (config.json, metrics.json, predictions.jsonl)."""

BENCHMARK = Benchmark(
    api_version=API_VERSION,
    name="memeye",
    # Y3 questions ask for the latest state of something that changed.
    latest_state=QuestionMatch("column:y", ("Y3",), label="Y3"),
    # A full-context run saw the whole dialogue (SEL-CTX); a clue-only run only the gold
    # clues (the oracle twin).
    # Y2 questions join several clues (pattern association: USE-ASSOC).
    implicit=(QuestionMatch("column:y", ("Y2",), label="Y2"),),
    context_kinds={"full_context": "whole_history", "clue_only_context": "gold_evidence"},
    title="MemEye",
    run_files="MemEye predictions.jsonl + metrics.json",
    reader=ModuleReader("memscope.adapters.memeye.run", "is_memeye_run", "read_all"),
    axes=AXES,
    table=LAYOUT,
    marker_files=("predictions.jsonl", "metrics.json"),
    sniff_order=10,
    panel="rerank",
    matrix=MatrixStyle(
        corner="X ╲ Y",  # MemEye's axes are known by their letters
        legend="X = visual granularity, Y = reasoning depth",
        all_column=False,
        cell_queue="cell",
        delta_title="caption-proof Δ (B − A)",
    ),
    check_stored=check_stored,
    check_table=check_table,
    summary_files="matrices/*/summary.csv",
    dataset_reader=DATASET_READER,
    run_writer=RUN_WRITER,
)
"""MemEye's spec (entry point ``memeye`` of ``memscope.benchmarks``)."""
