"""Reads a LongMemEval dataset (``longmemeval_s.json`` …, docs/formats.md §6) into one
memscope dataset record.

- Each question keeps its own haystack: ``extra.haystack`` lists its sessions in its own
  order. A session (id and content) that recurs in several questions' haystacks is stored
  once; the same id with other content is stored again as ``<id>#2`` … (so a turn never
  shows text it did not have).
- A round is a user turn and the assistant turn after it; its id is ``<session id>_<n>``,
  ``n`` the 1-based position of its first turn in the session: for a user turn, upstream's
  own turn id in its retrieval corpus. A round is evidence when one of its turns has
  ``has_answer: true``.
- qid is upstream's ``question_id``; the question key is ``question_key("longmemeval",
  "open", question_id)``, so a question pairs with itself across ``_s``, ``_m`` and
  ``_oracle``.
- ``extra`` places a question on the axes (``axes.py``) and keeps what upstream's metrics
  need: ``targets`` (the corpus ids run_retrieval.py scores as targets, per granularity).
- The file is read one question at a time (``stream.py``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from memscope.adapters.longmemeval.axes import NAME, TYPES
from memscope.adapters.longmemeval.stream import iter_json_list
from memscope.adapters.longmemeval.upstream import corpus_targets
from memscope.plugin import (
    DatasetError,
    DatasetRecord,
    JSONValue,
    Notice,
    QuestionRecord,
    RoundRecord,
    SessionRecord,
    question_key,
)

MODE = "open"
DATE_FORMAT = "%Y/%m/%d (%a) %H:%M"
FIELDS = (
    "question_id",
    "question_type",
    "question",
    "answer",
    "haystack_session_ids",
    "haystack_dates",
    "haystack_sessions",
)


@dataclass
class LmeDataset:
    """The dataset record, and what the run reader joins on."""

    record: DatasetRecord
    questions: dict[str, QuestionRecord]
    """question_id -> its record."""
    renamed: dict[str, dict[str, str]] = field(default_factory=dict)
    """question_id -> {session id as written: stored id} where they differ."""
    rounds: set[str] = field(default_factory=set)


def parse_date(text: object) -> datetime | None:
    """``2023/05/20 (Sat) 02:21`` as a datetime (None when it is not written so)."""
    if not isinstance(text, str):
        return None
    try:
        return datetime.strptime(text.strip(), DATE_FORMAT)
    except ValueError:
        return None


def read_dataset(path: Path, *, strict: bool = False) -> LmeDataset:
    """The dataset of ``path``, read one question at a time.

    Raises:
        DatasetError: the file is missing, not JSON, not a list of LongMemEval questions, or
            repeats a question id (the message names the entry).
    """
    path = path.resolve()
    digest = hashlib.sha256()
    signatures: dict[str, tuple[Any, ...]] = {}  # stored session id -> its turns
    ids_of: dict[tuple[str, int], str] = {}  # (id as written, hash of its turns) -> stored id
    session_dates: dict[str, datetime | None] = {}
    session_text: dict[str, str | None] = {}
    rounds_of: dict[str, list[RoundRecord]] = {}
    questions: dict[str, QuestionRecord] = {}
    renamed: dict[str, dict[str, str]] = {}
    bad_dates: list[str] = []
    for number, entry in enumerate(iter_json_list(path, what="dataset", digest=digest), start=1):
        where = f"{path} [question {number}]"
        _check(entry, where)
        qid = str(entry["question_id"])
        if qid in questions:
            raise DatasetError(f"question id {qid!r} appears twice", where=where)
        haystack: list[str] = []
        local: dict[str, str] = {}
        for sid, date, turns in zip(
            entry["haystack_session_ids"],
            entry["haystack_dates"],
            entry["haystack_sessions"],
            strict=True,
        ):
            sid = str(sid)
            if not isinstance(turns, list):
                raise DatasetError(f"session {sid} is not a list of turns", where=where)
            # Same id and same turns: stored once. Python's hash of the turns' tuple keys
            # the lookup (cheap: no re-serialising several GB); equality confirms it.
            signature = tuple(
                (turn.get("role"), turn.get("content"), turn.get("has_answer"))
                if isinstance(turn, dict)
                else (None, None, None)
                for turn in turns
            )
            key = (sid, hash(signature))
            sid_stored = ids_of.get(key)
            if sid_stored is not None and signatures[sid_stored] != signature:
                sid_stored = None
            if sid_stored is None:
                sid_stored = sid
                copy = 1
                while sid_stored in signatures:
                    copy += 1
                    sid_stored = f"{sid}#{copy}"
                ids_of.setdefault(key, sid_stored)
                signatures[sid_stored] = signature
                session_dates[sid_stored] = parse_date(date)
                session_text[sid_stored] = date if isinstance(date, str) else None
                rounds_of[sid_stored] = _rounds(sid_stored, turns, where)
                if parse_date(date) is None and len(bad_dates) < 3:
                    bad_dates.append(f"{where}: {sid}")
            if sid_stored != sid:
                local[sid] = sid_stored
            haystack.append(sid_stored)
        if local:
            renamed[qid] = local
        questions[qid] = _question(entry, number, haystack, local, rounds_of, session_dates)
    if not questions:
        raise DatasetError("the dataset holds no question", where=str(path))
    content_hash = digest.hexdigest()
    # Sessions in date order (then first appearance): positions run over the whole file, so
    # "later" means later in time wherever two questions' haystacks share sessions.
    names = list(signatures)
    order = sorted(range(len(names)), key=lambda i: (session_dates[names[i]] or datetime.min, i))
    sessions: list[SessionRecord] = []
    rounds: list[RoundRecord] = []
    for session_order, index in enumerate(order, start=1):
        sid = names[index]
        sessions.append(SessionRecord(sid, session_order, session_text[sid]))
        for item in rounds_of[sid]:
            item.position = len(rounds) + 1
            rounds.append(item)
    notices = (
        [Notice("session dates not written as 2023/05/20 (Sat) 02:21; ordered as found", str(path), tuple(bad_dates))]
        if bad_dates
        else []
    )  # fmt: skip
    record = DatasetRecord(
        dataset_id=f"{NAME}-{content_hash[:12]}",
        benchmark=NAME,
        task=NAME,
        source_path=str(path),
        content_hash=content_hash,
        media_root=None,
        sessions=sessions,
        rounds=rounds,
        questions=list(questions.values()),
        notices=notices,
    )
    return LmeDataset(record, questions, renamed, {item.round_id for item in rounds})


def _check(entry: Any, where: str) -> None:
    if not isinstance(entry, dict):
        raise DatasetError("not a LongMemEval question (an object)", where=where)
    missing = [name for name in FIELDS if name not in entry]
    if missing:
        raise DatasetError(
            f"not a LongMemEval question: no {', '.join(missing)}",
            where=where,
            fix="Pass upstream's longmemeval_s.json, _m.json or _oracle.json with --dataset PATH.",
        )
    lengths = {len(entry[name]) for name in FIELDS[4:] if isinstance(entry[name], list)}
    if len(lengths) != 1 or not all(isinstance(entry[name], list) for name in FIELDS[4:]):
        raise DatasetError(
            "haystack_session_ids, haystack_dates and haystack_sessions are not lists of one length",
            where=where,
        )


def _rounds(sid: str, turns: list[Any], where: str) -> list[RoundRecord]:
    """The session's rounds (a user turn and the assistant turn after it)."""
    rounds: list[RoundRecord] = []
    for n, turn in enumerate(turns, start=1):
        if not isinstance(turn, dict) or not isinstance(turn.get("content"), str):
            raise DatasetError(f"turn {n} of session {sid} has no text content", where=where)
        role = turn.get("role")
        evidence = turn.get("has_answer") is True
        if role == "user" or not rounds or rounds[-1].assistant_text:
            rounds.append(
                RoundRecord(
                    round_id=f"{sid}_{n}",
                    session_id=sid,
                    position=0,
                    round_order=len(rounds) + 1,
                    user_text=turn["content"] if role == "user" else "",
                    extra={"has_answer": evidence} if evidence else {},
                )
            )
            if role == "user":
                continue
        current = rounds[-1]
        current.assistant_text = turn["content"]
        if evidence:
            current.extra = {"has_answer": True}
    return rounds


