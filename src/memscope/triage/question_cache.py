"""A small bounded cache of the questions the question screen showed or will show next.

``j`` / ``k`` show a question from here when the background prefetch (the next few
questions of the queue) already read it, else after one short read; the least recently
used question goes when the cache is full, so its size stays bounded whatever the run's.
Thread-safe: the prefetch worker fills it while the app's thread reads it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memscope.triage.question_view import LoadedQuestion

CACHED_QUESTIONS = 40
"""Questions kept: the prefetched ones ahead, and a few behind for ``k``."""

QuestionKey = tuple[int, str]
"""(the loaded run's ``opened`` number, qid)."""


class QuestionCache:
    """Least-recently-used loaded questions by (run id, qid)."""

    def __init__(self, size: int = CACHED_QUESTIONS) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._questions: OrderedDict[QuestionKey, LoadedQuestion] = OrderedDict()

    def get(self, key: QuestionKey) -> LoadedQuestion | None:
        """The cached question (now the most recently used), None when not cached."""
        with self._lock:
            found = self._questions.get(key)
            if found is not None:
                self._questions.move_to_end(key)
            return found

    def put(self, key: QuestionKey, question: LoadedQuestion) -> None:
        """Keep ``question``, dropping the least recently used beyond the size."""
        with self._lock:
            self._questions[key] = question
            self._questions.move_to_end(key)
            while len(self._questions) > self.size:
                self._questions.popitem(last=False)

    def touch(self, keys: list[QuestionKey]) -> None:
        """Make the cached ones of ``keys`` the most recently used (the questions ahead of
        the cursor: a prefetch keeps them and lets the ones already visited go first)."""
        with self._lock:
            for key in keys:
                if key in self._questions:
                    self._questions.move_to_end(key)

    def missing(self, keys: list[QuestionKey]) -> list[QuestionKey]:
        """Those of ``keys`` not cached, in order."""
        with self._lock:
            return [key for key in keys if key not in self._questions]

    def clear(self) -> None:
        """Forget every question (another run opened)."""
        with self._lock:
            self._questions.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._questions)
