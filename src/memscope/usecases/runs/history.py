"""Reading each question's own history from the store, as its benchmark declares it
(``Benchmark.history``; ``analysis.history``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memscope.analysis.history import Histories
from memscope.errors import PluginError
from memscope.store import queries
from memscope.usecases.benchmarks import spec_of
from memscope.usecases.runs.run_info import RunInfo


def history_key(benchmark: str) -> str | None:
    """The question attribute listing each question's history sessions, or None where the
    history is the whole dataset (the default, and for a benchmark not installed).

    Raises:
        PluginError: the spec's ``history`` is neither None nor ``extra:<key>``.
    """
    try:
        declared = spec_of(benchmark).history
    except PluginError:
        return None
    if declared is None:
        return None
    kind, _, key = declared.partition(":")
    if kind != "extra" or not key or '"' in key:
        raise PluginError(
            f"benchmark {benchmark!r} declares history {declared!r}",
            fix="declare history as extra:<attribute> (the question attribute listing its "
            "sessions) or leave it out for the whole dataset",
        )
    return key


def read_histories(
    con: Any, run: RunInfo, qids: Sequence[object], *, only: bool = False
) -> Histories | None:
    """The histories of ``qids`` (row order) of ``run`` (``con``: a store connection), or
    None where its benchmark's history is the whole dataset. ``only``: read just these
    questions' (a few, as the app's question screen needs), not the whole dataset's."""
    key = history_key(run.benchmark)
    if key is None:
        return None
    wanted = [str(qid) for qid in qids] if only else None
    found = queries.history_positions(con, run.dataset_id, key, wanted)
    return Histories.of([str(qid) for qid in qids], found)
