"""The queue on screen (its spec and rows, the run's questions by ``idx``) and the cursor
in it: filters, matrix cells, next and previous, jumping to a question."""

from __future__ import annotations

from typing import Any

import numpy as np

from memscope.errors import MemscopeError
from memscope.triage.notice import Notice
from memscope.triage.session.store_access import StoreAccess
from memscope.usecases.labels.queue import QueueSpec


class QueueCursor(StoreAccess):
    """The queue and the cursor (app thread)."""

    def apply(self, spec: QueueSpec, keep_qid: str | None = None) -> None:
        """Switch to the queue ``spec`` (raises InputError when its filter is invalid) and
        put the cursor on ``keep_qid`` when it is in the new queue, else at the top. The
        queue's head stands for it where the loading worker read only that."""
        queue = self._loaded().queue
        head = queue.head_read(spec)
        rows = head if head is not None else queue.select(spec)
        self.spec, self.rows, self.counted = spec, rows, head is None
        self.position = 0
        target = keep_qid or self.qid
        if target is not None:
            row = queue.row_of(target)
            found = np.flatnonzero(rows == row) if row is not None else np.zeros(0)
            if found.size:
                self.position = int(found[0])
        self.qid = self.current_qid

    def change_queue(self, **changes: Any) -> Notice | None:
        """Change the queue spec (filter, kind, sort, cell); a Notice when the filter is
        invalid (the queue is left as it was)."""
        if self.run is None:
            return Notice("No run is open yet.")
        try:
            self.apply(self.spec.with_changes(**changes))
        except MemscopeError as error:
            return Notice(error.message, title="Filter", severity="error")
        return None

    def open_cell_queue(self, from_matrix: bool, **changes: Any) -> Notice | None:
        """The queue of one matrix cell (from the matrix: all its questions, failing first,
        and :meth:`back_to_matrix` comes back to the queue it replaced)."""
        self.matrix_return = self.spec if from_matrix and self.run is not None else None
        extra = {"kind": "all", "sort": "correct", "descending": False} if from_matrix else {}
        return self.change_queue(**changes, **extra)

    def back_to_matrix(self) -> bool:
        """Restore the queue a matrix cell's queue replaced; False when there is none."""
        spec = self.matrix_return
        if spec is None or self.run is None:
            return False
        self.matrix_return = None
        self.apply(spec)
        return True

    @property
    def current_row(self) -> int | None:
        """The run's row at the cursor (None for an empty queue)."""
        return int(self.rows[self.position]) if len(self.rows) else None

    @property
    def current_qid(self) -> str | None:
        """The qid at the cursor."""
        row = self.current_row
        return self._loaded().queue.qid_of(row) if row is not None else None

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

    def step(self, step: int) -> Notice | None:
        """Next / previous question of the queue (from a question that left the queue: the
        nearest one in it); a Notice at either end."""
        if self.run is None:
            return Notice("No run is open yet.")
        if self.qid != self.current_qid:
            moved = self.go_to(self.position if step > 0 else self.position - 1) or self.go_to(
                self.position
            )
        else:
            moved = self.move(step)
        if moved:
            return None
        return Notice("End of the queue." if step > 0 else "Start of the queue.")

    def jump_to_qid(self, qid: str) -> bool:
        """Put the cursor on ``qid`` if it is in the queue; else show it outside the queue."""
        row = self._loaded().queue.row_of(qid)
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
        return self._loaded().queue.progress(self.rows)
