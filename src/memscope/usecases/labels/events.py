"""Failure labels: append-only events, the current label derived from them, undo, export.

Every change is a new event - set, clear or undo - committed before the function returns,
so a label survives the process being killed right after. The current label of a
question for one annotator is found by replaying that annotator's events in time order
(``created_at``, UTC; the event id breaks ties): set and clear push onto a stack, undo pops
the latest one; the top of the stack, when it is a set, is the current label. So an event
imported from another store takes its place by when it was made, not by when it arrived,
and a new local event is stamped after every event of its question it builds on. An
event's ``supersedes`` names the event it replaced (for an undo, the event it undid), so
the whole history stays readable.

A change is decided inside the write transaction, from the label the store holds then,
never from a copy a caller read earlier: :func:`edit_codes` adds or removes codes and
:func:`note_label` changes only the note, so a label another process wrote meanwhile
(``memscope label`` beside the app) is built on, not overwritten. A change that keeps the
codes keeps the label's provenance (``accepted_from`` and the accepted suggestion).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from memscope.errors import InputError, NotFoundError
from memscope.usecases.labels.instants import utc_now, utc_text
from memscope.usecases.labels.replay import in_time_order, replay
from memscope.usecases.labels.targets import require_question, require_run, resolve_annotator

if TYPE_CHECKING:
    from memscope.store import Store
    from memscope.taxonomy import Taxonomy

SOURCES = ("human", "rule", "import")
ACCEPTED_FROM = "accepted_from"
"""Key of a label's params naming the suggestion rule the annotator accepted."""
SUGGESTION_PARAMS = "suggestion"
"""Key of a label's params holding the accepted suggestion's own code, rule and numbers."""
ACTIONS = ("set", "clear", "undo")


