"""Describes a MemEye dialog JSON (sessions, rounds, images, captions, QAs) for the store.

The format is MemEye's ``benchmark/dataset.py``: ``multi_session_dialogues`` (sessions in
replay order, each with ``dialogues`` rounds) and a QA list under ``"human-annotated QAs"``
(or ``human_annotated_qas`` / ``qas``). Image paths are resolved the way MemEye resolves
them; a file that cannot be found is recorded as missing, never fatal.

The store bulk-loads the file (question lists of real benchmark runs reach tens of
thousands; the store derives them in SQL, store/loaders/json_dataset.py); this module
gives it the file's description (``memeye_dataset_source``) and the session list in Python
(``read_sessions``: images need the file system). ``sniff_dataset`` and ``read_dataset``
are the spec's dataset reader: the memory engine opens a dialog file through the same SQL
loader as ingest. The rules are also written out in Python as the tests' oracle
(tests/memeye_oracle.py), which tests/unit/test_identity.py holds the SQL equal to.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from memscope.plugin import (
    DatasetError,
    DatasetFormat,
    DatasetSource,
    Notice,
    NotRegularFileError,
    RoundRecord,
    SessionRecord,
    open_regular,
    read_regular,
    strings,
)

IMAGE_PREFIXES = ("../image/", "./image/", "image/", "data/image/")
MAX_EXAMPLES = 3
SNIFF_BYTES = 1 << 20
MAX_LEVEL_DIGITS = 9
"""A label's level (the digits after X / Y) has at most this many digits; longer ones are
ignored with a notice (they would overflow the store's 32-bit level)."""
DIALOG_FORMAT = DatasetFormat(
    file_name="dialog JSON",
    sessions="multi_session_dialogues",
    questions=("human-annotated QAs", "human_annotated_qas", "qas"),
    session_rounds="dialogues",
    session_name="session_id",
    round_name="round",
    fix="Pass the MemEye dialog file with --dataset PATH.",
    question_list="QA list",
    question="question",
    gold="answer",
    options="options",
    evidence="clue",
    evidence_name="clue id",
    evidence_sessions="session_id",
    images=("question_image", "question_images"),
    labels="point",
    axes=("X", "Y"),
    max_level_digits=MAX_LEVEL_DIGITS,
    qid_prefix="q",
)
"""The dialog JSON as the store derives its questions (qid ``q<position>``, the highest X
and Y label of ``point`` as the coordinate, ``clue`` ids resolved against the rounds)."""


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
        # A dialog names the same few images over and over (one scene in many rounds): each
        # reference is looked up once, not once per round (a stat per candidate and folder).
        self._resolved: dict[str, tuple[str | None, str | None]] = {}

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
        found = self._resolved.get(raw)
        if found is None:
            found = self._resolved[raw] = self._look_up(raw)
        return found

    def _look_up(self, raw: str) -> tuple[str | None, str | None]:
        """``resolve`` without the memory of earlier references."""
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


def read_dataset(path: Path, media_root: Path | None) -> DatasetSource:
    """A dialog JSON for the memory engine, which loads it into the store: images under
    ``media_root``, else under MemEye's default ``<data>/image`` beside the file's
    ``dialog/`` folder when that exists.

    Raises:
        DatasetError: see :func:`memeye_dataset_source` (the store's loader raises the
            rest: not JSON, not shaped like a MemEye dialog file).
    """
    default_root = path.resolve().parent.parent / "image"
    root = media_root or (default_root if default_root.is_dir() else None)
    return memeye_dataset_source(path.resolve(), root)


def memeye_dataset_source(
    dialog_path: Path, image_root: Path | None, task_hint: str | None = None
) -> DatasetSource:
    """Describe a MemEye dialog JSON for the store to bulk-load (store/loaders/json_dataset.py).

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
        loader=DIALOG_FORMAT,
        dataset_id=f"{dataset_slug(dialog_path.stem)}-{content_hash[:12]}",
        benchmark="memeye",
        task=task,
        source_path=str(dialog_path.resolve()),
        content_hash=content_hash,
        media_root=str(image_root.resolve()) if image_root else None,
        build_rounds=build_rounds,
    )


def dataset_slug(text: str) -> str:
    """The file-name part of a dataset id (``Visual Case.json`` gives ``visual_case``)."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "dataset"


def read_sessions(
    raw_sessions: list[Any], dialog_path: Path, image_root: Path | None, notices: list[Notice]
) -> tuple[list[SessionRecord], list[RoundRecord]]:
    """The sessions and rounds of ``multi_session_dialogues``, images resolved; what is
    odd (blank or duplicate round ids, image problems) is added to ``notices``.

    Raises:
        DatasetError: when a session is not an object with a ``dialogues`` list.
    """
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
