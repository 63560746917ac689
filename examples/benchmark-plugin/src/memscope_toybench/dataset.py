"""Reads ToyBench's dialogue file: ``{"name", "sessions": [{"id", "date", "turns": [{"id",
"speaker", "text", "photo"?: {"file", "caption"}}]}], "questions": [{"id", "kind",
"question", "answer", "evidence": [turn ids]}]}``. A turn is a round, its photo's file used
only where ``--toybench-photos`` holds a real image of that name (else its caption).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import memscope.plugin as ms

NAME = "toybench"
"""The benchmark's name: the entry point's name, stored with every run."""
DIALOGUE_FILE = "dialogue.toybench.json"
BUNDLED = Path(__file__).with_name("data") / DIALOGUE_FILE
"""The dialogue ToyBench ships (used when a run names none)."""
MODE = "open"
KINDS = ("fact", "update", "preference")


@dataclass
class ToyDataset:
    record: ms.DatasetRecord
    qid_of: dict[str, str]
    """ToyBench question id (``t1``) -> qid (``q1``)."""


def read_dataset(path: Path, photos: Path | None = None) -> ToyDataset:
    """The dataset of ``path``; DatasetError (naming the entry) where it is not one."""
    raw: Any = ms.read_json_file(path, error=ms.DatasetError, what="ToyBench dialogue")

    def need(ok: object, what: str) -> None:
        if not ok:
            fix = f"Pass ToyBench's {DIALOGUE_FILE} with --dataset PATH."
            raise ms.DatasetError(f"not a ToyBench dialogue: {what}", where=str(path), fix=fix)

    need(isinstance(raw, dict) and isinstance(raw.get("sessions"), list), "no 'sessions' list")
    rows = ms.DatasetRows(NAME, str(raw.get("name") or path.stem), MODE)
    missing: list[str] = []
    for order, session in enumerate(raw["sessions"], start=1):
        need(
            isinstance(session, dict) and isinstance(session.get("turns"), list), f"session {order}"
        )
        sid = rows.session(str(session.get("id") or f"s{order}"), session.get("date")).session_id
        for turn in session["turns"]:
            tid = str(turn.get("id") or "") if isinstance(turn, dict) else ""
            need(tid and tid not in rows.rounds, f"a turn of {sid} has no id or a repeated one")
            photo = turn.get("photo") if isinstance(turn.get("photo"), dict) else None
            name = str(photo.get("file") or "") if photo else ""
            found = photos / name if photos is not None and name else None
            local = str(found) if found and ms.media_kind(found) == "image" else None
            missing += [name] if photo and photos is not None and local is None else []
            rows.round(
                tid,
                f"{turn.get('speaker')}: {turn.get('text') or ''}",
                image_refs=[name] if photo else [],
                image_files=[local] if photo else [],
                image_captions=[str(photo.get("caption") or "")] if photo else [],
            )
    need(isinstance(raw.get("questions"), list) and raw["questions"], "no 'questions' list")
    qid_of: dict[str, str] = {}
    for idx, item in enumerate(raw["questions"], start=1):
        toy_id = str(item.get("id") or "") if isinstance(item, dict) else ""
        need(toy_id and toy_id not in qid_of and item.get("question"), f"question {idx}")
        need(item.get("kind") in KINDS, f"question {toy_id}'s kind is not one of {KINDS}")
        evidence = [str(turn) for turn in item.get("evidence") or []]
        orders = [rows.session_order(turn) for turn in evidence if turn in rows.rounds]
        gap = len(rows.sessions) - max(orders) if orders else None
        extra = {"toy_id": toy_id, "kind": item["kind"], "gap": gap}
        question = rows.question(
            str(item["question"]), str(item.get("answer") or ""), clue_ids=evidence, extra=extra
        )
        qid_of[toy_id] = question.qid
    said = f"{len(missing)} photo(s) are not in the --toybench-photos folder; captions shown"
    notices = [ms.Notice(said, str(photos), tuple(missing[:3]))] if missing else []
    return ToyDataset(rows.record(path, media_root=photos, notices=notices), qid_of)
