"""Memory-engine searches for the app: off its store lock, saying what they are doing.

The app serialises its workers' store connections with one lock (DuckDB allows one kind
of connection to a file per process). A search that held it from start to end kept every
label save waiting while the text model loaded: tens of seconds on a CPU.
:func:`run_memory_search` holds it only while a connection is open (through a
:class:`~memscope.store.locked.LockedStore`): reading the rounds, writing vectors it
embedded, reading the vectors to search. The model load, the embedding and the search
itself run with the lock free. Each step is reported as an :class:`EngineStep` the app
shows as a ticking line ("loading all-MiniLM-L6-v2 … 4 s"). Models stay loaded for the
process, so only the first search pays for the load.

Importing this module loads no engine library; :func:`run_memory_search` does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memscope.engine_jobs.search import SearchHit
    from memscope.store import Store


@dataclass(frozen=True)
class EngineStep:
    """What a running search does now, since when (``time.monotonic()``), how far along."""

    what: str
    """``loading all-MiniLM-L6-v2``, ``embedding round_texts · all-MiniLM-L6-v2``, ``searching 12,345 rounds``."""
    started: float
    done: int | None = None
    total: int | None = None
    """Items of work, for a step that counts them (embedding)."""

    def line(self, now: float | None = None) -> str:
        """``loading all-MiniLM-L6-v2 … 4 s`` (with ``340/12,345`` for a counted step)."""
        elapsed = max(0.0, (time.monotonic() if now is None else now) - self.started)
        count = f" {self.done or 0:,}/{self.total:,}" if self.total else ""
        return f"{self.what}{count} … {elapsed:.0f} s"


StepListener = Callable[[EngineStep], None]


class StepReporter:
    """The engine's :class:`~memscope.engine_jobs.engine.Reporter` as :class:`EngineStep`\\ s.

    A progress (embedding rounds not embedded yet) is one counted step; when it ends the
    step before it is reported again, so the line never shows finished work.
    """

    def __init__(self, listener: StepListener) -> None:
        self.listener = listener
        self.current: EngineStep | None = None

    def step(self, what: str) -> None:
        """Start a new step now."""
        self.current = EngineStep(what, time.monotonic())
        self.listener(self.current)

    def note(self, text: str) -> None:
        """Ignore the note (the device line is not worth a status line)."""

    @contextmanager
    def progress(self, label: str, total: int) -> Iterator[Callable[[int], None]]:
        """Report ``label`` with a count that ``advance(n)`` moves on."""
        before = self.current
        counted = EngineStep(label, time.monotonic(), 0, total)
        self.listener(counted)

        def advance(count: int) -> None:
            nonlocal counted
            counted = replace(counted, done=(counted.done or 0) + count)
            self.listener(counted)

        try:
            yield advance
        finally:
            if before is not None:
                self.listener(before)


def run_memory_search(
    store: Store,
    lock: AbstractContextManager[object],
    dataset_id: str,
    *,
    query: str | None = None,
    round_id: str | None = None,
    k: int = 10,
    on_step: StepListener | None = None,
) -> list[SearchHit]:
    """Rounds matching ``query`` (text search), or looking like ``round_id``'s images.

    ``lock`` is taken for each store connection only, never across the model load, the
    embedding or the search; call this from a worker thread. ``on_step`` hears each step.

    Raises:
        MemscopeError: as :func:`~memscope.engine_jobs.search.search_text` /
            :func:`~memscope.engine_jobs.search.similar_images`;
        ImportError: when a library of the engine is missing.
    """
    from memscope.engine.text import text_encoder_loaded
    from memscope.engine_jobs.engine import EngineSession
    from memscope.engine_jobs.engine_data import dataset_from_store
    from memscope.engine_jobs.search import search_dataset_text, similar_images
    from memscope.store.locked import LockedStore

    reporter = StepReporter(on_step or (lambda step: None))
    shared = LockedStore(store, lock)
    if round_id is not None:
        reporter.step(f"finding rounds that look like {round_id}")
        return similar_images(shared, dataset_id, round_id, k)
    if not (query or "").strip():
        return []
    dataset = dataset_from_store(shared, dataset_id)
    session = EngineSession(reporter=reporter)
    source = session.text_source()
    if not text_encoder_loaded(source):
        reporter.step(f"loading {source.label}")
        session.text_encoder()  # kept for the process: the next search skips this step
    reporter.step(f"searching {len(dataset.rounds):,} rounds")
    return search_dataset_text(shared, dataset, query or "", k, session=session)
