"""The remembered position: where the user left off (run, question, queue, view), written
after a pause so that the next ``memscope open`` resumes there."""

from __future__ import annotations

from memscope.triage.loaded_run import LoadedRun, save_position
from memscope.triage.session.store_access import StoreAccess
from memscope.usecases.labels.queue import QueueSpec

Position = tuple[LoadedRun, str | None, QueueSpec, dict[str, float | str]]
"""What :meth:`TriageSession.take_position` hands the writer: the run, the question, the
queue spec and the view parameters with the screen."""


class RememberedPosition(StoreAccess):
    """Noting, taking and writing the position."""

    def position_moved(self) -> bool:
        """Note that the position changed; True when it should be written (after a pause)."""
        if self.read_only_reason or self.run is None:
            return False
        self._position_dirty = True
        return True

    def take_position(self, on_question: bool) -> Position | None:
        """What to write for the position when it changed since the last write, else None."""
        if not self._position_dirty or self.run is None or self.read_only_reason:
            return None
        self._position_dirty = False
        view: dict[str, float | str] = {
            **self.view.as_json(),
            "rerank_scope": self.view.scope,
            "screen": "question" if on_question else "queue",
        }
        return self.run, self.qid, self.spec, view

    def write_position(self, payload: Position) -> None:
        """Write a position taken with :meth:`take_position` (worker thread).

        Raises:
            MemscopeError: the store cannot be written.
        """
        with self.store_lock:
            save_position(self.store, *payload)
