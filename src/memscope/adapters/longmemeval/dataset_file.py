"""The memory engine's reading of a LongMemEval dataset file (the spec's ``dataset_reader``):
``memscope index`` / ``retrieve`` / ``search`` given ``longmemeval_s.json`` or its kin.

The sniffer looks at the file's first bytes only (a JSON list whose first entry names
``question_id`` and ``haystack_session_ids``); the reader is ``dataset.read_dataset``, so
the engine sees the same record, sessions and rounds an ingested run does. Each question
keeps its own haystack (``extra.haystack``), which the spec declares as its history: the
engine ranks a question among the rounds of its own haystack only.
"""

from __future__ import annotations

from pathlib import Path

from memscope.adapters.longmemeval.dataset import read_dataset
from memscope.plugin import DatasetRecord, open_regular

HEAD = 1 << 16
"""Bytes the sniffer reads: the first entry's leading fields come before its sessions."""
MARKERS = ('"question_id"', '"haystack_session_ids"')


def sniff_dataset(path: Path) -> bool:
    """Whether ``path`` looks like a LongMemEval dataset (cheap: its first 64 KiB)."""
    try:
        with open(open_regular(path), "rb", closefd=True) as handle:
            head = handle.read(HEAD).decode("utf-8", errors="ignore")
    except OSError:
        return False
    start = head.lstrip()
    return (
        start.startswith("[")
        and start[1:].lstrip().startswith("{")
        and all(marker in head for marker in MARKERS)
    )


def read_engine_dataset(path: Path, media_root: Path | None) -> DatasetRecord:
    """The dataset record of ``path`` (``media_root`` unused: LongMemEval has no images)."""
    del media_root
    return read_dataset(path).record
