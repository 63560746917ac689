"""What CUE-Mem's systems are called: the paper's names of the memories, and the human
baseline's variants (as its annotation app names them), keyed by the run's method.

Kept apart from the readers so that the table layout (loaded with the registry) imports none.
"""

from __future__ import annotations

import re

MEMORY_NAMES = {
    "FUMemory": "Full Memory",
    "STMemory": "FIFO",
    "LTMemory": "NaiveRAG",
    "GAMemory": "Generative Agents",
    "MGMemory": "MemGPT",
    "RFMemory": "Reflexion",
    "AMemMemory": "A-Mem",
    "MemoryOSMemory": "MemoryOS",
    "AUGUSTUSMemory": "AUGUSTUS",
    "UniversalRAGMemory": "UniversalRAG",
}
"""The paper's names of the RQ1/RQ2 memories (upstream ``aggregate_results.MEMORY_DISPLAY_NAMES``;
the names it keeps as they are are left out)."""
HUMAN = "human"
"""The ``base_method`` of every human-baseline run."""
VARIANT_NAMES = {
    "full_multimodal": "Human (Full Multimodal)",
    "full_text": "Human (Full Text)",
    "oracle_multimodal": "Human (Oracle Multimodal)",
    "oracle_text": "Human (Oracle Text)",
}
"""The app's names of its variants (``scripts/human_baseline_demo/server.py``)."""


def human_method(variant: str) -> str:
    """The run method of a human-baseline variant (``full_multimodal`` →
    ``human_full_multimodal``; kept to the characters the app keeps in its folder name)."""
    safe = re.sub(r"[^0-9A-Za-z._-]+", "_", variant.strip()).strip("._") or "unknown_variant"
    return f"{HUMAN}_{safe}"


DISPLAY_NAMES = {
    **MEMORY_NAMES,
    **{human_method(variant): name for variant, name in VARIANT_NAMES.items()},
}
"""Row labels of ``memscope table``, keyed by the run's method."""
