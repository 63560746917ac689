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


def history_source(benchmark: str) -> tuple[str, str] | None:
    """How each question's history is found: ``("extra", key)`` (the question attribute
    listing its sessions) or ``("same", key)`` (the rounds sharing the question's value of
    the attribute); None where the history is the whole dataset (the default, and for a
    benchmark not installed).

    Raises:
        PluginError: the spec's ``history`` is neither None, ``extra:<key>`` nor ``same:<key>``.
    """
    try:
        declared = spec_of(benchmark).history
    except PluginError:
        return None
    if declared is None:
        return None
    kind, _, key = declared.partition(":")
    if kind not in ("extra", "same") or not key or '"' in key:
        raise PluginError(
            f"benchmark {benchmark!r} declares history {declared!r}",
            fix="declare history as extra:<attribute> (the question attribute listing its "
            "sessions), same:<attribute> (the rounds sharing the question's value) or leave "
            "it out for the whole dataset",
        )
    return kind, key


def history_key(benchmark: str) -> str | None:
    """The attribute :func:`history_source` names, or None for the whole dataset."""
    source = history_source(benchmark)
    return None if source is None else source[1]


def read_histories(
    con: Any, run: RunInfo, qids: Sequence[object], *, only: bool = False
) -> Histories | None:
    """The histories of ``qids`` (row order) of ``run`` (``con``: a store connection), or
    None where its benchmark's history is the whole dataset. ``only``: read just these
    questions' (a few, as the app's question screen needs), not the whole dataset's."""
    source = history_source(run.benchmark)
    if source is None:
        return None
    kind, key = source
    wanted = [str(qid) for qid in qids] if only else None
    read = queries.history_positions if kind == "extra" else queries.shared_history_positions
    found = read(con, run.dataset_id, key, wanted)
    return Histories.of([str(qid) for qid in qids], found)