def _question(
    entry: dict[str, Any],
    number: int,
    haystack: list[str],
    local: dict[str, str],
    rounds_of: dict[str, list[RoundRecord]],
    session_dates: dict[str, datetime | None],
) -> QuestionRecord:
    qid = str(entry["question_id"])
    answer_ids = [local.get(str(sid), str(sid)) for sid in entry.get("answer_session_ids") or []]
    evidence = [
        item.round_id for sid in haystack for item in rounds_of[sid] if item.extra.get("has_answer")
    ]
    in_haystack = [sid for sid in answer_ids if sid in set(haystack)]
    latest = max((haystack.index(sid) for sid in in_haystack), default=None)
    asked = parse_date(entry.get("question_date"))
    latest_date = None if latest is None else session_dates.get(haystack[latest])
    qtype = entry.get("question_type")
    answer = entry.get("answer")
    return QuestionRecord(
        qid=qid,
        idx=number,
        question_key=question_key(NAME, MODE, qid),
        task=NAME,
        question=str(entry["question"]),
        gold=None if answer is None else str(answer),
        mode=MODE,
        clue_ids=evidence,
        clue_rounds=evidence,
        source_sessions=in_haystack,
        extra={
            "question_type": qtype if qtype in TYPES else None,
            "abstention": "yes" if "_abs" in qid else "no",
            "evidence_sessions": len(answer_ids),
            "evidence_distance": None if latest is None else len(haystack) - 1 - latest,
            "evidence_days": (
                None
                if asked is None or latest_date is None
                else round((asked - latest_date).total_seconds() / 86400, 2)
            ),
            "question_date": entry.get("question_date"),
            "answer_is_number": isinstance(answer, (int, float)) and not isinstance(answer, bool),
            "haystack": list[JSONValue](haystack),
            "haystack_sessions": len(haystack),
            "latest_state": qtype == "knowledge-update",
            "decline": "_abs" in qid,
            "targets": {name: list[JSONValue](ids) for name, ids in corpus_targets(entry).items()},
        },
    )
