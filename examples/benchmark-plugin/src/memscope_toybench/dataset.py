"""Reads ToyBench's dialogue file (``dialogue.toybench.json``) into one memscope dataset.

The file: ``{"name", "speakers", "sessions": [{"id", "date", "turns": [{"id", "speaker",
"text", "photo"?: {"file", "caption"}}]}], "questions": [{"id", "kind", "question",
"answer", "evidence": [turn ids]}]}``.

- Each turn is one round (``round_id`` = the turn id, ``user_text`` = ``Speaker: text``); a
  shared photo is the round's image: its caption always, its file only when the folder of
  ``--toybench-photos`` holds a real image of that name (nothing is fetched).
- Question ``N`` (1-based) is ``qid`` ``q<N>`` (``memscope.identity.qid_for``); ToyBench's
  own id (``t1`` …) stays in ``extra.toy_id``, which the run files name. The question key
  is ``identity.question_key`` over the dataset's name, the answer mode and the text, so
  the same question matches across runs.
- ``extra.kind`` and ``extra.gap`` place a question on the axes (``axes.py``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memscope.plugin import (
    DatasetError,
    DatasetRecord,
    Notice,
    QuestionRecord,
    RoundRecord,
    SessionRecord,
    media_kind,
    qid_for,
    question_key,
    read_json_file,
)

from memscope_toybench.axes import NAME

DIALOGUE_FILE = "dialogue.toybench.json"
BUNDLED = Path(__file__).with_name("data") / DIALOGUE_FILE
"""The dialogue ToyBench ships (used when a run names none)."""
MODE = "open"
"""Every ToyBench question is answered in free text."""
KINDS = ("fact", "update", "preference")


@dataclass
class ToyDataset:
    """The dataset record, and the lookups the run reader joins on."""

    record: DatasetRecord
    qid_of: dict[str, str]
    """ToyBench question id (``t1``) -> qid (``q1``)."""
    turns: set[str]


def read_dataset(path: Path, photos: Path | None = None) -> ToyDataset:
    """The dataset of ``path``.

    Raises:
        DatasetError: the file is missing, not JSON, or not a ToyBench dialogue (the message
            names the entry).
    """
    raw = read_json_file(path, error=DatasetError, what="ToyBench dialogue")
    if not isinstance(raw, dict) or not isinstance(raw.get("sessions"), list):
        raise DatasetError(
            "not a ToyBench dialogue: expected an object with a 'sessions' list",
            where=str(path),
            fix=f"Pass ToyBench's {DIALOGUE_FILE} with --dataset PATH.",
        )
    notices: list[Notice] = []
    name = str(raw.get("name") or path.stem)
    sessions, rounds, session_of = _sessions(raw["sessions"], path, photos, notices)
    questions, qid_of = _questions(raw.get("questions"), path, name, session_of, sessions)
    content_hash = hashlib.sha256(path.read_bytes()).hexdigest()
    record = DatasetRecord(
        dataset_id=f"{NAME}-{content_hash[:12]}",
        benchmark=NAME,
        task=name,
        source_path=str(path.resolve()),
        content_hash=content_hash,
        media_root=str(photos.resolve()) if photos else None,
        sessions=sessions,
        rounds=rounds,
        questions=questions,
        notices=notices,
    )
    return ToyDataset(record, qid_of, set(session_of))


def _sessions(
    raw: list[Any], path: Path, photos: Path | None, notices: list[Notice]
) -> tuple[list[SessionRecord], list[RoundRecord], dict[str, int]]:
    sessions: list[SessionRecord] = []
    rounds: list[RoundRecord] = []
    session_of: dict[str, int] = {}  # turn id -> the 1-based order of its session
    missing: list[str] = []
    for order, session in enumerate(raw, start=1):
        if not isinstance(session, dict) or not isinstance(session.get("turns"), list):
            raise DatasetError(
                f"session {order} is not an object with a 'turns' list", where=str(path)
            )
        sid = str(session.get("id") or f"s{order}")
        sessions.append(SessionRecord(sid, order, session.get("date")))
        for turn_order, turn in enumerate(session["turns"], start=1):
            if not isinstance(turn, dict) or not turn.get("id"):
                raise DatasetError(f"turn {turn_order} of session {sid} has no id", where=str(path))
            tid = str(turn["id"])
            if tid in session_of:
                raise DatasetError(f"turn id {tid!r} appears twice", where=str(path))
            photo = turn.get("photo") if isinstance(turn.get("photo"), dict) else None
            refs, files, captions = [], [], []
            if photo is not None:
                name = str(photo.get("file") or "")
                found = photos / name if photos is not None and name else None
                local = str(found) if found and media_kind(found) == "image" else None
                if photos is not None and local is None:
                    missing.append(name)
                refs, files, captions = [name], [local], [str(photo.get("caption") or "")]
            rounds.append(
                RoundRecord(
                    round_id=tid,
                    session_id=sid,
                    position=len(rounds) + 1,
                    round_order=turn_order,
                    user_text=f"{turn.get('speaker')}: {turn.get('text') or ''}",
                    image_refs=refs,
                    image_files=files,
                    image_captions=captions,
                )
            )
            session_of[tid] = order
    if missing:
        notices.append(
            Notice(
                f"{len(missing)} photo(s) are not in the --toybench-photos folder; their "
                "captions are shown instead",
                str(photos),
                tuple(missing[:3]),
            )
        )
    return sessions, rounds, session_of


def _questions(
    raw: Any, path: Path, name: str, session_of: dict[str, int], sessions: list[SessionRecord]
) -> tuple[list[QuestionRecord], dict[str, str]]:
    if not isinstance(raw, list) or not raw:
        raise DatasetError("the dialogue has no 'questions' list", where=str(path))
    questions: list[QuestionRecord] = []
    qid_of: dict[str, str] = {}
    for idx, item in enumerate(raw, start=1):
        if not isinstance(item, dict) or not item.get("id") or not item.get("question"):
            raise DatasetError(f"question {idx} has no id or no question text", where=str(path))
        if item.get("kind") not in KINDS:
            raise DatasetError(
                f"question {item['id']} has kind {item.get('kind')!r}",
                where=str(path),
                fix=f"A ToyBench kind is one of {', '.join(KINDS)}.",
            )
        evidence = [str(turn) for turn in item.get("evidence") or []]
        resolved = [turn for turn in evidence if turn in session_of]
        latest = max((session_of[turn] for turn in resolved), default=None)
        if str(item["id"]) in qid_of:
            raise DatasetError(f"question id {item['id']!r} appears twice", where=str(path))
        qid = qid_for(idx)
        qid_of[str(item["id"])] = qid
        questions.append(
            QuestionRecord(
                qid=qid,
                idx=idx,
                question_key=question_key(name, MODE, str(item["question"])),
                task=name,
                question=str(item["question"]),
                gold=str(item.get("answer") or ""),
                mode=MODE,
                clue_ids=evidence,
                clue_rounds=resolved,
                source_sessions=[
                    session.session_id
                    for session in sessions
                    if session.session_order in {session_of[turn] for turn in resolved}
                ],
                extra={
                    "toy_id": str(item["id"]),
                    "kind": item["kind"],
                    "gap": None if latest is None else len(sessions) - latest,
                },
            )
        )
    return questions, qid_of
