"""Reads a CUE-Mem history file (sessions, turns with images and voice messages, QAs).

Format: docs/formats.md §3.2. Rounds are the dialogue turns (``round`` ids such
as ``D15:00``) with their images (``input_image`` / ``image_caption`` / ``image_id``),
voice messages (``input_voice_message`` / ``voice_caption`` / ``voice_id``), the text the
memory heard instead of the user text (``user_voice_message_caption``) and the
background-audio description. Questions are the ``"human-annotated QAs"`` in file order
(``q1..qN``): 4-option MCQs whose options are inlined in the question text.

Every QA is placed on CUE-Mem's two axes (its task and its evidence setting):

- task group from ``point``: Long Pattern (``pref_*``), Entity Recall (``entity_*``),
  Personalized Recommendation (``rec_*``), Answer Refusal (``refusal_text``,
  ``adversarial_text``); any other point is kept but belongs to no group.
- explicit / implicit, as the RQ3 evaluator decides it (``step3_evaluate._form_split``):
  ``qa_type`` when it says explicit / implicit; entity QAs of type Relationship or Pets
  are explicit, Items take ``entity_explicitness`` and, without one, count as implicit;
  refusal QAs take ``expression_type``. Anything else is ``unknown`` and counts in neither.

Gold clue ids come in three forms and are all normalised to turns (:class:`ClueResolver`).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from memscope.plugin import (
    DatasetError,
    DatasetRecord,
    JSONObject,
    JSONValue,
    Notice,
    QuestionRecord,
    RoundRecord,
    SessionRecord,
    media_kind,
    question_key,
    read_json_file,
    read_regular,
    strings,
)

BENCHMARK = "cuemem"
QA_LIST_KEYS = ("human-annotated QAs", "human_annotated_qas", "qas")
TASK_GROUPS = {
    "pref_text": "long_pattern",
    "pref_img": "long_pattern",
    "entity_text": "entity_recall",
    "entity_img": "entity_recall",
    "rec_text": "personalized_recommendation",
    "rec_img": "personalized_recommendation",
    "refusal_text": "answer_refusal",
    "adversarial_text": "answer_refusal",
}
TASK_ORDER = ("entity_recall", "long_pattern", "personalized_recommendation", "answer_refusal")
ENTITY_EXPLICIT_TYPES = {"relationship", "pets"}
EXPLICITNESS = ("explicit", "implicit")
OPTION_LINE = re.compile(r"^\s*\(?([A-D])\s*[.．、:：)）]\s*(.*)$")
ROUND_FORM = re.compile(r"^[A-Za-z]*\d+:\d+$")
VOICE_FORM = re.compile(r"^(?P<session>[A-Za-z]*\d+)-(?P<index>\d+)$")
AUDIO_EXTENSIONS = (".wav", ".mp3", ".flac", ".ogg", ".m4a")
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".webp", ".gif")
MAX_EXAMPLES = 3


def task_group(point: str | None) -> str | None:
    """The CUE-Mem task a QA ``point`` belongs to (None for points outside the four tasks)."""
    return TASK_GROUPS.get((point or "").strip())


def explicitness(
    point: str | None,
    qa_type: JSONValue,
    entity_explicitness: JSONValue = None,
    expression_type: JSONValue = None,
) -> tuple[str, str]:
    """``(explicit | implicit | unknown, where the label came from)`` for one QA."""
    group = task_group(point)
    kind = str(qa_type or "").strip().lower()
    if group == "entity_recall":
        if kind in ENTITY_EXPLICIT_TYPES:
            return "explicit", f"qa_type {qa_type}"
        if kind == "items":
            stated = str(entity_explicitness or "").strip().lower()
            if stated in EXPLICITNESS:
                return stated, "entity_explicitness"
            return "implicit", "fallback: Items without entity_explicitness (as RQ3's evaluator)"
    if group == "answer_refusal":
        stated = str(expression_type or "").strip().lower()
        if stated in EXPLICITNESS:
            return stated, "expression_type"
    if kind in EXPLICITNESS:
        return kind, "qa_type"
    return "unknown", "no explicit/implicit label"


def split_options(question: str) -> tuple[str, dict[str, str]]:
    """Split a question with inlined options into its stem and ``{letter: option text}``.

    The stem is the text before the first ``A. …`` line; each option is its own line.
    Lines after the last option (the fixed answer instruction) belong to no option.
    """
    lines = question.splitlines()
    options: dict[str, str] = {}
    first_option: int | None = None
    for number, line in enumerate(lines):
        match = OPTION_LINE.match(line)
        if (
            match
            and match.group(1) not in options
            and (not options or match.group(1) > max(options))
        ):
            options[match.group(1)] = match.group(2).strip()
            first_option = number if first_option is None else first_option
    if first_option is None:
        return question.strip(), {}
    return "\n".join(lines[:first_option]).strip(), options


class MediaResolver:
    """Finds the CUE-Mem media files a history file names (the rule is in the README).

    Where it looks, for a path as written (backslashes and ``file://`` accepted): an
    absolute path as it stands (the official release's ``prepare_dataset.py`` writes
    absolute paths into the download folder), then relative to the history file's folder
    and up to :data:`MEDIA_ANCESTORS` folders above it (the raw download names
    ``data/event/images/...`` from its root), under their ``image/`` and ``voice/`` folders
    (RQ1/RQ2's ``../image/`` and ``../voice/`` prefixes stripped), and RQ3's mappings
    (``event/voice_mixed_*`` to ``voice_mixed_*``, ``event/images/`` to ``event_image/``,
    ``qa/`` to ``qa_image/``). An absolute path that does not exist here (the dataset was
    prepared on another machine) is tried by its tail from ``data/`` on, in those folders.

    What it accepts: only a regular file whose first bytes are an image or audio format
    (:func:`media_kind`); a device, FIFO, socket or directory is never opened for reading,
    and a file of another kind (a text file renamed ``.png``) counts as missing.
    """

    def __init__(self, history_path: Path) -> None:
        folder = history_path.resolve().parent
        self.roots = [folder, *list(folder.parents)[:MEDIA_ANCESTORS]]

    def candidates(self, raw: str) -> list[Path]:
        """Every place the file ``raw`` may be, in order."""
        cleaned = raw.replace("\\", "/").removeprefix("file://").removeprefix("./")
        path = Path(cleaned)
        if path.is_absolute():
            tails = [Path(*path.parts[i:]) for i, part in enumerate(path.parts) if part == "data"]
            return [path] + [root / tail for tail in tails[-1:] for root in self.roots]
        found: list[Path] = []
        for root in self.roots:
            found.append(root / cleaned)
            if cleaned.startswith("event/voice_mixed"):
                found.append(root / cleaned.removeprefix("event/"))
            if cleaned.startswith("event/images/"):
                found.append(root / "event_image" / cleaned.removeprefix("event/images/"))
            if cleaned.startswith("qa/"):
                found.append(root / "qa_image" / cleaned.removeprefix("qa/"))
            for prefix, folder in (("../image/", "image"), ("../voice/", "voice")):
                if cleaned.startswith(prefix):
                    found.append(root / folder / cleaned.removeprefix(prefix))
            found += [root / "image" / cleaned, root / "voice" / cleaned]
        return found

    def resolve(self, raw: str) -> str | None:
        """The absolute media file ``raw`` names, or None when none is found (see the class)."""
        for candidate in self.candidates(raw):
            try:
                resolved = candidate.resolve()
            except (OSError, RuntimeError):
                continue
            if media_kind(resolved) is not None:
                return str(resolved)
        return None


MEDIA_ANCESTORS = 4
"""Folders above the history file's own that relative media paths may start from
(``base/`` -> ``dialog/`` -> ``data/`` -> the download root, and one more)."""


class ClueResolver:
    """Normalises CUE-Mem evidence ids to turn (round) ids.

    Three forms (upstream ``clue_to_turn_ids``): a turn id ``D15:00``; a voice id with an
    audio extension ``D15-001.wav`` (the turn whose ``voice_id`` lists it; failing that,
    the 1-based suffix convention, ``D15-001`` is turn ``D15:00``); an image id with an
    image extension ``<image_id>.png`` (the turn whose ``image_id`` lists it, or whose
    image file has that name).
    """

    def __init__(self, rounds: list[RoundRecord]) -> None:
        self.round_ids = {r.round_id for r in rounds}
        self.voice_ids: dict[str, str] = {}
        self.image_ids: dict[str, str] = {}
        for turn in rounds:
            for voice_id in turn.audio_ids:
                self.voice_ids.setdefault(voice_id, turn.round_id)
            for ref in turn.audio_refs:
                self.voice_ids.setdefault(Path(ref.replace("\\", "/")).stem, turn.round_id)
            for image_id in turn.image_ids:
                self.image_ids.setdefault(image_id, turn.round_id)
            for ref in turn.image_refs:
                self.image_ids.setdefault(Path(ref.replace("\\", "/")).stem, turn.round_id)

    def resolve(self, clue: str) -> tuple[str | None, str | None]:
        """``(turn id, None)``, or ``(None, "unresolved" | "unknown form")``."""
        clue = clue.strip()
        if clue in self.round_ids:
            return clue, None
        lowered = clue.lower()
        if lowered.endswith(AUDIO_EXTENSIONS):
            voice_id = clue.rsplit(".", 1)[0]
            if voice_id in self.voice_ids:
                return self.voice_ids[voice_id], None
            match = VOICE_FORM.match(voice_id)
            if match and int(match["index"]) >= 1:
                turn = f"{match['session']}:{int(match['index']) - 1:02d}"
                if turn in self.round_ids:
                    return turn, None
            return None, "unresolved"
        if lowered.endswith(IMAGE_EXTENSIONS):
            image_id = clue.rsplit(".", 1)[0]
            return (
                (self.image_ids[image_id], None)
                if image_id in self.image_ids
                else (None, "unresolved")
            )
        if ROUND_FORM.match(clue):
            return None, "unresolved"
        return None, "unknown form"


@dataclass
class CueDataset:
    """A CUE-Mem history file read into records, with what result files need to join it."""

    record: DatasetRecord
    clues: ClueResolver
    qid_by_key: dict[tuple[str, str], str]
    """``(point, qa_id) -> qid``."""
    profile_name: str | None


def read_cuemem_dataset(history_path: Path, *, strict: bool = False) -> CueDataset:
    """Read one CUE-Mem history file.

    Raises:
        DatasetError: when the file is not a CUE-Mem history file, or (``strict``) when a
            clue id has an unknown form.
    """
    data = read_json_file(history_path, error=DatasetError, what="CUE-Mem history file")
    where = str(history_path)
    dialogues = data.get("multi_session_dialogues") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(dialogues, list):
        raise DatasetError(
            "the history file has no 'multi_session_dialogues' list",
            where=where,
            fix="Pass the CUE-Mem history file (history_with_qa_p<N>.json) with --dataset PATH.",
        )
    qas = next((found for key in QA_LIST_KEYS if isinstance(found := data.get(key), list)), None)
    if qas is None:
        raise DatasetError(
            "the history file has no QA list ('human-annotated QAs')",
            where=where,
            fix="Pass the CUE-Mem history file with --dataset PATH.",
        )
    notices: list[Notice] = []
    sessions, rounds = _read_turns(dialogues, history_path, notices)
    clues = ClueResolver(rounds)
    task = history_path.stem.lower()
    questions, qid_by_key = _read_questions(
        qas, task, clues, MediaResolver(history_path), history_path, strict=strict, notices=notices
    )
    content_hash = hashlib.sha256(read_regular(history_path)).hexdigest()
    found_profile = data.get("character_profile")
    profile: JSONObject = found_profile if isinstance(found_profile, dict) else {}
    return CueDataset(
        record=DatasetRecord(
            dataset_id=f"cuemem-{re.sub(r'[^a-z0-9]+', '_', task).strip('_')}-{content_hash[:12]}",
            benchmark=BENCHMARK,
            task=task,
            source_path=str(history_path.resolve()),
            content_hash=content_hash,
            media_root=str(history_path.resolve().parent.parent),
            sessions=sessions,
            rounds=rounds,
            questions=questions,
            notices=notices,
        ),
        clues=clues,
        qid_by_key=qid_by_key,
        profile_name=str(profile["name"]) if profile.get("name") else None,
    )


def _read_turns(
    raw_sessions: list[JSONValue], history_path: Path, notices: list[Notice]
) -> tuple[list[SessionRecord], list[RoundRecord]]:
    resolver = MediaResolver(history_path)
    sessions: list[SessionRecord] = []
    rounds: list[RoundRecord] = []
    seen: set[str] = set()
    duplicates: list[str] = []
    missing_media: list[str] = []
    for order, session in enumerate(raw_sessions, start=1):
        turns = (
            session.get("dialogues", session.get("dialog_list"))
            if isinstance(session, dict)
            else None
        )
        if not isinstance(session, dict) or not isinstance(turns, list):
            raise DatasetError(
                f"session {order} is not an object with a 'dialogues' list",
                where=str(history_path),
                fix="Check the file; it does not look like a CUE-Mem history file.",
            )
        session_id = str(session.get("session_id") or f"D{order - 1:02d}")
        date = session.get("date")
        sessions.append(SessionRecord(session_id, order, None if date in (None, "") else str(date)))
        for turn_order, turn in enumerate(turns, start=1):
            if not isinstance(turn, dict):
                continue
            round_id = str(turn.get("round") or f"{session_id}:{turn_order - 1:02d}")
            if round_id in seen:
                duplicates.append(round_id)
                continue
            seen.add(round_id)
            image_refs = strings(turn.get("input_image"))
            audio_refs = strings(turn.get("input_voice_message"))
            image_files = [resolver.resolve(ref) for ref in image_refs]
            audio_files = [resolver.resolve(ref) for ref in audio_refs]
            missing_media += [
                ref
                for ref, found in zip(
                    image_refs + audio_refs, image_files + audio_files, strict=True
                )
                if found is None
            ]
            voice_caption = str(turn.get("user_voice_message_caption") or "")
            extra: JSONObject = {}
            if voice_caption:
                extra["user_voice_message_caption"] = voice_caption
            rounds.append(
                RoundRecord(
                    round_id=round_id,
                    session_id=session_id,
                    position=len(rounds) + 1,
                    round_order=turn_order,
                    user_text=str(turn.get("user") or "") or voice_caption,
                    assistant_text=str(turn.get("assistant") or ""),
                    image_refs=image_refs,
                    image_files=image_files,
                    image_captions=_texts(turn.get("image_caption")),
                    image_ids=strings(turn.get("image_id")),
                    audio_refs=audio_refs,
                    audio_files=audio_files,
                    audio_captions=_texts(turn.get("voice_caption")),
                    audio_ids=strings(turn.get("voice_id")),
                    background_audio=str(turn["background_audio"])
                    if turn.get("background_audio")
                    else None,
                    extra=extra,
                )
            )
    if duplicates:
        notices.append(
            Notice(
                f"{len(duplicates)} duplicate turn id(s); the first occurrence is kept",
                str(history_path),
                tuple(duplicates[:MAX_EXAMPLES]),
            )
        )
    if missing_media:
        notices.append(
            Notice(
                f"{len(missing_media)} media file(s) not found; shown as missing in the app",
                str(history_path),
                tuple(missing_media[:MAX_EXAMPLES]),
            )
        )
    return sessions, rounds


def _read_questions(
    qas: list[JSONValue],
    task: str,
    clues: ClueResolver,
    media: MediaResolver,
    history_path: Path,
    *,
    strict: bool,
    notices: list[Notice],
) -> tuple[list[QuestionRecord], dict[tuple[str, str], str]]:
    questions: list[QuestionRecord] = []
    qid_by_key: dict[tuple[str, str], str] = {}
    unresolved: list[str] = []
    unknown_form: list[str] = []
    unknown_points: list[str] = []
    for idx, raw_qa in enumerate(qas, start=1):
        qid = f"q{idx}"
        qa = _object(raw_qa)
        point = str(qa.get("point") or "").strip()
        qa_id = str(qa.get("qa_id") or qid)
        text = str(qa.get("question") or "")
        stem, options = split_options(text)
        option_images = _object(qa.get("option_images"))
        option_captions = _object(qa.get("option_captions"))
        for letter, caption in option_captions.items():
            if not options.get(letter) and isinstance(caption, str):
                options[letter] = caption
        clue_ids = strings(qa.get("clue"))
        clue_rounds: list[str] = []
        unresolved_here: list[JSONValue] = []
        for clue in clue_ids:
            turn, problem = clues.resolve(clue)
            if turn is not None:
                if turn not in clue_rounds:
                    clue_rounds.append(turn)
            elif problem == "unknown form":
                unknown_form.append(f"{qid}:{clue}")
                unresolved_here.append(clue)
            else:
                unresolved.append(f"{qid}:{clue}")
                unresolved_here.append(clue)
        label, source = explicitness(
            point, qa.get("qa_type"), qa.get("entity_explicitness"), qa.get("expression_type")
        )
        group = task_group(point)
        if group is None:
            unknown_points.append(f"{qid}:{point or '(none)'}")
        sessions = strings(qa.get("matched_session_ids")) or strings(qa.get("session_id"))
        extra: JSONObject = {
            "benchmark": BENCHMARK,
            "qa_id": qa_id,
            "point": point,
            "task_group": group,
            "explicitness": label,
            "explicitness_source": source,
            "qa_type": qa.get("qa_type"),
        }
        for name in (
            "entity_explicitness",
            "entity_type",
            "entity_name",
            "category",
            "subcategory",
            "expression_type",
            "adversarial_type",
            "adversarial_answer",
            "rationale",
            "question_audio",
            "question_audio_description",
            "question_image_descriptions",
        ):
            if qa.get(name) not in (None, "", [], {}):
                extra[name] = qa[name]
        if option_images:
            extra["option_images"] = {str(k): str(v) for k, v in option_images.items()}
            # The option pictures on this machine (None where missing), for the app to show.
            extra["option_image_files"] = {
                str(k): media.resolve(str(v)) for k, v in option_images.items()
            }
        if unresolved_here:
            extra["unresolved_clues"] = unresolved_here
        question_images = strings(qa.get("question_image")) + [
            str(option_images[k]) for k in sorted(option_images)
        ]
        questions.append(
            QuestionRecord(
                qid=qid,
                idx=idx,
                question_key=question_key(task, "mcq", f"{point}\x1f{qa_id}\x1f{stem}"),
                task=task,
                question=stem,
                gold=str(qa["answer"]).strip() if qa.get("answer") is not None else None,
                mode="mcq",
                options={letter: text for letter, text in options.items()} or None,
                clue_ids=clue_ids,
                clue_rounds=clue_rounds,
                source_sessions=sessions,
                question_images=question_images,
                extra=extra,
            )
        )
        qid_by_key.setdefault((point, qa_id), qid)
    where = str(history_path)
    if unknown_form:
        message = (
            f"{len(unknown_form)} clue id(s) are in an unknown form (expected a turn id like D15:00, a voice id "
            "like D15-001.wav or an image id like <image_id>.png); they are ignored"
        )
        if strict:
            raise DatasetError(
                message + " (--strict)",
                where=where,
                fix=f"Fix the clue ids, e.g. {unknown_form[0]}.",
            )
        notices.append(Notice(message, where, tuple(unknown_form[:MAX_EXAMPLES])))
    if unresolved:
        notices.append(
            Notice(
                f"{len(unresolved)} clue id(s) resolve to no turn of the history; they are ignored by "
                "the evidence metrics",
                where,
                tuple(unresolved[:MAX_EXAMPLES]),
            )
        )
    if unknown_points:
        notices.append(
            Notice(
                f"{len(unknown_points)} QA(s) have a point outside CUE-Mem's four tasks; they count in "
                "no task",
                where,
                tuple(unknown_points[:MAX_EXAMPLES]),
            )
        )
    return questions, qid_by_key


def _object(value: JSONValue) -> JSONObject:
    """A field that should hold an object (empty when it holds anything else)."""
    return value if isinstance(value, dict) else {}


def _texts(value: JSONValue) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        return []
    return ["" if item is None else str(item) for item in value]
