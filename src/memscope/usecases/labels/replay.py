"""Replaying append-only events into each question's current state, for labels and verdicts.

Label events (``events``) and verdict events (``verdicts``) follow one rule: in time order
(then by event id), per question and annotator, ``set`` and ``clear`` push onto a stack and
``undo`` pops it; the top is the current state.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Protocol, TypeVar


class Event(Protocol):
    """What replaying needs of an event."""

    @property
    def event_id(self) -> int: ...
    @property
    def qid(self) -> str: ...
    @property
    def annotator(self) -> str: ...
    @property
    def action(self) -> str: ...
    @property
    def created_at(self) -> datetime: ...


E = TypeVar("E", bound=Event)


def in_time_order(events: Iterable[E]) -> list[E]:
    """Events in the order they happened: by time, then by event id."""
    return sorted(events, key=lambda event: (event.created_at, event.event_id))


def replay(events: Iterable[E]) -> dict[tuple[str, str], list[E]]:
    """Per (qid, annotator), the stack of effective set/clear events after replaying undos
    (in time order, whatever order ``events`` come in)."""
    stacks: dict[tuple[str, str], list[E]] = {}
    for event in in_time_order(events):
        stack = stacks.setdefault((event.qid, event.annotator), [])
        if event.action == "undo":
            if stack:
                stack.pop()
        else:
            stack.append(event)
    return stacks
