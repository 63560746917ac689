"""People's verdicts on answers: correct, wrong or unsure, as append-only events.

A verdict says whether a question's answer is right, whatever the grader gave it; it is
kept apart from failure labels (a question graded correct can get one, and a verdict
never changes a label's codes). Like labels, every change is a new event committed before
the function returns - ``set`` (a verdict), ``clear`` or ``undo`` - and the current
verdict of a question for one annotator is the replay of that annotator's events in time
order (set and clear push, undo pops; the top, when a set, is the verdict). The change is
decided inside the write transaction from what the store holds then.

``memscope label RUN --question Q --verdict …`` writes them, ``memscope audit`` reads them
(``current_verdicts``); the app's key (``v``) can call :func:`record_verdict` with
:func:`next_verdict` of the current one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from memscope.errors import InputError
from memscope.usecases.labels.instants import utc_now, utc_text
from memscope.usecases.labels.replay import replay
from memscope.usecases.labels.targets import require_question, require_run, resolve_annotator

if TYPE_CHECKING:
    from memscope.store import Store

VERDICTS = ("correct", "wrong", "unsure")
"""What a person can say of an answer; ``unsure`` is kept but left out of the audit."""
CLEAR_WORDS = ("none", "clear")
"""What ``--verdict`` takes to remove the current verdict."""


@dataclass(frozen=True)
class VerdictEvent:
    """One stored verdict event."""

    event_id: int
    run_id: str
    run_hash: str | None
    qid: str
    question_key: str | None
    action: str
    verdict: str | None
    note: str | None
    annotator: str
    source: str
    created_at: datetime
    supersedes: int | None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> VerdictEvent:
        """Build from a ``store.labels.verdict_events`` row."""
        return cls(**row)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (the time in UTC, written with its ``Z``)."""
        data = dict(self.__dict__)
        data["created_at"] = utc_text(self.created_at)
        return data


def verdict_word(text: str) -> str | None:
    """A verdict as given on the command line or in a file: one of :data:`VERDICTS`, or
    None for a word that removes it (``none``, ``clear``).

    Raises:
        InputError: any other word.
    """
    word = text.strip().lower()
    if word in VERDICTS:
        return word
    if word in CLEAR_WORDS:
        return None
    raise InputError(
        f"unknown verdict {text!r}",
        fix=f"A verdict is one of {', '.join(VERDICTS)} (or none to remove it).",
    )


def next_verdict(current: str | None) -> str | None:
    """The verdict after ``current`` in the app's cycle: none → correct → wrong → unsure → none."""
    cycle: list[str | None] = [None, *VERDICTS]
    return cycle[(cycle.index(current) + 1) % len(cycle)] if current in cycle else VERDICTS[0]


def _append(
    store: Store,
    run_id: str,
    qid: str,
    *,
    annotator: str | None,
    action: str,
    verdict: str | None = None,
    note: str | None = None,
) -> VerdictEvent | None:
    """Append one verdict event decided from the stored stack (None: nothing to do)."""
    from memscope.store import labels as stored

    who = resolve_annotator(annotator)
    with store.write() as con:
        run = require_run(con, run_id)
        question = require_question(con, run_id, qid)
        history = [
            VerdictEvent.from_row(row)
            for row in stored.verdict_events(con, run_id, qid=qid, annotator=who)
        ]
        stack = replay(history).get((qid, who), [])
        top = stack[-1] if stack else None
        if action == "undo" and top is None:
            return None
        unchanged = top is not None and (top.action, top.verdict, top.note) == (
            "set",
            verdict,
            note,
        )
        if action == "set" and unchanged:
            return None
        if action == "clear" and (top is None or top.action == "clear"):
            return None
        # Stamped after every event of the question (an imported one may carry a time
        # ahead of this clock), so the new event is the one replay puts on top.
        latest = max((event.created_at for event in history), default=None)
        created_at = utc_now()
        if latest is not None and created_at <= latest:
            created_at = latest + timedelta(microseconds=1)
        event: dict[str, Any] = {
            "run_id": run_id,
            "run_hash": run["run_hash"],
            "qid": qid,
            "question_key": question["question_key"],
            "action": action,
            "verdict": verdict if action == "set" else None,
            "note": note,
            "annotator": who,
            "source": "human",
            "supersedes": top.event_id if top is not None else None,
        }
        event_id = stored.insert_verdict_event(con, event, created_at)
    return VerdictEvent(event_id=event_id, created_at=created_at, **event)


