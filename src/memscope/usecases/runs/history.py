"""Reading each question's own history from the store, as its benchmark declares it
(``Benchmark.history``; ``analysis.history``)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memscope.analysis.history import Histories
from memscope.errors import PluginError
from memscope.store import queries
from memscope.store import question_reads as reads
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


@dataclass(frozen=True)
class HistorySession:
    """One session of a question's own haystack, as the app's timeline lists it."""

    session_id: str
    date: str | None
    first: int
    """Its first round's position in the dataset (its rounds follow it, in order)."""
    rounds: int
    """How many rounds it holds."""
    span: int = 0
    """Its last round's position - its first's + 1 (``rounds`` where they follow each other
    unbroken, as every reader numbers them)."""


class SessionIndex:
    """The sessions of a dataset by id, for looking up each question's own haystack (read
    once per run, :func:`read_session_index`)."""

    def __init__(self, key: str, rows: Sequence[tuple[str, str | None, int, int, int]]) -> None:
        self.key = key
        """The question attribute that lists its haystack's session ids."""
        self._sessions = {
            sid: HistorySession(sid, date, first, rounds, last - first + 1)
            for sid, date, first, rounds, last in rows
        }

    def haystack(self, extra: object) -> tuple[HistorySession, ...]:
        """The sessions of a question's haystack (``extra``: its stored attributes, as JSON
        text or parsed), each once, in dialogue order; ids the dataset lacks are left out."""
        if isinstance(extra, str):
            try:
                extra = json.loads(extra)
            except ValueError:
                extra = None
        listed = extra.get(self.key) if isinstance(extra, dict) else None
        if not isinstance(listed, list):
            return ()
        found = {str(sid): self._sessions.get(str(sid)) for sid in listed}
        return tuple(sorted((s for s in found.values() if s is not None), key=lambda s: s.first))


def read_session_index(con: Any, run: RunInfo) -> SessionIndex | None:
    """The dataset's sessions by id where ``run``'s benchmark lists each question's own
    haystack (``extra:<key>``); None where the history is the whole dataset or one
    conversation shared by several questions (``same:<key>``), whose timeline is the
    dataset's."""
    source = history_source(run.benchmark)
    if source is None or source[0] != "extra":
        return None
    return SessionIndex(source[1], reads.session_spans(con, run.dataset_id))


def histories_of(
    qids: Sequence[str], sessions: Mapping[str, Sequence[HistorySession]]
) -> Histories | None:
    """The histories of ``qids`` (row order) from their haystacks' sessions, without another
    read: a session's rounds are the positions ``first`` … ``first + rounds - 1``. None when
    a session's positions are not one unbroken stretch (then read them,
    :func:`read_histories`)."""
    found: dict[str, list[int]] = {}
    for qid in qids:
        positions: set[int] = set()
        for session in sessions.get(str(qid), ()):
            if session.span != session.rounds:
                return None
            positions.update(range(session.first, session.first + session.rounds))
        found[str(qid)] = sorted(positions)
    return Histories.of([str(qid) for qid in qids], found)
