"""Reads a MemEye dialog JSON (sessions, rounds, images, captions, QAs) into records.

The format is MemEye's ``benchmark/dataset.py``: ``multi_session_dialogues`` (sessions in
replay order, each with ``dialogues`` rounds) and a QA list under ``"human-annotated QAs"``
(or ``human_annotated_qas`` / ``qas``). Image paths are resolved the way MemEye resolves
them; a file that cannot be found is recorded as missing, never fatal.

Two entry points: ``memeye_dataset_source`` describes the file for the store, which
bulk-loads it (question lists of real benchmark runs reach tens of thousands; the store
derives them in SQL, store/loaders/memeye_dataset.py); ``read_memeye_dataset`` reads it
entirely in Python, for tools that want records without a store. Both follow the same
rules, and tests/unit/test_identity.py checks they agree. ``sniff_dataset`` and
``read_dataset`` are the spec's dataset reader (the memory engine opens dialog files
through them).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from memscope.adapters.files import read_json_file
from memscope.errors import DatasetError
from memscope.file_kinds import NotRegularFileError, open_regular, read_regular
from memscope.identity import question_key as question_key  # re-exported for the other readers
from memscope.records import (
    DatasetRecord,
    DatasetSource,
    Notice,
    QuestionRecord,
    RoundRecord,
    SessionRecord,
)

QA_LIST_KEYS = ("human-annotated QAs", "human_annotated_qas", "qas")
IMAGE_PREFIXES = ("../image/", "./image/", "image/", "data/image/")
MAX_EXAMPLES = 3
SNIFF_BYTES = 1 << 20
MAX_LEVEL_DIGITS = 9
"""A label's level (the digits after X / Y) has at most this many digits; longer ones are
ignored with a notice (they would overflow the store's 32-bit level)."""


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


def strings(value: Any) -> list[str]:
    """Return ``value`` as a list of non-empty stripped strings ([] for anything else)."""
    if isinstance(value, str):
        value = [value]
    elif not isinstance(value, list):
        return []
    result = []
    for item in value:
        if item is None:
            continue
        text = (item if isinstance(item, str) else str(item)).strip()
        if text:
            result.append(text)
    return result


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
                problem = image_file_problem(resolved)
                return (None, problem) if problem else (str(resolved), None)
        return None, "outside the dataset folder" if outside else "missing"


MEDIA_PROBLEMS = {
    "missing": "are missing",
    "outside the dataset folder": "point outside the dataset folder (not read)",
    "empty (0 bytes)": "are empty (0 bytes)",
    "not an image file": "are not image files",
    "unreadable": "cannot be read",
}
"""How a notice words each problem ``ImageResolver.resolve`` reports."""

IMAGE_SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM", b"RIFF")


def image_file_problem(path: Path) -> str | None:
    """Why ``path`` cannot be an image (empty, or no known image signature), or None.

    Only the first bytes are read: decoding happens when the app shows the image.
    """
    try:
        with open(open_regular(path), "rb") as handle:
            head = handle.read(12)
    except NotRegularFileError as exc:
        return exc.kind
    except OSError:
        return "unreadable"
    if not head:
        return "empty (0 bytes)"
    if head.startswith(b"RIFF") and head[8:12] != b"WEBP":
        return "not an image file"
    if not head.startswith(IMAGE_SIGNATURES):
        return "not an image file"
    return None


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
        dataset_id=f"{_slug(dialog_path.stem)}-{content_hash[:12]}",
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


def sniff_dataset(path: Path) -> bool:
    """Whether ``path`` looks like a MemEye dialog JSON, from its first MiB: a JSON object
    naming ``multi_session_dialogues`` (or an object larger than that, whose key may come
    later: the reader then says what is wrong)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
            longer = bool(handle.read(1))
    except OSError:
        return False
    head = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    return head[:1] == b"{" and (b'"multi_session_dialogues"' in head or longer)


def read_dataset(path: Path, media_root: Path | None) -> DatasetRecord:
    """A dialog JSON for the memory engine: images under ``media_root``, else under MemEye's
    default ``<data>/image`` beside the file's ``dialog/`` folder when that exists.

    Raises:
        DatasetError: see :func:`read_memeye_dataset`.
    """
    default_root = path.resolve().parent.parent / "image"
    root = media_root or (default_root if default_root.is_dir() else None)
    return read_memeye_dataset(path.resolve(), root)


def memeye_dataset_source(
    dialog_path: Path, image_root: Path | None, task_hint: str | None = None
) -> DatasetSource:
    """Describe a MemEye dialog JSON for the store to bulk-load (see ``read_memeye_dataset``).

    Only the file's hash is computed here; the store stages the file with DuckDB, calls
    back for the (small) session list and derives the questions in SQL.

    Raises:
        DatasetError: when the file cannot be read.
    """
    try:
        raw_bytes = read_regular(dialog_path)
    except OSError as exc:
        raise DatasetError(
            f"cannot read the dialog JSON: {exc.strerror or exc}", where=str(dialog_path)
        ) from None
    if not raw_bytes.strip():
        raise DatasetError(
            "dialog JSON is empty",
            where=str(dialog_path),
            fix="Restore the file, or pass the right one with --dataset PATH.",
        )
    content_hash = hashlib.sha256(raw_bytes).hexdigest()
    task = str(task_hint or dialog_path.stem).strip().lower()

    def build_rounds(
        raw_sessions: Any,
    ) -> tuple[list[SessionRecord], list[RoundRecord], list[Notice]]:
        if not isinstance(raw_sessions, list):
            raise DatasetError(
                "dialog JSON has no 'multi_session_dialogues' list",
                where=str(dialog_path),
                fix="Pass the MemEye dialog file with --dataset PATH.",
            )
        notices: list[Notice] = []
        sessions, rounds = read_sessions(raw_sessions, dialog_path, image_root, notices)
        return sessions, rounds, notices

    return DatasetSource(
        loader="memeye_dataset",
        dataset_id=f"{_slug(dialog_path.stem)}-{content_hash[:12]}",
        benchmark="memeye",
        task=task,
        source_path=str(dialog_path.resolve()),
        content_hash=content_hash,
        media_root=str(image_root.resolve()) if image_root else None,
        build_rounds=build_rounds,
    )


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "dataset"


def read_sessions(
    raw_sessions: list[Any], dialog_path: Path, image_root: Path | None, notices: list[Notice]
) -> tuple[list[SessionRecord], list[RoundRecord]]:
    resolver = ImageResolver(dialog_path, image_root)
    sessions: list[SessionRecord] = []
    rounds: list[RoundRecord] = []
    seen_rounds: set[str] = set()
    duplicate_rounds: list[str] = []
    blank_rounds: list[str] = []
    media_problems: dict[str, list[str]] = {}
    for order, session in enumerate(raw_sessions, start=1):
        if not isinstance(session, dict) or not isinstance(session.get("dialogues"), list):
            raise DatasetError(
                f"session {order} is not an object with a 'dialogues' list",
                where=str(dialog_path),
                fix="Check the dialog file; it does not look like MemEye's format.",
            )
        session_id = str(session.get("session_id") or "").strip() or f"S{order}"
        sessions.append(SessionRecord(session_id, order, _optional_str(session.get("date"))))
        for round_order, turn in enumerate(session["dialogues"], start=1):
            if not isinstance(turn, dict):
                continue
            # Round ids are stripped like clue ids (strings()), so " D1:1 " still links.
            written = turn.get("round")
            round_id = str(written).strip() if written is not None else ""
            if not round_id:
                if written is not None and str(written) != "":
                    blank_rounds.append(f"session {session_id} round {round_order}")
                round_id = f"{session_id}:{round_order}"
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
                    image_captions=[
                        str(c) for c in turn.get("image_caption") or [] if c is not None
                    ]
                    if isinstance(turn.get("image_caption"), list)
                    else [],
                    image_ids=strings(turn.get("image_id")),
                )
            )
    if blank_rounds:
        notices.append(
            Notice(
                f"{len(blank_rounds)} round id(s) are only whitespace; "
                "those rounds are named by session and position instead",
                str(dialog_path),
                tuple(blank_rounds[:MAX_EXAMPLES]),
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
                f"{len(refs)} image file(s) {MEDIA_PROBLEMS.get(problem, problem)}; the app shows a placeholder",
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
    oversized: list[str] = []
    for idx, qa in enumerate(qas, start=1):
        qid = f"q{idx}"
        if not isinstance(qa, dict):
            qa = {}
            bad_points.append(qid)
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
    if bad_points:
        notices.append(
            Notice(
                f"{len(bad_points)} question(s) have no usable 'point' (X/Y labels); "
                "they appear outside the matrix",
                where,
                tuple(bad_points[:MAX_EXAMPLES]),
            )
        )
    if oversized:
        notices.append(oversized_label_notice(len(oversized), where, oversized))
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


def oversized_label_notice(count: int, where: str, qids: list[str]) -> Notice:
    """The notice naming questions whose X / Y label was ignored for its size."""
    return Notice(
        f"{count} question(s) have an X/Y label with more than {MAX_LEVEL_DIGITS} digits; "
        "the label is ignored",
        where,
        tuple(qids[:MAX_EXAMPLES]),
    )


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(value)
