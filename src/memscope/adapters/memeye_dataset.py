"""Reads a MemEye dialog JSON (sessions, rounds, images, captions, QAs) into records.

The format is MemEye's ``benchmark/dataset.py``: ``multi_session_dialogues`` (sessions in
replay order, each with ``dialogues`` rounds) and a QA list under ``"human-annotated QAs"``
(or ``human_annotated_qas`` / ``qas``). Image paths are resolved the way MemEye resolves
them; a file that cannot be found is recorded as missing, never fatal.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from memscope.adapters.files import read_json_file
from memscope.errors import DatasetError
from memscope.records import DatasetRecord, Notice, QuestionRecord, RoundRecord, SessionRecord

QA_LIST_KEYS = ("human-annotated QAs", "human_annotated_qas", "qas")
IMAGE_PREFIXES = ("../image/", "./image/", "image/", "data/image/")
AXIS_LABEL = re.compile(r"^([XY])(\d+)$")
MAX_EXAMPLES = 3


def question_key(task: str, mode: str, question: str) -> str:
    """Return the key that matches one question across runs.

    It hashes the task, the answer mode (an MCQ item and its open-ended twin are scored
    differently, so they are different items) and the question text with whitespace
    collapsed; the MCQ options block is never part of the text.
    """
    normalized = " ".join(question.split())
    payload = f"{task.strip().lower()}\x1f{mode}\x1f{normalized}".encode()
    return hashlib.sha1(payload).hexdigest()[:16]


def coordinate(labels: list[str], axis: str) -> str | None:
    """Return the highest label on one axis (``["X2", "X4"]`` gives ``"X4"``)."""
    levels = [int(m.group(2)) for label in labels if (m := AXIS_LABEL.match(label)) and m.group(1) == axis]
    return f"{axis}{max(levels)}" if levels else None


def parse_point(point: Any) -> tuple[list[str], list[str]] | None:
    """Split MemEye's ``point`` (``[["X2"], ["Y1"]]``) into X and Y labels.

    Returns None when ``point`` does not have that shape.
    """
    if not isinstance(point, list):
        return None
    labels = [str(label).strip() for group in point if isinstance(group, list) for label in group]
    if not labels and point:
        return None
    x_labels = [label for label in labels if label.startswith("X") and AXIS_LABEL.match(label)]
    y_labels = [label for label in labels if label.startswith("Y") and AXIS_LABEL.match(label)]
    return x_labels, y_labels


def strings(value: Any) -> list[str]:
    """Return ``value`` as a list of non-empty stripped strings ([] for anything else)."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return []
    return [str(item).strip() for item in value if item is not None and str(item).strip()]


