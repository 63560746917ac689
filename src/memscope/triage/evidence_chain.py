"""One question's evidence chain, assembled for display: answers, MCQ rotations and the
rounds that matter on a timeline.

Pure data from a loaded run (:class:`~memscope.usecases.runs.loading.RunData`), its dataset
rounds (:class:`~memscope.triage.round_index.RoundIndex`) and its candidate rows
(:mod:`memscope.triage.candidate_rows`); building it for one question is a handful of
dict and slice look-ups, so stepping through a 50,000-question run stays instant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from memscope.triage.candidate_rows import Candidate
from memscope.triage.round_index import RoundIndex, float_or_none, json_or_none
from memscope.usecases.runs.history import HistorySession
from memscope.usecases.runs.loading import RunData
from memscope.usecases.runs.question_scores import correctness

CONTEXT_ROUNDS = 1
"""Rounds shown on each side of a gold clue on the timeline (its conversational context)."""


@dataclass(frozen=True)
class Rotation:
    """One MCQ rotation: where the gold option was, what the model chose and what that said."""

    index: int
    correct_position: str
    choice: str
    chosen_text: str
    em: float | None


@dataclass(frozen=True)
class QuestionDetail:
    """What the question screen shows about the question and the model's answer."""

    qid: str
    row: int
    idx: int
    question_key: str
    task: str
    x: str
    y: str
    mode: str
    question: str
    gold: str
    pred: str
    choice: str
    em: float | None
    judge: float | None
    f1: float | None
    """Token F1 (where the benchmark grades by it), None where the run has none."""
    judge_reasoning: str
    correct: float
    options: tuple[tuple[str, str], ...]
    rotations: tuple[Rotation, ...]
    position_bias: tuple[tuple[str, int], ...]
    clue_ids: tuple[str, ...]
    clue_rounds: tuple[str, ...]
    source_sessions: tuple[str, ...]
    latency_ms: float | None = None
    """What answering cost, where the run's files record it (Zep, MemOS, MemEye)."""
    tokens: float | None = None
    asks_latest: bool = False
    """Whether the question asks for the latest state of something that changed (the
    benchmark's declared ``latest_state``): the temporal markers and metrics apply."""


def question_detail(data: RunData, row: int) -> QuestionDetail:
    """The question at ``row`` of ``data`` (rows are ordered like ``data.qids``)."""
    values = data.questions.slice(row, 1).to_pylist()[0]
    mode = values.get("mode") or ""
    em, judge = float_or_none(values.get("em")), float_or_none(values.get("judge"))
    f1 = float_or_none(values.get("f1"))
    correct = float(
        correctness(
            np.array([mode], dtype=object),
            np.array([np.nan if em is None else em]),
            np.array([np.nan if judge is None else judge]),
            np.array([np.nan if f1 is None else f1]),
        )[0]
    )
    option_sets = _option_sets(json_or_none(values.get("options")))
    rotations = _rotations(json_or_none(values.get("rotations")), option_sets)
    bias = json_or_none(values.get("position_bias"))
    position_bias = (
        tuple(sorted((str(k), int(v)) for k, v in bias.items() if isinstance(v, (int, float))))
        if isinstance(bias, dict)
        else ()
    )
    return QuestionDetail(
        qid=values["qid"],
        row=row,
        idx=int(values["idx"]),
        question_key=values.get("question_key") or "",
        task=values.get("task") or "",
        x=values.get("x") or "",
        y=values.get("y") or "",
        mode=mode,
        question=values.get("question") or "",
        gold=values.get("gold") or "",
        pred=values.get("pred") or "",
        choice=values.get("choice") or "",
        em=em,
        judge=judge,
        f1=f1,
        judge_reasoning=values.get("judge_reasoning") or "",
        correct=correct,
        options=option_sets[0] if option_sets else (),
        rotations=rotations,
        position_bias=position_bias,
        clue_ids=tuple(values.get("clue_ids") or ()),
        clue_rounds=tuple(values.get("clue_rounds") or ()),
        source_sessions=tuple(values.get("source_sessions") or ()),
        latency_ms=float_or_none(values.get("latency_ms")),
        tokens=float_or_none(values.get("total_tokens")),
        asks_latest=bool(data.evidence.asks_latest[row])
        if row < len(data.evidence.asks_latest)
        else False,
    )