def record_verdict(
    store: Store,
    run_id: str,
    qid: str,
    verdict: str | None,
    *,
    annotator: str | None = None,
    note: str | None = None,
) -> VerdictEvent | None:
    """Give (or, with None, remove) a person's verdict on the question's answer.

    None when the question already carries that verdict (and note), or has none to remove.

    Raises:
        NotFoundError: unknown run or qid.
        InputError: a verdict not in :data:`VERDICTS`.
    """
    if verdict is not None and verdict not in VERDICTS:
        verdict = verdict_word(verdict)
    text = note if note and note.strip() else None
    if verdict is None:
        return _append(store, run_id, qid, annotator=annotator, action="clear", note=text)
    return _append(
        store, run_id, qid, annotator=annotator, action="set", verdict=verdict, note=text
    )


def undo_verdict(
    store: Store, run_id: str, qid: str, *, annotator: str | None = None
) -> VerdictEvent | None:
    """Undo the annotator's latest effective verdict change on the question (None: none)."""
    return _append(store, run_id, qid, annotator=annotator, action="undo")


def verdict_history(store: Store, run_id: str | None, qid: str | None = None) -> list[VerdictEvent]:
    """Every verdict event of a run (every run when None), oldest first."""
    from memscope.store import labels as stored

    with store.read() as con:
        return [VerdictEvent.from_row(row) for row in stored.verdict_events(con, run_id, qid=qid)]


@dataclass(frozen=True)
class CurrentVerdict:
    """The verdict a question carries now for one annotator."""

    qid: str
    verdict: str
    note: str | None
    annotator: str
    event_id: int
    given_at: datetime


def current_from(events: Iterable[VerdictEvent]) -> list[CurrentVerdict]:
    """Every (question, annotator)'s current verdict after replay, in event order."""
    found = []
    for stack in replay(events).values():
        top = stack[-1] if stack else None
        if top is not None and top.action == "set" and top.verdict is not None:
            found.append(
                CurrentVerdict(
                    top.qid, top.verdict, top.note, top.annotator, top.event_id, top.created_at
                )
            )
    return sorted(found, key=lambda verdict: verdict.event_id)


def current_verdicts(
    store: Store, run_id: str, *, annotator: str | None = None
) -> dict[str, CurrentVerdict]:
    """The current verdict per qid: of ``annotator``, or (None) the latest of anyone's."""
    result: dict[str, CurrentVerdict] = {}
    # The latest in time wins (an imported verdict made in 2020 never overrides today's),
    # the event id breaking ties, as replay orders events.
    found = current_from(verdict_history(store, run_id))
    for verdict in sorted(found, key=lambda verdict: (verdict.given_at, verdict.event_id)):
        if annotator is None or verdict.annotator == annotator:
            result[verdict.qid] = verdict
    return result


def current_verdict(store: Store, run_id: str, qid: str, *, annotator: str) -> str | None:
    """The question's current verdict of ``annotator`` (None: none): what the app shows."""
    for verdict in current_from(verdict_history(store, run_id, qid)):
        if verdict.annotator == annotator:
            return verdict.verdict
    return None


def verdicts_by_annotator(store: Store, run_id: str) -> dict[str, dict[str, str]]:
    """Per annotator, each question's current verdict (the raters of ``audit --raters``)."""
    by_annotator: dict[str, dict[str, str]] = {}
    for verdict in current_from(verdict_history(store, run_id)):
        by_annotator.setdefault(verdict.annotator, {})[verdict.qid] = verdict.verdict
    return dict(sorted(by_annotator.items()))