class ImageResolver:
    """Finds dataset media files the way MemEye does, and only inside the dataset.

    Candidates, in order: the path as written (absolute), relative to the dialog file's
    folder and its parent, then under ``image_root`` (with a leading ``image/`` prefix
    stripped, then by file name) and under the default ``<data>/image``. A candidate
    outside those folders is never used, so a run file cannot make memscope read
    arbitrary files.
    """

    def __init__(self, dialog_path: Path, image_root: Path | None) -> None:
        self.dialog_path = dialog_path
        self.data_dir = dialog_path.parent.parent
        self.image_root = image_root
        self.allowed_roots = [self.data_dir.resolve(), dialog_path.parent.resolve()]
        if image_root is not None:
            self.allowed_roots.append(image_root.resolve())

    def candidates(self, raw: str) -> list[Path]:
        """Every place MemEye would look for ``raw``, in order."""
        cleaned = raw.replace("file://", "")
        source = Path(cleaned)
        if source.is_absolute():
            found = [source]
            if self.image_root is not None:
                found.append(self.image_root / source.name)
            return found
        found = [self.dialog_path.parent / source, self.data_dir / source]
        normalized = cleaned
        for prefix in IMAGE_PREFIXES:
            if normalized.startswith(prefix):
                normalized = normalized[len(prefix) :]
                break
        if self.image_root is not None:
            found += [self.image_root / normalized, self.image_root / source.name]
        found.append(self.data_dir / "image" / normalized)
        return found

    def inside_dataset(self, path: Path) -> bool:
        """Whether ``path`` lies under one of the dataset's folders."""
        return any(path.is_relative_to(root) for root in self.allowed_roots)

    def resolve(self, raw: str) -> tuple[str | None, str | None]:
        """Return ``(file, problem)``: the resolved absolute file, or None and why."""
        outside = False
        for candidate in self.candidates(raw):
            try:
                resolved = candidate.resolve()
            except (OSError, RuntimeError):  # symlink loops
                continue
            if not self.inside_dataset(resolved):
                outside = outside or resolved.exists()
                continue
            if resolved.is_file():
                return str(resolved), None
        return None, "outside the dataset folder" if outside else "missing"


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
    task = str(data.get("task_name") or task_hint or dialog_path.stem).strip().lower()
    raw_bytes = dialog_path.read_bytes()
    content_hash = hashlib.sha256(raw_bytes).hexdigest()
    notices: list[Notice] = []
    sessions, rounds = _read_sessions(data["multi_session_dialogues"], dialog_path, image_root, notices)
    round_sessions = {r.round_id: r.session_id for r in rounds}
    questions = _read_questions(qas, task, round_sessions, where, notices)
    return DatasetRecord(
        dataset_id=f"{_slug(task)}-{content_hash[:12]}",
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


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "dataset"


def _read_sessions(
    raw_sessions: list[Any], dialog_path: Path, image_root: Path | None, notices: list[Notice]
) -> tuple[list[SessionRecord], list[RoundRecord]]:
    resolver = ImageResolver(dialog_path, image_root)
    sessions: list[SessionRecord] = []
    rounds: list[RoundRecord] = []
    seen_rounds: set[str] = set()
    duplicate_rounds: list[str] = []
    media_problems: dict[str, list[str]] = {}
    for order, session in enumerate(raw_sessions, start=1):
        if not isinstance(session, dict) or not isinstance(session.get("dialogues"), list):
            raise DatasetError(
                f"session {order} is not an object with a 'dialogues' list",
                where=str(dialog_path),
                fix="Check the dialog file; it does not look like MemEye's format.",
            )
        session_id = str(session.get("session_id") or f"S{order}")
        sessions.append(SessionRecord(session_id, order, _optional_str(session.get("date"))))
        for round_order, turn in enumerate(session["dialogues"], start=1):
            if not isinstance(turn, dict):
                continue
            round_id = str(turn.get("round") or f"{session_id}:{round_order}")
            if round_id in seen_rounds:
                duplicate_rounds.append(round_id)
                continue
            seen_rounds.add(round_id)
            image_refs = strings(turn.get("input_image"))
            image_files: list[str | None] = []
            for ref in image_refs:
                resolved, problem = resolver.resolve(ref)
                image_files.append(resolved)
                if problem:
                    media_problems.setdefault(problem, []).append(ref)
            rounds.append(
                RoundRecord(
                    round_id=round_id,
                    session_id=session_id,
                    position=len(rounds) + 1,
                    round_order=round_order,
                    user_text=str(turn.get("user") or ""),
                    assistant_text=str(turn.get("assistant") or ""),
                    image_refs=image_refs,
                    image_files=image_files,
                    image_captions=[str(c) for c in turn.get("image_caption") or [] if c is not None]
                    if isinstance(turn.get("image_caption"), list)
                    else [],
                    image_ids=strings(turn.get("image_id")),
                )
            )
    if duplicate_rounds:
        notices.append(
            Notice(
                f"{len(duplicate_rounds)} duplicate round id(s); the first occurrence is kept",
                str(dialog_path),
                tuple(duplicate_rounds[:MAX_EXAMPLES]),
            )
        )
    for problem, refs in media_problems.items():
        notices.append(
            Notice(
                f"{len(refs)} image file(s) {problem}; shown as missing in the app",
                str(dialog_path),
                tuple(refs[:MAX_EXAMPLES]),
            )
        )
    return sessions, rounds


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
    for idx, qa in enumerate(qas, start=1):
        qid = f"q{idx}"
        if not isinstance(qa, dict):
            qa = {}
            bad_points.append(qid)
        options = qa.get("options")
        mode = "mcq" if isinstance(options, (dict, list)) and options else "open"
        text = str(qa.get("question") or "")
        labels = parse_point(qa.get("point"))
        if labels is None:
            bad_points.append(qid)
            labels = ([], [])
        x_labels, y_labels = labels
        clue_ids = strings(qa.get("clue"))
        clue_rounds = [clue for clue in clue_ids if clue in round_sessions]
        unknown_clues += [f"{qid}:{clue}" for clue in clue_ids if clue not in round_sessions]
        source_sessions = strings(qa.get("session_id")) or list(
            dict.fromkeys(round_sessions[c] for c in clue_rounds)
        )
        question_images = strings(qa.get("question_image")) + strings(qa.get("question_images"))
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


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(value)