def _option_sets(options: Any) -> list[tuple[tuple[str, str], ...]]:
    """Options per rotation as ((letter, text), ...); a single set or a plain list also work."""
    if isinstance(options, dict):
        options = [options]
    if not isinstance(options, list):
        return []
    if options and all(isinstance(item, str) for item in options):
        return [tuple((chr(ord("A") + i), text) for i, text in enumerate(options))]
    sets = []
    for item in options:
        if isinstance(item, dict):
            sets.append(
                tuple(
                    (str(k), str(v)) for k, v in item.items() if len(str(k)) == 1 and v is not None
                )
            )
    return sets


def _rotations(
    rotations: Any, option_sets: list[tuple[tuple[str, str], ...]]
) -> tuple[Rotation, ...]:
    if not isinstance(rotations, list):
        return ()
    result = []
    for i, item in enumerate(rotations):
        if not isinstance(item, dict):
            continue
        index = item.get("rotation_idx", i)
        index = index if isinstance(index, int) else i
        choice = str(item.get("choice") or item.get("pred") or "")
        options = dict(option_sets[index]) if 0 <= index < len(option_sets) else {}
        result.append(
            Rotation(
                index,
                str(item.get("correct_position") or ""),
                choice,
                options.get(choice, ""),
                float_or_none(item.get("em")),
            )
        )
    return tuple(result)


@dataclass(frozen=True)
class TimelineEntry:
    """One line of the timeline: a session header, a round, or a gap of skipped rounds;
    over a question's own haystack, first a ``history`` line summing it up."""

    kind: str
    session_id: str
    round_id: str = ""
    date: str | None = None
    position: int = 0
    preview: str = ""
    is_gold: bool = False
    is_latest: bool = False
    is_stale_clue: bool = False
    is_stale: bool = False
    rank: int = 0
    original_rank: int = 0
    in_top_k: bool = False
    has_image: bool = False
    has_audio: bool = False
    skipped: int = 0
    rounds: int = 0
    """A session's (or, on the ``history`` line, the whole haystack's) round count, where
    the timeline is a question's own haystack (0 elsewhere)."""
    sessions: int = 0
    """On the ``history`` line: how many sessions the question's haystack holds."""
    place: int = 0
    """A round's place 1..``history_size`` in its question's own history (0: not known)."""
    history_size: int = 0
    """How many rounds the question's own history holds (0: the timeline is the dataset's);
    a round's age is ``history_size - place``."""


@dataclass(frozen=True)
class _Shown:
    """What a timeline shows: the positions of its rounds, the gold ones, the latest clue
    and the candidate at each retrieved position."""

    positions: list[int]
    gold: set[int]
    latest: int | None
    candidates: dict[int, Candidate]


def _shown(
    detail: QuestionDetail, rounds: RoundIndex, candidates: list[Candidate], context: int
) -> _Shown:
    gold_positions = {p for p in (rounds.position(r) for r in detail.clue_rounds) if p}
    latest = max(gold_positions) if gold_positions and detail.asks_latest else None
    by_position = {c_pos: c for c in candidates if (c_pos := rounds.position(c.round_id))}
    wanted = set(gold_positions) | set(by_position)
    for position in gold_positions:
        session = rounds.session_ids[rounds.row_of[rounds.id_at_position[position]]]
        for offset in range(-context, context + 1):
            neighbour = rounds.id_at_position.get(position + offset)
            if neighbour is not None and rounds.session_ids[rounds.row_of[neighbour]] == session:
                wanted.add(position + offset)
    shown = sorted(p for p in wanted if p in rounds.id_at_position)
    return _Shown(shown, gold_positions, latest, by_position)


