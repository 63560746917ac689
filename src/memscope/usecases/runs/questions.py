"""Naming questions the user mistyped: the nearest existing qids, for one clear error."""

from __future__ import annotations

import difflib
import re

from memscope.errors import NotFoundError

NUMBERED = re.compile(r"^q(\d+)$")


def nearest_qids(qid: str, qids: list[str], n: int = 3) -> list[str]:
    """The existing qids closest to ``qid``: by number for ``qN`` ids, else by spelling."""
    wanted = NUMBERED.match(qid.strip().lower())
    numbered = {int(m.group(1)): item for item in qids if (m := NUMBERED.match(item))}
    if wanted and numbered:
        target = int(wanted.group(1))
        return [
            numbered[number]
            for number in sorted(numbered, key=lambda number: (abs(number - target), number))[:n]
        ]
    return difflib.get_close_matches(qid, qids, n=n, cutoff=0.4)


def unknown_question(qid: str, run_id: str, qids: list[str]) -> NotFoundError:
    """The error for a qid the run does not have, naming the nearest ones."""
    close = nearest_qids(qid, qids)
    if close:
        hint = f"Did you mean {', '.join(close)}? The run has {len(qids)} questions."
    else:
        hint = "The run has no questions." if not qids else f"The run has {qids[0]}..{qids[-1]}."
    return NotFoundError(f"no question {qid!r} in run {run_id}", fix=hint)
