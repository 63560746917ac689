"""The triage app's one service, in plain Python: everything the screens show and change.

:class:`~memscope.triage.session.service.TriageSession` owns the app's state and is built
from one module per job, each a mixin over the state (``state``) that the next builds on:

- ``store_lock``: the lock every worker takes to use the store (shared for short reads);
- ``store_access``: the store held for a thread, and the writer lease;
- ``cursor``: the queue (its spec and rows) and the cursor in it;
- ``view_params``: the re-ranking parameters (alpha, lambda, K) and their keys;
- ``questions``: one question at a time from the store, and the prefetch of the next few;
- ``suggestions``: the run's failure suggestions, stored once, read with each question;
- ``opening``: loading a run in a worker and adopting it on the app's thread;
- ``status``: the status bar's and label bar's records;
- ``position``: the remembered position;
- ``run_level``: the columns run-level numbers read; ``rerank``: their cache;
- ``search``: the memory-engine search and its progress line;
- ``records``: the plain records the screens read.

Nothing here imports Textual: the app's screens, workers and messages sit on top
(``memscope.tui``), and every behaviour is unit-tested without a terminal
(tests/unit/test_session_service.py).

Threads: ``load*``/``read*``/``write*`` methods are called from the app's thread workers and
take :attr:`~memscope.triage.session.state.SessionState.store_lock` themselves; ``adopt*``
and everything else runs on the app's thread only.
"""

from memscope.triage.session.records import StartRequest
from memscope.triage.session.rerank import compute_rerank
from memscope.triage.session.service import TriageSession

__all__ = ["StartRequest", "TriageSession", "compute_rerank"]