def _round_entry(
    rounds: RoundIndex, shown: _Shown, position: int, place: int = 0, history_size: int = 0
) -> TimelineEntry:
    round_id = rounds.id_at_position[position]
    row = rounds.row_of[round_id]
    candidate = shown.candidates.get(position)
    latest = shown.latest
    return TimelineEntry(
        kind="round",
        session_id=rounds.session_ids[row],
        round_id=round_id,
        date=rounds.dates[row],
        position=position,
        preview=rounds.table.column("user_text")[row].as_py() or "",
        is_gold=position in shown.gold,
        is_latest=position == latest,
        is_stale_clue=latest is not None and position in shown.gold and position != latest,
        is_stale=bool(candidate and candidate.is_stale),
        rank=candidate.rank if candidate else 0,
        original_rank=candidate.original_rank if candidate else 0,
        in_top_k=bool(candidate and candidate.in_top_k),
        has_image=bool(rounds.table.column("image_refs")[row].as_py() or []),
        has_audio=bool(rounds.table.column("audio_refs")[row].as_py() or []),
        place=place,
        history_size=history_size,
    )


def _grouped(rounds: RoundIndex, shown: _Shown, positions: list[int]) -> list[TimelineEntry]:
    """Rounds at ``positions`` under their sessions' headers, skipped stretches as gaps."""
    entries: list[TimelineEntry] = []
    previous_position = 0
    previous_session = None
    for position in positions:
        row = rounds.row_of[rounds.id_at_position[position]]
        session_id = rounds.session_ids[row]
        if session_id != previous_session:
            entries.append(
                TimelineEntry(kind="session", session_id=session_id, date=rounds.dates[row])
            )
            previous_session = session_id
        elif position - previous_position > 1:
            entries.append(
                TimelineEntry(
                    kind="gap", session_id=session_id, skipped=position - previous_position - 1
                )
            )
        previous_position = position
        entries.append(_round_entry(rounds, shown, position))
    return entries


def build_timeline(
    detail: QuestionDetail,
    rounds: RoundIndex,
    candidates: list[Candidate],
    context: int = CONTEXT_ROUNDS,
    history: Sequence[HistorySession] | None = None,
) -> list[TimelineEntry]:
    """The rounds that matter for a question, in dialogue order, grouped by session.

    Gold clues (for a latest-state question: the latest clue and the stale earlier ones), every retrieved
    candidate, and ``context`` rounds around each gold clue within its session; skipped
    stretches become gaps. With ``history`` (the question's own haystack), every session of
    it is listed with its date and round count, and each round says its place in that
    history (:func:`build_history_timeline`).
    """
    shown = _shown(detail, rounds, candidates, context)
    if history is not None:
        return build_history_timeline(rounds, shown, history)
    return _grouped(rounds, shown, shown.positions)


def build_history_timeline(
    rounds: RoundIndex, shown: _Shown, history: Sequence[HistorySession]
) -> list[TimelineEntry]:
    """A question's own haystack: a line summing it up, then each of its sessions in
    dialogue order (date, round count) with the rounds that matter under it, skipped
    rounds as gaps counted within the session; a round shown that its history lacks (a
    log naming another question's session) follows under its own session."""
    sessions = sorted(history, key=lambda session: session.first)
    size = sum(session.rounds for session in sessions)
    dates = [session.date for session in sessions if session.date]
    span = f"{dates[0]} – {dates[-1]}" if len(dates) > 1 else (dates[0] if dates else None)
    entries = [
        TimelineEntry(kind="history", session_id="", date=span, rounds=size, sessions=len(sessions))
    ]
    placed: set[int] = set()
    before = 0  # rounds of the history before the session
    for session in sessions:
        entries.append(
            TimelineEntry(
                kind="session", session_id=session.session_id, date=session.date,
                rounds=session.rounds,
            )
        )  # fmt: skip
        end = session.first + session.rounds
        previous = None
        for position in shown.positions:
            if not session.first <= position < end:
                continue
            if previous is not None and position - previous > 1:
                entries.append(
                    TimelineEntry(
                        kind="gap", session_id=session.session_id, skipped=position - previous - 1
                    )
                )
            previous = position
            placed.add(position)
            place = before + position - session.first + 1
            entries.append(_round_entry(rounds, shown, position, place, size))
        before += session.rounds
    outside = [position for position in shown.positions if position not in placed]
    return entries + _grouped(rounds, shown, outside)
