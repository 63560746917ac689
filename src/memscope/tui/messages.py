"""Messages workers post to the app: results of store and model work, in past tense.

Workers never touch widgets; they post one of these and a handler on the app (or a
screen) updates state and widgets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message

from memscope.errors import MemscopeError


@dataclass
class LoadProgressed(Message):
    """The session loader reached a new step (shown on the loading screen)."""

    text: str


@dataclass
class SessionLoaded(Message):
    """A run (or two) is loaded into memory and ready to triage."""

    session: Any
    question: str | None = None


@dataclass
class RunsScoped(Message):
    """The path opened holds several runs: show the runs screen with exactly these."""

    path: str
    run_ids: list[str]
    notes: list[str]


@dataclass
class EvidenceLoaded(Message):
    """The retrieval evidence of ``run_id`` is in memory (``channels``: per-channel scores)."""

    run_id: str
    channels: Any


@dataclass
class SuggestionsLoaded(Message):
    """The failure suggestions of ``run_id`` (qid -> Suggestion) were loaded or computed."""

    run_id: str
    suggestions: dict[str, Any]
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
class LabelSaved(Message):
    """A label change is committed to the store; ``label`` is the question's current label."""

    run_id: str
    qid: str
    label: Any
    action: str


@dataclass
class LabelFailed(Message):
    """A label change could not be written; nothing was saved."""

    run_id: str
    qid: str
    action: str
    error: MemscopeError


@dataclass
class LabelsWaiting(Message):
    """Label changes wait for a busy store; they stay queued (and journalled) and are retried."""

    count: int
    error: MemscopeError


@dataclass
class RunRerunFinished(Message):
    """Run-level Y3 numbers for the re-ranking parameters in ``params``."""

    params: dict[str, Any]
    result: dict[str, Any] | None
    error: str | None = None
    key: Any = None
    """The (run, parameters) the numbers belong to (the app caches them by it)."""


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
    clip: Any = None
    error: str | None = None
    playback: tuple[bool, str] = (False, "")
    """Whether this machine can play audio, and why not."""


@dataclass
class AudioFinished(Message):
    """The clip playing ended (``outcome``: finished or stopped)."""

    outcome: str


@dataclass
class SearchFinished(Message):
    """Memory-bank search hits (``hits``) or why there are none (``error``)."""

    title: str
    hits: list[Any]
    error: str | None = None
    search_id: int = 0
    """Which search this answers (a newer one makes an older one's answer stale)."""


@dataclass
class EngineProgressed(Message):
    """A running search reached a new step (``step``: a pipeline ``EngineStep``)."""

    search_id: int
    step: Any


@dataclass
class ProbeLoaded(Message):
    """A DMV-Bench probe's view was read (``probe``) or could not be (``error``)."""

    run_id: str
    qid: str
    probe: Any = None
    error: str | None = None
