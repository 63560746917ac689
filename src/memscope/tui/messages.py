"""The app's messages: what workers report (past tense) and what screens ask of the app.

Background work runs in a ``@work`` thread on the component that shows its result; the
worker never touches widgets but posts a result message to that component, whose handler
adopts it (into the session, where it is session state) and redraws. The app's own
workers load the session and write it (labels, the position). Screens change the session
directly (``memscope.triage.session``) and post a request message only for what
the app does: switch screens, open runs, start the label writer, remember the position.
A component's private result messages live beside it (``SweepComputed``, ``ProbeRead``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

from memscope.engine_jobs.memory_search import EngineStep
from memscope.errors import MemscopeError
from memscope.triage.label_queue import LabelEvent
from memscope.triage.loaded_run import LoadedRun
from memscope.triage.session.search import FoundRound

if TYPE_CHECKING:
    from memscope.media.audio import AudioClip
    from memscope.usecases.labels.queue import QueueSpec


@dataclass
class LoadProgressed(Message):
    """The session loader reached a new step (shown on the loading screen)."""

    text: str


@dataclass
class SessionLoaded(Message):
    """A run (or two) is loaded into memory and ready to triage."""

    run: LoadedRun
    question: str | None = None


@dataclass
class RunsScoped(Message):
    """The path opened holds several runs: show the runs screen with exactly these."""

    path: str
    run_ids: list[str]
    notes: list[str]


@dataclass
class QueueCounted(Message):
    """The whole queue ``spec`` of ``run`` (drawn from its head so far) is computed: it
    replaces the head on screen."""

    run: LoadedRun
    spec: QueueSpec


@dataclass
class SuggestionsLoaded(Message):
    """The failure suggestions of ``run_id`` are stored (loaded or computed): the label bar
    and the queue show them from now on."""

    run_id: str
    codes: list[str]
    """Their distinct primary codes (the matrix's "suggested CODE" metrics)."""
    notes: list[str]


@dataclass
class WorkFailed(Message):
    """A worker failed with an error the user must see."""

    what: str
    error: MemscopeError
    fatal: bool = False
    """When True the app cannot continue (e.g. the run could not be loaded)."""


@dataclass
class RunsListed(Message):
    """The runs in the store, for the runs screen."""

    runs: list[dict[str, Any]]


@dataclass
class LabelWritten(Message):
    """The label writer's report on one op (saved, failed, or waiting for the store)."""

    event: LabelEvent


@dataclass
class ImageDecoded(Message):
    """An image file was decoded (``image``: a PIL image) or could not be (``error``)."""

    request: int
    path: str
    image: Any = None
    error: str | None = None


@dataclass
class AudioLoaded(Message):
    """An audio clip was read (``clip``) or could not be (``error``)."""

    request: int
    path: str
    clip: AudioClip | None = None
    error: str | None = None
    playback: tuple[bool, str] = (False, "")
    """Whether this machine can play audio, and why not."""


@dataclass
class AudioFinished(Message):
    """The clip playing ended (``outcome``: finished or stopped; posted to the question
    screen, which owns the player)."""

    outcome: str


@dataclass
class SearchFinished(Message):
    """Memory-bank search hits (``hits``) or why there are none (``error``); the question
    screen's search worker posts it to that screen."""

    title: str
    hits: Sequence[FoundRound | Mapping[str, object]]
    error: str | None = None
    search_id: int = 0
    """Which search this answers (a newer one makes an older one's answer stale)."""


@dataclass
class EngineProgressed(Message):
    """A running search reached a new step (posted to the question screen)."""

    search_id: int
    step: EngineStep


# -- requests: screens ask the app ------------------------------------------------------


@dataclass
class ShowScreen(Message):
    """Switch to a main screen: ``queue`` (optionally with its filter line open),
    ``question``, ``matrix`` or ``runs``."""

    name: str
    filter_focus: bool = False


@dataclass
class PositionMoved(Message):
    """The cursor, queue or view changed: remember the position (after a pause)."""


@dataclass
class QueueChanged(Message):
    """The queue spec changed: redraw what shows the queue, remember the position."""


@dataclass
class LabelsQueued(Message):
    """A label change for ``qid`` is queued: start the writer, redraw the label views."""

    qid: str


@dataclass
class OpenRuns(Message):
    """Open other runs (one, or two to compare)."""

    run_ids: list[str]
