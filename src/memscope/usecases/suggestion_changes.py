"""Suggestions that change because another run was ingested, and saying so.

A run's suggestions depend on its twin runs in the store (the native-visual twin of a
text-only run, the clue-only oracle, see :mod:`memscope.usecases.suggest`). Ingesting
such a run later changes what the rules say ("q12 now uses oracle_v: ENC-PERC instead
of USE-EVID"); this module recomputes the suggestions when the twins the run would use
differ from those they were computed with, and lists each question whose suggestion
changed, so ``memscope suggest`` and the app can tell the annotator.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memscope.errors import MemscopeError

if TYPE_CHECKING:
    from memscope.store import Store
    from memscope.usecases.loading import RunData
    from memscope.usecases.suggest import Suggestion

SHOWN_CHANGES = 3
"""How many changed questions one app notice names before "(+N more)"."""


@dataclass(frozen=True)
class SuggestionChange:
    """One question whose primary suggestion changed with the twin runs in the store."""

    qid: str
    before: str | None
    after: str | None
    twin_run_id: str | None
    """The twin the new suggestion uses, when it came with the change."""

    def describe(self) -> str:
        """``q12 now uses oracle_v: ENC-PERC instead of USE-EVID``."""
        if self.after is None:
            return f"{self.qid} no longer has a suggestion (was {self.before})"
        was = f" instead of {self.before}" if self.before else " (it had no suggestion)"
        if self.twin_run_id:
            return f"{self.qid} now uses {self.twin_run_id}: {self.after}{was}"
        return f"{self.qid} is now {self.after}{was}"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form, with the sentence."""
        return {
            "qid": self.qid,
            "before": self.before,
            "after": self.after,
            "twin_run_id": self.twin_run_id,
            "text": self.describe(),
        }


@dataclass
class SuggestionRefresh:
    """The outcome of :func:`refresh_suggestions`."""

    suggestions: dict[str, Suggestion]
    twins_before: list[str] | None
    """The twins the stored suggestions were computed with (None: there were none stored)."""
    twins_after: list[str]
    changes: list[SuggestionChange] = field(default_factory=list)
    recomputed: bool = False

    def headline(self) -> str | None:
        """One line naming the twin runs that came or went, or None when none did."""
        if self.twins_before is None or not self.changes:
            return None
        came = [t for t in self.twins_after if t not in self.twins_before]
        went = [t for t in self.twins_before if t not in self.twins_after]
        parts = [f"{', '.join(came)} now in the store"] if came else []
        parts += [f"{', '.join(went)} no longer used"] if went else []
        why = "; ".join(parts) or "the twin runs changed"
        return f"suggestions changed for {len(self.changes)} question(s) ({why})"

    def notice(self) -> str | None:
        """The app's notice: the headline and the first few changes."""
        headline = self.headline()
        if headline is None:
            return None
        shown = "; ".join(change.describe() for change in self.changes[:SHOWN_CHANGES])
        more = len(self.changes) - SHOWN_CHANGES
        return f"{headline}: {shown}" + (f" (+{more} more)" if more > 0 else "")


def twins_now(store: Store, run_id: str) -> list[str]:
    """The twin runs ``run_id``'s suggestions would use with the store as it is now."""
    from memscope.store import queries
    from memscope.usecases.suggest import find_twins

    with store.read() as con:
        run = queries.get_run(con, run_id)
    if run is None:
        return []
    return [twin for twin in find_twins(store, run) if twin]


def changes_between(
    before: dict[str, Suggestion], after: dict[str, Suggestion]
) -> list[SuggestionChange]:
    """Each question whose primary code differs between two sets of suggestions (qid order)."""
    from memscope.usecases.qid_order import qid_sort_key

    changes = []
    for qid in sorted(set(before) | set(after), key=qid_sort_key):
        old, new = before.get(qid), after.get(qid)
        old_code, new_code = (old.code if old else None), (new.code if new else None)
        if old_code == new_code:
            continue
        twin = (
            new.twin_run_id if new and (old is None or new.twin_run_id != old.twin_run_id) else None
        )
        changes.append(SuggestionChange(qid, old_code, new_code, twin))
    return changes


def refresh_suggestions(
    store: Store, run_id: str, *, force: bool = False, run_hash: str | None = None
) -> SuggestionRefresh:
    """The run's suggestions, recomputed when ``force``, when none are stored, when they
    were made for other files (``run_hash`` differs) or with other twin runs than the
    store holds now; with the questions whose suggestion changed."""
    from memscope.usecases import suggest

    state = suggest.suggestion_state(store, run_id)
    before = suggest.load_suggestions(store, run_id) if state is not None else {}
    twins_before = list(state.get("twin_run_ids") or []) if state is not None else None
    twins = twins_now(store, run_id)
    stale = state is not None and state.get("run_hash") not in (None, run_hash)
    if not (force or state is None or stale or sorted(twins) != sorted(twins_before or [])):
        return SuggestionRefresh(before, twins_before, twins)
    suggest.suggest_run(store, run_id)
    after = suggest.load_suggestions(store, run_id)
    new_state = suggest.suggestion_state(store, run_id) or {}
    twins_after = list(new_state.get("twin_run_ids") or [])
    changes = (
        changes_between(before, after)
        if twins_before is not None and sorted(twins_before) != sorted(twins_after)
        else []
    )
    return SuggestionRefresh(after, twins_before, twins_after, changes, recomputed=True)


def load_suggestions(
    store: Store, data: RunData, notes: list[str], say: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """The run's failure suggestions by qid, computed and stored first when the run has
    none, they were made for an older version of its files, or the twin runs in the store
    changed since; problems, and suggestions a new twin changed, go to ``notes``."""

    run_id = str(data.run["run_id"])
    try:
        if say:
            say("Loading failure suggestions …")
        # Recomputed also when a twin or oracle run came into the store since: the notice
        # says which questions changed and why.
        refreshed = refresh_suggestions(store, run_id, run_hash=data.run.get("content_hash"))
        notice = refreshed.notice()
        if notice:
            notes.append(notice[:1].upper() + notice[1:])
        return dict(refreshed.suggestions)
    except MemscopeError as error:
        notes.append(f"Suggestions could not be loaded: {error.message}")
        return {}
