"""The run-level re-ranking numbers (the temporal metrics under the candidates panel): what
they need now, their computation in a worker, and the cache by parameters (they do not
depend on the question, so moving between questions never recomputes them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from memscope.errors import MemscopeError
from memscope.triage.session.run_level import RunLevelReads
from memscope.triage.session.view_params import RerankParams
from memscope.usecases.benchmarks import spec_of

if TYPE_CHECKING:
    from memscope.usecases.runs.loading import RunData

RUN_RESAMPLES = 200
"""Bootstrap resamples for the live run-level numbers (the CLI's rerun uses 10,000)."""


@dataclass(frozen=True)
class RunRerank:
    """The run-level Y3 numbers for one parameter set (``result`` None: ``error`` says why)."""

    params: RerankParams
    result: dict[str, Any] | None
    error: str | None = None


RerankKey = tuple[str, str]


@dataclass(frozen=True)
class RerankPlan:
    """What the run-level numbers need now: ``none`` (not shown for this run),
    ``cached`` (``rerank`` holds them) or ``compute`` (start a worker for ``key``; it reads
    the columns it needs itself). ``waiting`` is kept for callers that still show it."""

    action: Literal["none", "waiting", "cached", "compute"]
    key: RerankKey | None = None
    rerank: RunRerank | None = None


class RerankCache(RunLevelReads):
    """The run-level numbers for the parameters on screen, computed once each."""

    def rerank_key(self) -> RerankKey | None:
        """The cache key of the current parameters (None before a run is loaded)."""
        if self.run is None:
            return None
        return self.run.run_id, repr(sorted(self.view.as_json().items()))

    def rerank_plan(self) -> RerankPlan:
        """What showing the run-level Y3 numbers for the current parameters needs (they do
        not depend on the question, so moving between questions never recomputes them)."""
        key = self.rerank_key()
        if self.run is None or key is None:
            return RerankPlan("none")
        run = self.run_info()
        if run is None:
            return RerankPlan("none")
        # The run-level numbers are the Y3 temporal metrics under the re-rank panel; the
        # evidence panel (and a benchmark's own question panel, shown with it: DMV-Bench's)
        # does not show them, so nothing is computed for those runs.
        if run.retrieval_kind != "ranked" or spec_of(run.benchmark).panel != "rerank":
            return RerankPlan("none")
        if key in self._reranks:
            return RerankPlan("cached", key, self._reranks[key])
        return RerankPlan("compute", key)

    def start_rerank(self, key: RerankKey) -> RerankParams | None:
        """Claim the computation for ``key``: the parameters to compute with
        (:meth:`compute_rerank`), or None when it is cached, running or stale."""
        if key != self.rerank_key() or key in self._reranks or key in self._reranks_running:
            return None
        self._reranks_running.add(key)
        return self.view.as_json()

    def compute_rerank(self, run_id: str, params: RerankParams) -> RunRerank:
        """The run-level Y3 numbers of ``run_id`` for ``params`` (worker thread): the
        columns they need read from the store, computed, dropped."""
        try:
            data = self.rerank_data(run_id)
        except MemscopeError as error:
            return RunRerank(params, None, error.what)
        return compute_rerank(data, params)

    def adopt_rerank(self, key: RerankKey, rerank: RunRerank) -> bool:
        """Cache a finished computation; True when it is for the parameters on screen."""
        self._reranks_running.discard(key)
        self._reranks[key] = rerank
        return key == self.rerank_key()


def compute_rerank(data: RunData, params: RerankParams) -> RunRerank:
    """The run-level Y3 numbers of ``data`` for ``params`` (worker thread; pure computation)."""
    from memscope.usecases.rerun.run_rerank import rerun_run

    try:
        result = rerun_run(
            data,
            [params["alpha"]],
            lam=params["lambda"],
            k=int(params["k"]),
            resamples=RUN_RESAMPLES,
        )
    except MemscopeError as error:
        return RunRerank(params, None, error.what)
    return RunRerank(params, result)
