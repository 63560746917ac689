"""The triage app's session: the state and every job's operations in one object.

:class:`TriageSession` is what the app owns and hands to every screen; each of its jobs
is a module of this package (see its docstring), each a mixin over ``SessionState``.
"""

from __future__ import annotations

from memscope.triage.session.opening import RunOpening
from memscope.triage.session.position import RememberedPosition
from memscope.triage.session.rerank import RerankCache
from memscope.triage.session.search import MemorySearch
from memscope.triage.session.status import SessionViews
from memscope.triage.session.view_keys import ViewControls


class TriageSession(
    RunOpening, SessionViews, RerankCache, MemorySearch, RememberedPosition, ViewControls
):
    """The app's state and the operations on it: the store and its lock, the lease, the
    loaded run, the queue and the cursor, the view parameters, the questions read, the
    suggestions, the run-level re-rank cache, the label book and the remembered position
    (``memscope.triage.session``)."""
