"""Keeping a run's suggestions current, with its pinned twin runs, and saying what changed.

A run's suggestions depend on its twin runs (the native-visual twin of a text-only run,
the clue-only oracle; :mod:`memscope.usecases.suggest.twins`). The twins are pinned when the
suggestions are first made, so ingesting another run later changes nothing; it is named
as a twin that could be used ("oracle_v could be a twin run of srag_v but is not used").
``--twin`` changes the twins, and then each question whose suggestion changed is listed
("q12 now uses oracle_v: ENC-PERC instead of USE-EVID"), so ``memscope suggest`` and the
app can tell the annotator. Suggestions are also recomputed, with the same twins, when
the run's own files changed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memscope.errors import MemscopeError
from memscope.json_types import JSONObject

if TYPE_CHECKING:
    from memscope.store import Store
    from memscope.usecases.runs.loading import RunData
    from memscope.usecases.runs.run_info import RunInfo
    from memscope.usecases.suggest.rules import Suggestion

SHOWN_CHANGES = 3
"""How many changed questions one app notice names before "(+N more)"."""


@dataclass(frozen=True)
class SuggestionChange:
    """One question whose primary suggestion changed with the twin runs it uses."""

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

    def as_dict(self) -> JSONObject:
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
    """The twins the stored suggestions were made with (None: there were none stored)."""
    twins_after: list[str]
    """The twins the suggestions use now."""
    changes: list[SuggestionChange] = field(default_factory=list)
    recomputed: bool = False
    unused_twins: list[str] = field(default_factory=list)
    """Twin runs in the store that the (pinned) suggestions do not use."""
    run_id: str = ""

    def headline(self) -> str | None:
        """One line naming the twin runs that came or went, or None when none did."""
        if self.twins_before is None or not self.changes:
            return None
        came = [t for t in self.twins_after if t not in self.twins_before]
        went = [t for t in self.twins_before if t not in self.twins_after]
        parts = [f"now using {', '.join(came)}"] if came else []
        parts += [f"no longer using {', '.join(went)}"] if went else []
        why = "; ".join(parts) or "the twin runs changed"
        return f"suggestions changed for {len(self.changes)} question(s) ({why})"

    def unused_note(self) -> str | None:
        """One line naming the twin runs the suggestions could use but do not, or None."""
        if not self.unused_twins:
            return None
        many = len(self.unused_twins) > 1
        names = ", ".join(self.unused_twins)
        used = ", ".join(self.twins_after) or "none"
        flags = " ".join(f"--twin {twin}" for twin in [*self.twins_after, *self.unused_twins])
        return (
            f"twin run{'s' if many else ''} {names} {'are' if many else 'is'} in the store but "
            f"not used by the suggestions of {self.run_id}, which keep their pinned twin runs "
            f"({used}); `{flags}` uses {'them' if many else 'it'}"
        )

    def notice(self) -> str | None:
        """The app's notice: the headline and the first few changes, else the unused twins."""
        headline = self.headline()
        if headline is None:
            return self.unused_note()
        shown = "; ".join(change.describe() for change in self.changes[:SHOWN_CHANGES])
        more = len(self.changes) - SHOWN_CHANGES
        return f"{headline}: {shown}" + (f" (+{more} more)" if more > 0 else "")


