"""The memory-engine search of the question screen: text over the memory bank, or the
rounds whose images look like a round's, with each hit's text."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memscope.errors import MemscopeError
from memscope.triage.session.questions import QuestionReads
from memscope.usecases.runs.session_io import EngineStep

SEARCH_HITS = 10
"""How many rounds a memory-bank search lists."""


@dataclass(frozen=True)
class FoundRound:
    """One memory-bank search hit: the round, its score and the text it shows."""

    round_id: str
    score: float
    text: str


@dataclass(frozen=True)
class MemorySearchResult:
    """What a memory-bank search found (``error``: why it found nothing)."""

    title: str
    """What was searched for: ``search: brass compass`` or ``rounds like D3:4``."""
    hits: list[FoundRound]
    error: str | None = None


class MemorySearch(QuestionReads):
    """Searching the run's memory bank from the question screen."""

    def search_memory(
        self, query: str | None, round_id: str | None, on_step: Callable[[EngineStep], None]
    ) -> MemorySearchResult:
        """Text search over the memory bank (``query``), or the rounds whose images look
        like ``round_id``'s; never raises: a failure is the result's ``error``.

        The store lock is taken only while the search reads or writes the store, never
        across the model load or the search, so labels are saved meanwhile."""
        from memscope.usecases.runs.session_io import search_memory  # no engine library

        title = f"rounds like {round_id}" if round_id else f"search: {query}"
        run = self.run
        dataset_id = run.info.dataset_id if run is not None else ""
        try:
            hits = search_memory(
                self.store,
                self.store_lock,
                dataset_id,
                query=None if round_id else (query or ""),
                round_id=round_id,
                k=SEARCH_HITS,
                on_step=on_step,
            )
        except MemscopeError as error:
            return MemorySearchResult(title, [], error.message)
        except ImportError as error:
            return MemorySearchResult(
                title, [], f"the memory engine needs a library that is missing: {error}"
            )
        except Exception as error:  # a model library failing its own way: say so, end the line
            return MemorySearchResult(
                title, [], f"the search failed: {type(error).__name__}: {error}"
            )
        try:
            rounds = self.read_rounds([hit.round_id for hit in hits]) if hits else None
        except MemscopeError:
            rounds = None  # the hits show by id
        found = []
        for hit in hits:
            detail = rounds.get(hit.round_id) if rounds is not None else None
            text = detail.user_text if detail is not None else hit.item_id
            found.append(FoundRound(hit.round_id, hit.score, text))
        return MemorySearchResult(title, found)
