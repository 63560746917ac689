"""Numeric-aware ordering of question ids: q2 before q10, ``D3:2`` before ``D3:10``."""

from __future__ import annotations

import re

_PARTS = re.compile(r"(\d+)")


def qid_sort_key(qid: str) -> tuple[tuple[int, int | str], ...]:
    """A key that sorts the digit runs of ``qid`` as numbers and the rest as text."""
    return tuple(
        (1, int(part)) if part.isdigit() else (0, part.lower())
        for part in _PARTS.split(str(qid))
        if part
    )