@dataclass(frozen=True)
class LabelEvent:
    """One stored label event."""

    event_id: int
    run_id: str
    run_hash: str | None
    qid: str
    question_key: str | None
    action: str
    codes: tuple[str, ...]
    primary: str | None
    note: str | None
    annotator: str
    source: str
    taxonomy_version: str
    params: dict[str, Any] | None
    created_at: datetime
    supersedes: int | None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> LabelEvent:
        """Build from a ``store.labels.events`` row."""
        return cls(
            event_id=row["event_id"],
            run_id=row["run_id"],
            run_hash=row["run_hash"],
            qid=row["qid"],
            question_key=row["question_key"],
            action=row["action"],
            codes=tuple(row["codes"]),
            primary=row["primary_code"],
            note=row["note"],
            annotator=row["annotator"],
            source=row["source"],
            taxonomy_version=row["taxonomy_version"],
            params=row["params"],
            created_at=row["created_at"],
            supersedes=row["supersedes"],
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (the time in UTC, written with its ``Z``)."""
        data = dict(self.__dict__)
        data["codes"] = list(self.codes)
        data["created_at"] = utc_text(self.created_at)
        return data


@dataclass(frozen=True)
class CurrentLabel:
    """The label a question carries now for one annotator (derived from the events)."""

    run_id: str
    run_hash: str | None
    qid: str
    question_key: str | None
    codes: tuple[str, ...]
    primary: str | None
    note: str | None
    annotator: str
    source: str
    taxonomy_version: str
    params: dict[str, Any] | None
    labelled_at: datetime
    first_labelled_at: datetime
    event_id: int


def _now() -> datetime:
    return utc_now()


def _current_from(events: list[LabelEvent]) -> dict[tuple[str, str], CurrentLabel]:
    first_set: dict[tuple[str, str], datetime] = {}
    for event in in_time_order(events):
        if event.action == "set":
            first_set.setdefault((event.qid, event.annotator), event.created_at)
    current: dict[tuple[str, str], CurrentLabel] = {}
    for key, stack in replay(events).items():
        if not stack or stack[-1].action != "set":
            continue
        top = stack[-1]
        current[key] = CurrentLabel(
            run_id=top.run_id,
            qid=top.qid,
            question_key=top.question_key,
            codes=top.codes,
            primary=top.primary,
            note=top.note,
            annotator=top.annotator,
            source=top.source,
            taxonomy_version=top.taxonomy_version,
            params=top.params,
            labelled_at=top.created_at,
            first_labelled_at=first_set[key],
            event_id=top.event_id,
            run_hash=top.run_hash,
        )
    return current


@dataclass(frozen=True)
class _Change:
    """The event a change appends, decided from the label the store holds."""

    action: str
    codes: tuple[str, ...] = ()
    primary: str | None = None
    note: str | None = None
    source: str = "human"
    params: dict[str, Any] | None = None


Decide = Callable[[list[LabelEvent]], _Change | None]
"""Given the question's effective stack (oldest first), the change to append (None: none)."""


def _top_set(stack: list[LabelEvent]) -> LabelEvent | None:
    """The current label's event: the top of the stack when it is a set."""
    return stack[-1] if stack and stack[-1].action == "set" else None


def _provenance(params: dict[str, Any] | None) -> dict[str, Any]:
    """The accepted rule and suggestion of a label's params (empty: typed by hand)."""
    _view, accepted, suggestion = split_params(params)
    kept: dict[str, Any] = {}
    if accepted is not None:
        kept[ACCEPTED_FROM] = accepted
    if suggestion is not None:
        kept[SUGGESTION_PARAMS] = suggestion
    return kept


def _append(
    store: Store,
    run_id: str,
    qid: str,
    *,
    annotator: str | None,
    decide: Decide,
    taxonomy: Taxonomy,
) -> LabelEvent | None:
    """Append the event ``decide`` picks from the stored label, in one write transaction.

    None when ``decide`` finds nothing to do (an undo with nothing to undo, a code added
    that the label already has).
    """
    from memscope.store import labels as stored

    who = resolve_annotator(annotator)
    with store.write() as con:
        run = require_run(con, run_id)
        cache_key = (str(store.path), run_id, run["run_hash"], run["dataset_id"])
        question = require_question(con, run_id, qid, cache_key)
        history = [
            LabelEvent.from_row(row) for row in stored.events(con, run_id, qid=qid, annotator=who)
        ]
        stack = replay(history).get((qid, who), [])
        change = decide(stack)
        if change is None:
            return None
        if change.source not in SOURCES:
            raise InputError(
                f"unknown label source {change.source!r}",
                fix=f"Valid sources: {', '.join(SOURCES)}.",
            )
        supersedes = stack[-1].event_id if stack else None
        # Stamped after every event of the question (an imported one may carry a time
        # ahead of this clock), so the new event is the one replay puts on top.
        latest = max((event.created_at for event in history), default=None)
        created_at = _now()
        if latest is not None and created_at <= latest:
            created_at = latest + timedelta(microseconds=1)
        event = {
            "run_id": run_id,
            "run_hash": run["run_hash"],
            "qid": qid,
            "question_key": question["question_key"],
            "action": change.action,
            "codes": list(change.codes),
            "primary_code": change.primary if change.action == "set" else None,
            "note": change.note,
            "annotator": who,
            "source": change.source,
            "taxonomy_version": taxonomy.version,
            "params": change.params,
            "supersedes": supersedes,
        }
        event_id = stored.insert_event(con, event, created_at)
    return LabelEvent(
        event_id=event_id,
        run_id=run_id,
        run_hash=run["run_hash"],
        qid=qid,
        question_key=question["question_key"],
        action=change.action,
        codes=tuple(change.codes),
        primary=event["primary_code"],
        note=change.note,
        annotator=who,
        source=change.source,
        taxonomy_version=taxonomy.version,
        params=change.params,
        created_at=created_at,
        supersedes=supersedes,
    )


def _taxonomy(taxonomy: Taxonomy | None) -> Taxonomy:
    if taxonomy is not None:
        return taxonomy
    from memscope.taxonomy import load_taxonomy

    return load_taxonomy()


def _known_codes(taxonomy: Taxonomy, codes: Iterable[str]) -> list[str]:
    """The codes by their taxonomy names, each once, in order (NotFoundError for an unknown one)."""
    chosen: list[str] = []
    for code in codes:
        name = taxonomy.require(code).code
        if name not in chosen:
            chosen.append(name)
    return chosen


def record_label(
    store: Store,
    run_id: str,
    qid: str,
    *,
    codes: list[str],
    primary: str | None = None,
    note: str | None = None,
    annotator: str | None = None,
    source: str = "human",
    params: dict[str, Any] | None = None,
) -> LabelEvent:
    """Label a question with failure codes (the first is primary unless ``primary`` says).

    When the codes and primary are the ones the question carries already (a note added
    with the same codes), the label keeps its params and provenance (``accepted_from``),
    overridden by any ``params`` given. Committed to the store before it returns.

    Raises:
        NotFoundError: unknown run, qid (naming the nearest qids) or code (listing the valid ones).
        InputError: no code, a primary not among the codes, an unknown source.
    """
    taxonomy = _taxonomy(None)
    chosen = _known_codes(taxonomy, codes)
    if not chosen:
        raise InputError(
            "a label needs at least one failure code",
            fix=f"Valid codes: {', '.join(taxonomy.names)}.",
        )
    first = taxonomy.require(primary).code if primary else chosen[0]
    if first not in chosen:
        raise InputError(f"the primary code {first} is not among the codes {', '.join(chosen)}")

    def decide(stack: list[LabelEvent]) -> _Change:
        current = _top_set(stack)
        merged = params
        if current is not None and list(current.codes) == chosen and current.primary == first:
            merged = {**(current.params or {}), **(params or {})} or None
        return _Change("set", tuple(chosen), first, note, source, merged)

    event = _append(store, run_id, qid, annotator=annotator, decide=decide, taxonomy=taxonomy)
    assert event is not None  # a set always appends
    return event


def edit_codes(
    store: Store,
    run_id: str,
    qid: str,
    *,
    add: Iterable[str] = (),
    remove: Iterable[str] = (),
    annotator: str | None = None,
    params: dict[str, Any] | None = None,
) -> LabelEvent | None:
    """Add and remove codes on the label the store holds now (the app's code keys).

    The note is kept; the primary code too while it stays. Removing the last code clears
    the label. A change that leaves the codes as they are appends nothing (None), so a
    change applied twice lands once. Changed codes are the annotator's own: the label
    drops ``accepted_from`` and records ``params`` (the view's).

    Raises:
        NotFoundError: unknown run, qid or code.
    """
    taxonomy = _taxonomy(None)
    adding = _known_codes(taxonomy, add)
    removing = set(_known_codes(taxonomy, remove))

    def decide(stack: list[LabelEvent]) -> _Change | None:
        current = _top_set(stack)
        before = list(current.codes) if current is not None else []
        after = [code for code in before if code not in removing]
        after += [code for code in adding if code not in after and code not in removing]
        if after == before:
            return None
        if not after:
            return _Change("clear", params=params)
        primary = current.primary if current is not None and current.primary in after else None
        note = current.note if current is not None else None
        return _Change("set", tuple(after), primary or after[0], note, "human", params)

    return _append(store, run_id, qid, annotator=annotator, decide=decide, taxonomy=taxonomy)


def note_label(
    store: Store,
    run_id: str,
    qid: str,
    *,
    note: str | None,
    annotator: str | None = None,
) -> LabelEvent | None:
    """Set (or, with None or "", remove) the note of the question's current label.

    Codes, primary, source, params and provenance (``accepted_from``) stay as they are.
    None when the note is already that.

    Raises:
        InputError: the question has no label now (a note goes with a label).
    """
    taxonomy = _taxonomy(None)
    text = note if note and note.strip() else None
    who = resolve_annotator(annotator)

    def decide(stack: list[LabelEvent]) -> _Change | None:
        current = _top_set(stack)
        if current is None:
            raise InputError(
                f"{qid} of {run_id} has no label by {who} yet: a note goes with a label",
                fix=f"Label it and add the note at once: memscope label {run_id} "
                f"--question {qid} --code CODE --note TEXT (or --accept --note TEXT).",
            )
        if current.note == text:
            return None
        return _Change("set", current.codes, current.primary, text, current.source, current.params)

    return _append(store, run_id, qid, annotator=annotator, decide=decide, taxonomy=taxonomy)


def clear_label(
    store: Store,
    run_id: str,
    qid: str,
    *,
    annotator: str | None = None,
    note: str | None = None,
    params: dict[str, Any] | None = None,
) -> LabelEvent:
    """Remove a question's current label (a new ``clear`` event; history is kept)."""
    event = _append(
        store,
        run_id,
        qid,
        annotator=annotator,
        decide=lambda _stack: _Change("clear", note=note, params=params),
        taxonomy=_taxonomy(None),
    )
    assert event is not None
    return event


def can_undo(store: Store, run_id: str, qid: str, *, annotator: str | None = None) -> bool:
    """Whether :func:`undo_label` would find a set or clear to undo (a read-only look)."""
    from memscope.store import labels as stored

    who = resolve_annotator(annotator)
    if not store.exists:
        return False
    with store.read() as con:
        history = [
            LabelEvent.from_row(row) for row in stored.events(con, run_id, qid=qid, annotator=who)
        ]
    return bool(replay(history).get((qid, who), []))


def undo_label(
    store: Store, run_id: str, qid: str, *, annotator: str | None = None
) -> LabelEvent | None:
    """Undo the annotator's latest effective set or clear on the question; None when there is none."""
    return _append(
        store,
        run_id,
        qid,
        annotator=annotator,
        decide=lambda stack: _Change("undo") if stack else None,
        taxonomy=_taxonomy(None),
    )


def accept_suggestion(
    store: Store,
    run_id: str,
    qid: str,
    *,
    annotator: str | None = None,
    params: dict[str, Any] | None = None,
    note: str | None = None,
) -> LabelEvent:
    """Label the question with its primary suggested code, as the annotator's own decision.

    Accepting is a human decision: the event's source is ``human``; its params are the
    view's (alpha, lambda, K) at the moment of labelling plus ``accepted_from`` (the rule)
    and ``suggestion`` (the suggestion's own code, rule, numbers and twin run), kept apart
    so an export can tell the two kinds of parameter from each other.

    Suggestions are computed first when the run has none stored.

    Raises:
        NotFoundError: the question has no suggestion (it did not fail, or no rule explains it).
    """
    from memscope.usecases.runs.question_read import read_suggestion
    from memscope.usecases.suggest.rules import suggest_run, suggestion_state

    if suggestion_state(store, run_id) is None:
        with store.read() as con:
            require_run(con, run_id)
        suggest_run(store, run_id)
    suggestion = read_suggestion(store, run_id, qid)  # this question's alone, not the run's
    if suggestion is None:
        with store.read() as con:
            require_question(con, run_id, qid)
        raise NotFoundError(
            f"no suggestion for {qid} in run {run_id}",
            fix="Only failed questions that a rule explains get one; label it with --code CODE instead.",
        )
    merged = {
        **(params or {}),
        ACCEPTED_FROM: suggestion.rule,
        SUGGESTION_PARAMS: {
            "code": suggestion.code,
            "rule": suggestion.rule,
            "numbers": suggestion.numbers,
            "twin_run_id": suggestion.twin_run_id,
        },
    }
    return record_label(
        store,
        run_id,
        qid,
        codes=[suggestion.code],
        note=note,
        annotator=annotator,
        source="human",
        params=merged,
    )


def split_params(
    params: dict[str, Any] | None,
) -> tuple[dict[str, Any] | None, str | None, dict[str, Any] | None]:
    """A label's params as (the view's parameters, the accepted rule, the suggestion's own).

    Labels accepted before accepting counted as human carry ``{"rule": …}`` with source
    ``rule``; that rule is reported as ``accepted_from`` too.
    """
    if not params:
        return params, None, None
    view = {k: v for k, v in params.items() if k not in (ACCEPTED_FROM, SUGGESTION_PARAMS)}
    accepted = params.get(ACCEPTED_FROM)
    suggestion = params.get(SUGGESTION_PARAMS)
    if accepted is None and "rule" in view:
        accepted = view.pop("rule")
    return (view or None), accepted, suggestion


def label_history(store: Store, run_id: str | None, qid: str | None = None) -> list[LabelEvent]:
    """Every label event of a run (every run when None), oldest first, optionally one question's."""
    from memscope.store import labels as stored

    with store.read() as con:
        return [LabelEvent.from_row(row) for row in stored.events(con, run_id, qid=qid)]


def current_labels(
    store: Store, run_id: str, *, annotator: str | None = None
) -> dict[str, CurrentLabel]:
    """The current label per qid: of ``annotator``, or (None) the latest of any annotator."""
    from memscope.store import labels as stored

    with store.read() as con:
        events = [
            LabelEvent.from_row(row) for row in stored.events(con, run_id, annotator=annotator)
        ]
    result: dict[str, CurrentLabel] = {}
    # The latest in time wins (an imported label made in 2020 never overrides today's).
    for (qid, _), label in sorted(
        _current_from(events).items(), key=lambda item: (item[1].labelled_at, item[1].event_id)
    ):
        result[qid] = label
    return result


def current_labels_by_annotator(store: Store, run_id: str | None) -> list[CurrentLabel]:
    """Every annotator's current label on every question (of a run, or of all runs), by event order."""
    from memscope.store import labels as stored

    with store.read() as con:
        events = [LabelEvent.from_row(row) for row in stored.events(con, run_id)]
    by_run: dict[str, list[LabelEvent]] = {}
    for event in events:
        by_run.setdefault(event.run_id, []).append(event)
    labels = [
        label for run_events in by_run.values() for label in _current_from(run_events).values()
    ]
    return sorted(labels, key=lambda label: label.event_id)


def annotators(store: Store, run_id: str) -> list[str]:
    """Everyone who has label events on the run."""
    return sorted({event.annotator for event in label_history(store, run_id)})


def agreement(store: Store, run_id: str, first: str, second: str) -> dict[str, Any]:
    """Cohen's kappa between two annotators on the questions both currently label.

    Overall on the primary codes; per code on "the question carries this code"; and on
    the verdicts (correct / wrong / unsure) of the questions both gave one
    (``verdicts``; None when they share none).

    Raises:
        NotFoundError: an annotator has neither labels nor verdicts on the run.
        InputError: the two never labelled nor judged the same question.
    """
    from memscope.analysis.agreement import cohen_kappa, presence_kappas
    from memscope.usecases.labels.verdicts import verdicts_by_annotator

    if first == second:
        raise InputError("--annotators needs two different names")
    known = annotators(store, run_id)
    judged = verdicts_by_annotator(store, run_id)
    labels = {}
    for name in (first, second):
        if name not in known and name not in judged:
            everyone = sorted(set(known) | set(judged))
            listed = ", ".join(everyone) if everyone else "nobody yet"
            raise NotFoundError(
                f"annotator {name!r} has no labels on run {run_id}", fix=f"Labelled by: {listed}."
            )
        labels[name] = current_labels(store, run_id, annotator=name) if name in known else {}
    verdicts_first, verdicts_second = judged.get(first, {}), judged.get(second, {})
    both_judged = [qid for qid in verdicts_first if qid in verdicts_second]
    verdicts = (
        {
            **cohen_kappa(
                [verdicts_first[qid] for qid in both_judged],
                [verdicts_second[qid] for qid in both_judged],
            ).as_dict(),
            "qids": both_judged,
        }
        if both_judged
        else None
    )
    shared = [qid for qid in labels[first] if qid in labels[second]]
    if not shared and verdicts is not None:
        return {
            "run": run_id,
            "annotators": [first, second],
            "n": 0,
            "only_first": len(labels[first]),
            "only_second": len(labels[second]),
            "primary": cohen_kappa([], []).as_dict(),
            "per_code": {},
            "qids": [],
            "verdicts": verdicts,
        }
    if not shared:
        raise InputError(
            f"{first} and {second} have not both labelled any question of run {run_id}",
            fix="Kappa needs questions both annotators labelled.",
        )
    primary_first = [labels[first][qid].primary or "" for qid in shared]
    primary_second = [labels[second][qid].primary or "" for qid in shared]
    codes_first = [labels[first][qid].codes for qid in shared]
    codes_second = [labels[second][qid].codes for qid in shared]
    used = sorted({code for codes in codes_first + codes_second for code in codes})
    return {
        "run": run_id,
        "annotators": [first, second],
        "n": len(shared),
        "only_first": len(labels[first]) - len(shared),
        "only_second": len(labels[second]) - len(shared),
        "primary": cohen_kappa(primary_first, primary_second).as_dict(),
        "per_code": {
            code: kappa.as_dict()
            for code, kappa in presence_kappas(codes_first, codes_second, used).items()
        },
        "qids": shared,
        "verdicts": verdicts,
    }
