"""The test oracle for MemEye datasets: a dialog JSON read entirely in Python.

The store derives a MemEye dataset's questions in SQL (store/loaders/memeye_dataset.py),
for ingest and for the memory engine alike. This module states the same rules in plain
Python, one question at a time, so tests can hold the SQL equal to it
(tests/unit/test_identity.py) and check single rules without a store
(tests/unit/test_memeye_adapter.py). Sessions, rounds and images come from the adapter's
own ``read_sessions``, which the store's loader calls too.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from memscope.adapters.files import read_json_file
from memscope.adapters.memeye.dataset import (
    MAX_EXAMPLES,
    MAX_LEVEL_DIGITS,
    dataset_slug,
    oversized_label_notice,
    read_sessions,
    strings,
)
from memscope.errors import DatasetError
from memscope.file_kinds import read_regular
from memscope.identity import question_key
from memscope.records import DatasetRecord, Notice, QuestionRecord

QA_LIST_KEYS = ("human-annotated QAs", "human_annotated_qas", "qas")


def coordinate(labels: list[str], axis: str) -> str | None:
    """Return the highest label on one axis (``["X2", "X4"]`` gives ``"X4"``)."""
    levels = [int(label[1:]) for label in labels if label[:1] == axis and label[1:].isdigit()]
    return f"{axis}{max(levels)}" if levels else None


def parse_point(point: Any) -> tuple[list[str], list[str]] | None:
    """Split MemEye's ``point`` (``[["X2"], ["Y1"]]``) into X and Y labels.

    Returns None when ``point`` does not have that shape.
    """
    if not isinstance(point, list):
        return None
    x_labels: list[str] = []
    y_labels: list[str] = []
    seen_any = False
    for group in point:
        if not isinstance(group, list):
            continue
        for label in group:
            seen_any = True
            if not isinstance(label, str):
                continue
            label = label.strip()
            if 1 < len(label) <= MAX_LEVEL_DIGITS + 1 and label[1:].isdigit():
                if label[0] == "X":
                    x_labels.append(label)
                elif label[0] == "Y":
                    y_labels.append(label)
    if point and not seen_any:
        return None
    return x_labels, y_labels


def read_memeye_dataset(
    dialog_path: Path, image_root: Path | None, task_hint: str | None = None
) -> DatasetRecord:
    """Read a MemEye dialog JSON.

    Args:
        dialog_path: The dialog JSON file.
        image_root: The run's ``image_root`` if it exists on this machine.
        task_hint: The run's task name, used when the file names none.

    Raises:
        DatasetError: when the file is missing, not JSON or not shaped like a MemEye
            dialog file.
    """
    data = read_json_file(dialog_path, error=DatasetError, what="dialog JSON")
    where = str(dialog_path)
    if not isinstance(data, dict) or not isinstance(data.get("multi_session_dialogues"), list):
        raise DatasetError(
            "dialog JSON has no 'multi_session_dialogues' list",
            where=where,
            fix="Pass the MemEye dialog file with --dataset PATH.",
        )
    qas = next((data[key] for key in QA_LIST_KEYS if isinstance(data.get(key), list)), None)
    if qas is None:
        raise DatasetError(
            "dialog JSON has no QA list ('human-annotated QAs')",
            where=where,
            fix="Pass the MemEye dialog file with --dataset PATH.",
        )
    task = str(task_hint or dialog_path.stem).strip().lower()
    raw_bytes = read_regular(dialog_path)
    content_hash = hashlib.sha256(raw_bytes).hexdigest()
    notices: list[Notice] = []
    sessions, rounds = read_sessions(
        data["multi_session_dialogues"], dialog_path, image_root, notices
    )
    round_sessions = {r.round_id: r.session_id for r in rounds}
    questions = _read_questions(qas, task, round_sessions, where, notices)
    return DatasetRecord(
        dataset_id=f"{dataset_slug(dialog_path.stem)}-{content_hash[:12]}",
        benchmark="memeye",
        task=task,
        source_path=str(dialog_path.resolve()),
        content_hash=content_hash,
        media_root=str(image_root.resolve()) if image_root else None,
        sessions=sessions,
        rounds=rounds,
        questions=questions,
        notices=notices,
    )


def _read_questions(
    qas: list[Any],
    task: str,
    round_sessions: dict[str, str],
    where: str,
    notices: list[Notice],
) -> list[QuestionRecord]:
    questions: list[QuestionRecord] = []
    unknown_clues: list[str] = []
    bad_points: list[str] = []
    oversized: list[str] = []
    for idx, qa in enumerate(qas, start=1):
        qid = f"q{idx}"
        if not isinstance(qa, dict):  # a QA without a point: counted once, below
            qa = {}
        options = qa.get("options")
        mode = "mcq" if isinstance(options, (dict, list)) and options else "open"
        text = qa.get("question")
        text = text if isinstance(text, str) else str(text or "")
        labels = parse_point(qa.get("point"))
        if labels is None:
            bad_points.append(qid)
            labels = ([], [])
        x_labels, y_labels = labels
        if oversized_labels(qa.get("point")):
            oversized.append(qid)
        clue_ids = strings(qa.get("clue"))
        clue_rounds = [clue for clue in clue_ids if clue in round_sessions]
        if len(clue_rounds) != len(clue_ids):
            unknown_clues += [f"{qid}:{clue}" for clue in clue_ids if clue not in round_sessions]
        source_sessions = strings(qa.get("session_id")) or list(
            dict.fromkeys(round_sessions[c] for c in clue_rounds)
        )
        question_images = (
            strings(qa.get("question_image")) + strings(qa.get("question_images"))
            if "question_image" in qa or "question_images" in qa
            else []
        )
        questions.append(
            QuestionRecord(
                qid=qid,
                idx=idx,
                question_key=question_key(task, mode, text),
                task=task,
                question=text,
                gold=_optional_str(qa.get("answer")),
                mode=mode,
                x=coordinate(x_labels, "X"),
                y=coordinate(y_labels, "Y"),
                x_labels=x_labels,
                y_labels=y_labels,
                options=options if mode == "mcq" else None,
                clue_ids=clue_ids,
                clue_rounds=clue_rounds,
                source_sessions=source_sessions,
                question_images=question_images,
            )
        )
    if unknown_clues:
        notices.append(
            Notice(
                f"{len(unknown_clues)} clue id(s) name no round in the dataset; "
                "they are ignored by the retrieval metrics",
                where,
                tuple(unknown_clues[:MAX_EXAMPLES]),
            )
        )
    if oversized:
        notices.append(oversized_label_notice(len(oversized), where, oversized))
    if bad_points:
        notices.append(
            Notice(
                f"{len(bad_points)} question(s) have no usable 'point' (X/Y labels); "
                "they appear outside the matrix",
                where,
                tuple(bad_points[:MAX_EXAMPLES]),
            )
        )
    return questions


def oversized_labels(point: Any) -> bool:
    """Whether ``point`` holds an X / Y label whose level has too many digits to store."""
    return isinstance(point, list) and any(
        isinstance(label, str)
        and label.strip()[:1] in ("X", "Y")
        and label.strip()[1:].isdigit()
        and len(label.strip()) > MAX_LEVEL_DIGITS + 1
        for group in point
        if isinstance(group, list)
        for label in group
    )


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(value)
