"""Which of a run's questions have a property the benchmark declares (issue 39 item 3).

A spec's ``latest_state`` and ``declines`` (``adapters.spec.QuestionMatch``) name where a
question's value is read (``column:y``, ``extra:question_type``) and which values match;
the diagnostics read these flags, never a benchmark's own labels (MemEye's ``Y3``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from memscope.errors import PluginError
from memscope.usecases.benchmarks import spec_of
from memscope.usecases.runs.question_extras import extra_columns

if TYPE_CHECKING:
    import pyarrow as pa

    from memscope.adapters.spec import QuestionMatch
    from memscope.usecases.benchmarks import Benchmark
    from memscope.usecases.runs.run_info import RunInfo


def declared_flags(table: pa.Table, match: QuestionMatch | None) -> np.ndarray:
    """``(n,)`` whether each row of ``table`` (question rows: ``qid``, ``y`` …, ``extra``)
    matches ``match`` (all False where it is None or its source is not in ``table``)."""
    flags = np.zeros(table.num_rows, dtype=bool)
    if match is None:
        return flags
    for source in match.source.split("|"):
        kind, _, name = source.strip().partition(":")
        if kind == "column" and name in table.column_names:
            values = table.column(name).to_pylist()
        elif kind == "extra" and "extra" in table.column_names:
            values = extra_columns(table, (name,))[name].tolist()
        else:
            continue
        flags |= np.array([match.matches(value) for value in values], dtype=bool)
    return flags


def all_declared(table: pa.Table, matches: tuple[QuestionMatch, ...]) -> np.ndarray:
    """Whether each row matches every one of ``matches`` (all False where there are none)."""
    if not matches:
        return np.zeros(table.num_rows, dtype=bool)
    flags = np.ones(table.num_rows, dtype=bool)
    for match in matches:
        flags &= declared_flags(table, match)
    return flags


def context_kind(run: RunInfo, family: str) -> str:
    """What the answer model of ``run`` (its method family ``family``) was given: the kind
    its benchmark declares for the family, else ``retrieval`` where it logged retrievals,
    else ``none``."""
    try:
        declared = spec_of(run.benchmark).context_kinds.get(family)
    except PluginError:
        declared = None
    if declared:
        return declared
    return "retrieval" if run.retrieval_kind in ("ranked", "unranked") else "none"


def latest_match(benchmark: str | None) -> QuestionMatch | None:
    """The benchmark's declared latest-state questions (None: it declares none, or it is
    not installed: a stored run of a removed plugin still opens, without temporal
    authority)."""
    try:
        return spec_of(benchmark).latest_state
    except PluginError:
        return None


def latest_level(match: QuestionMatch | None) -> str | None:
    """The one Y level the store may filter the latest-state questions by (MemEye's
    ``column:y`` = ``Y3``), or None: read every question and flag them after."""
    one_level = match is not None and match.source == "column:y" and len(match.values) == 1
    return match.values[0] if match is not None and one_level and not match.contains else None


def latest_label(spec: Benchmark | None) -> str:
    """What ``spec`` calls its latest-state questions in titles and explanations (its
    ``latest_state.label``: MemEye's ``Y3``), else ``latest-state``."""
    match = spec.latest_state if spec is not None else None
    return match.label if match is not None and match.label else "latest-state"


def latest_label_of(benchmark: str | None) -> str:
    """:func:`latest_label` of the benchmark named ``benchmark`` (``latest-state`` where it
    is not installed)."""
    try:
        return latest_label(spec_of(benchmark))
    except PluginError:
        return "latest-state"


def declares_latest(benchmark: str | None) -> bool:
    """Whether the benchmark named ``benchmark`` declares latest-state questions."""
    return latest_match(benchmark) is not None
