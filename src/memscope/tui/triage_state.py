"""What the user is looking at: the loaded session, the queue, the position in it and the
view parameters (re-ranking alpha, lambda, K; caption or native media).

Plain Python owned by the app's handlers; screens read it and call its methods, workers
never touch it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memscope.pipeline.rerun import DEFAULT_LAMBDA
from memscope.pipeline.triage import QueueSpec
from memscope.pipeline.triage_session import TriageSession

ALPHA_STEP = 0.1
LAMBDA_STEP = 0.01
MAX_K = 100


@dataclass
class ViewParams:
    """The re-ranking parameters of the question view."""

    alpha: float = 1.0
    lam: float = DEFAULT_LAMBDA
    k: int = 10
    scope: str = "carry"
    """``carry``: the parameters carry across questions; ``question``: each question opens
    with the run's own order (alpha 1, the run's lambda and K). Remembered with the session."""

    def reset(self, defaults: ViewParams) -> bool:
        """Back to ``defaults``' alpha, lambda and K; False when already there."""
        changed = (self.alpha, self.lam, self.k) != (defaults.alpha, defaults.lam, defaults.k)
        self.alpha, self.lam, self.k = defaults.alpha, defaults.lam, defaults.k
        return changed

    def as_json(self) -> dict[str, Any]:
        """``{"alpha", "lambda", "k"}`` (labels record it, the store remembers it)."""
        return {"alpha": round(self.alpha, 3), "lambda": round(self.lam, 4), "k": self.k}


@dataclass
class TriageState:
    """The session plus the queue (row numbers) and where the cursor is."""

    session: TriageSession
    spec: QueueSpec = field(default_factory=QueueSpec)
    rows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    position: int = 0
    qid: str | None = None
    """The question on screen (it may have left the queue after a filter change)."""
    view: ViewParams = field(default_factory=ViewParams)
    caption_mode: bool = False

    def apply(self, spec: QueueSpec, keep_qid: str | None = None) -> None:
        """Switch to the queue ``spec`` (raises InputError when its filter is invalid) and
        put the cursor on ``keep_qid`` when it is in the new queue, else at the top."""
        rows = self.session.table.select(spec)
        self.spec, self.rows = spec, rows
        self.position = 0
        target = keep_qid or self.qid
        if target is not None:
            row = self.session.table.row_of.get(target)
            found = np.flatnonzero(rows == row) if row is not None else np.zeros(0)
            if found.size:
                self.position = int(found[0])
        self.qid = self.current_qid

    @property
    def current_row(self) -> int | None:
        """The TriageTable row at the cursor (None for an empty queue)."""
        return int(self.rows[self.position]) if len(self.rows) else None

    @property
    def current_qid(self) -> str | None:
        """The qid at the cursor."""
        row = self.current_row
        return str(self.session.table.qids[row]) if row is not None else None

    def go_to(self, position: int) -> bool:
        """Put the cursor at ``position`` of the queue; False when out of range."""
        if not 0 <= position < len(self.rows):
            return False
        self.position = position
        self.qid = self.current_qid
        return True

    def move(self, step: int) -> bool:
        """Next (+1) / previous (-1) question; False at either end."""
        return self.go_to(self.position + step)

    def jump_to_qid(self, qid: str) -> bool:
        """Put the cursor on ``qid`` if it is in the queue; else show it outside the queue."""
        row = self.session.table.row_of.get(qid)
        if row is None:
            return False
        found = np.flatnonzero(self.rows == row)
        if found.size:
            self.position = int(found[0])
        self.qid = qid
        return True

    @property
    def progress(self) -> tuple[int, int]:
        """(labelled, total) in the queue."""
        return self.session.table.progress(self.rows)

    def nudge_alpha(self, direction: int) -> bool:
        """alpha ± 0.1 within [0, 1]; False when already at the bound."""
        alpha = round(min(1.0, max(0.0, self.view.alpha + direction * ALPHA_STEP)), 2)
        changed = alpha != self.view.alpha
        self.view.alpha = alpha
        return changed

    def nudge_lambda(self, direction: int) -> bool:
        """lambda ± 0.01, not below 0."""
        lam = round(max(0.0, self.view.lam + direction * LAMBDA_STEP), 4)
        changed = lam != self.view.lam
        self.view.lam = lam
        return changed

    def nudge_k(self, direction: int) -> bool:
        """K ± 1 within [1, MAX_K]."""
        k = min(MAX_K, max(1, self.view.k + direction))
        changed = k != self.view.k
        self.view.k = k
        return changed