def changes_between(
    before: dict[str, Suggestion], after: dict[str, Suggestion]
) -> list[SuggestionChange]:
    """Each question whose primary code differs between two sets of suggestions (qid order)."""
    from memscope.usecases.runs.qid_order import qid_sort_key

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
    store: Store,
    run_id: str,
    *,
    force: bool = False,
    run_hash: str | None = None,
    twins: list[str] | None = None,
    keep: bool = True,
) -> SuggestionRefresh:
    """The run's suggestions, recomputed when ``force``, when none are stored, when they
    were made for other files (``run_hash``, default the stored run's, differs), when a
    pinned twin left the store, or when ``twins`` (what ``--twin`` named) differ from the
    pinned ones.

    ``keep=False``: the outcome holds no suggestions (the caller reads them from the
    store), and the stored ones are read only to name what changed with the twins.

    Raises:
        InputError: ``twins`` names a run that is not a twin of this one.
        NotFoundError: no such run.
    """
    from memscope.errors import NotFoundError
    from memscope.store import queries
    from memscope.usecases.runs.run_info import RunInfo
    from memscope.usecases.suggest import rules as suggest
    from memscope.usecases.suggest.twins import choose_twins, find_twins

    with store.read() as con:
        row = queries.get_run(con, run_id)
    if row is None:
        raise NotFoundError(f"no run {run_id!r} in the store", where=str(store.path))
    run = RunInfo.from_row(row)
    state = suggest.suggestion_state(store, run_id)
    twins_before = list(state.get("twin_run_ids") or []) if state is not None else None
    chosen = choose_twins(store, run, requested=twins, pinned=twins_before)
    unused = [twin for twin in find_twins(store, run).ids if twin not in chosen.ids]
    run_hash = run_hash if run_hash is not None else run.content_hash
    stale = state is not None and state.get("run_hash") not in (None, run_hash)
    twins_changed = twins_before is not None and not chosen.same_as(twins_before)
    # The stored ones are read only where they are returned or compared with the new ones
    # (``keep=False``: the caller reads them per question from the store).
    wanted_before = state is not None and (keep or twins_changed)
    before = suggest.load_suggestions(store, run_id) if wanted_before else {}
    if not (force or state is None or stale or not chosen.same_as(twins_before)):
        return SuggestionRefresh(before, twins_before, chosen.ids, [], False, unused, run_id)
    suggest.suggest_run(store, run_id, chosen)
    after = suggest.load_suggestions(store, run_id) if keep or twins_changed else {}
    changes = changes_between(before, after) if twins_changed else []
    return SuggestionRefresh(
        after if keep else {}, twins_before, chosen.ids, changes, True, unused, run_id
    )


def load_suggestions(
    store: Store,
    data: RunData | RunInfo,
    notes: list[str],
    say: Callable[[str], None] | None = None,
    *,
    twins: list[str] | None = None,
) -> dict[str, Suggestion]:
    """The run's failure suggestions by qid, computed and stored first when the run has
    none, they were made for an older version of its files, or ``twins`` (``--twin``)
    asks for other twin runs; problems, changes and unused twin runs go to ``notes``.
    ``data``: the loaded run, or only its description (nothing else is read from it)."""

    from memscope.usecases.runs.run_info import RunInfo

    run = data if isinstance(data, RunInfo) else data.run
    run_id = str(run.run_id)
    try:
        if say:
            say("Loading failure suggestions …")
        with store.reading():  # several reads, and a write when they are computed
            refreshed = refresh_suggestions(store, run_id, run_hash=run.content_hash, twins=twins)
        notice = refreshed.notice()
        if notice:
            notes.append(notice[:1].upper() + notice[1:])
        return dict(refreshed.suggestions)
    except MemscopeError as error:
        if twins is not None:
            raise  # the user asked for these twins: a refusal is the command's answer
        notes.append(f"Suggestions could not be loaded: {error.message}")
        return {}


def ensure_suggestions(store: Store, data: RunData | RunInfo, notes: list[str]) -> list[str]:
    """Make sure the run's failure suggestions are computed and stored (as
    :func:`load_suggestions` does) without keeping them: the app reads a question's with
    the question; the distinct primary codes come back (the matrix's "suggested CODE"
    metrics), [] when they could not be computed (why goes to ``notes``)."""
    from memscope.store.suggestions import suggested_code_set
    from memscope.usecases.runs.run_info import RunInfo

    run = data if isinstance(data, RunInfo) else data.run
    run_id = str(run.run_id)
    try:
        # Several reads (and a write when they are computed): one connection serves them.
        with store.reading():
            refreshed = refresh_suggestions(store, run_id, run_hash=run.content_hash, keep=False)
            notice = refreshed.notice()
            if notice:
                notes.append(notice[:1].upper() + notice[1:])
            with store.read() as con:
                return suggested_code_set(con, run_id)
    except MemscopeError as error:
        notes.append(f"Suggestions could not be loaded: {error.message}")
        return []


def stored_codes(store: Store, run_id: str) -> dict[str, str]:
    """qid -> the primary code of each stored suggestion of the run, for one computation
    (the matrix's counts, the lazy triage table): the caller drops it after."""
    from memscope.store.suggestions import suggested_codes

    with store.read() as con:
        return suggested_codes(con, run_id)
