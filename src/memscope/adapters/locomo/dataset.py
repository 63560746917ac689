"""Reads LoCoMo's ``locomo10.json`` (a list of conversations with their QAs) into one dataset.

Format (snap-research/LoCoMo ``data/locomo10.json``): a list of samples ``{sample_id,
conversation, qa, …}``; ``conversation`` holds ``speaker_a`` / ``speaker_b``, the turn lists
``session_<N>`` and their dates ``session_<N>_date_time`` (dates exist for sessions that
have no turns: they are not sessions); a turn is ``{speaker, dia_id "D<N>:<turn>", text}``
plus, when it shares an image, ``blip_caption`` and usually ``img_url`` (a list of URLs) and
the ``query`` that found the image. A QA is ``{question, answer | adversarial_answer,
evidence, category}`` with ``category`` 1–5.

Identity (one dataset for the whole file, so runs over any of its samples share it):

- dataset id ``locomo-<file stem>-<first 12 hex of the file's SHA-256>``;
- session ``<sample_id>:S<N>`` (upstream's summary-mode context ids are ``S<N>``); dates
  kept as written; session order and round positions run over the whole file: samples in
  file order, sessions in ``N`` order, turns in list order;
- round ``<sample_id>:<dia_id>`` (``conv-26:D1:3``); ``user_text`` is ``"<speaker>: <text>"``
  so every view shows who spoke (the speaker is also in ``extra``); a shared image is
  ``image_refs`` = the URLs (``""`` for the turns whose URL the release lost: they still
  share an image, as upstream treats every turn with a ``blip_caption``), ``image_files`` =
  a local copy from ``images`` matched by the URL's file name (else None: nothing is ever
  downloaded), ``image_captions`` = the BLIP caption;
- question ``<sample_id>:q<N>``, ``N`` the 1-based position in the sample's ``qa`` list
  (kept when another item of the list is skipped); ``idx`` 1..M over the file; the question
  key hashes the sample id (as the task), mode ``open`` and the question text, the k-th
  repeat of one text within a sample (conv-48 asks eleven questions twice) adding ``#k``.

Evidence is cleaned by :func:`clean_evidence` and resolved against the sample's turns.

For the memory engine (``sniff_dataset``, ``read_dataset``), every conversation is its own
memory: rounds and questions carry ``sample_id`` in their ``extra``, the spec's
``memory_bank``, so a question retrieves only among its own conversation's turns.
"""

from __future__ import annotations

import hashlib
import re
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from memscope.plugin import (
    KEY_SEPARATOR,
    DatasetError,
    DatasetRecord,
    JSONObject,
    JSONValue,
    Notice,
    QuestionRecord,
    RoundRecord,
    SessionRecord,
    question_key,
    read_json_file,
)

BENCHMARK = "locomo"
MODE = "open"
"""Every LoCoMo QA is answered in free text (category 5 is scored by refusal, not options)."""
CATEGORY_NAMES: dict[int, str] = {
    1: "Multi-hop",
    2: "Temporal",
    3: "Open-domain",
    4: "Single-hop",
    5: "Adversarial",
}
"""Upstream's names (``task_eval/evaluate_qa.py``)."""
ADVERSARIAL = 5
SESSION_KEY = re.compile(r"^session_(\d+)$")
DIA_ID = re.compile(r"^[Dd](\d+):(\d+)$")
EVIDENCE_SEPARATORS = re.compile(r"[;,\s]+")
MAX_EXAMPLES = 3
SNIFF_BYTES = 1 << 20


def session_id(sample_id: str, number: int) -> str:
    """The session id of ``session_<number>`` of a sample (``conv-26:S3``)."""
    return f"{sample_id}:S{number}"


def round_id(sample_id: str, dia_id: str) -> str:
    """The round id of a turn (``conv-26:D1:3``)."""
    return f"{sample_id}:{dia_id}"


def qid_for(sample_id: str, position: int) -> str:
    """The qid of the QA at 1-based ``position`` of a sample's ``qa`` list (``conv-26:q37``)."""
    return f"{sample_id}:q{position}"


def canonical_dia_id(text: str) -> str | None:
    """``D<session>:<turn>`` with the numbers as integers (``D30:05`` -> ``D30:5``), or None
    when ``text`` is not of that form."""
    match = DIA_ID.match(text.strip())
    return f"D{int(match[1])}:{int(match[2])}" if match else None


def clean_evidence(evidence: JSONValue) -> list[str]:
    """A QA's ``evidence`` as a list of distinct dia ids, in the order written.

    Upstream's ``task_eval/evaluation_stats.py`` (``analyze_aggr_acc``) removes ``(`` and
    ``)`` from every entry and skips empty ones; memscope does the same and also splits
    an entry that holds several ids (``"D8:6; D9:17"``, ``"D9:1 D4:4 D4:6"``) on ``;``,
    ``,`` and whitespace, where upstream reads such an entry as one id (session of the
    first, turn of the last). Ids of the form ``D<n>:<m>`` are written with integer numbers
    (``D30:05`` is turn ``D30:5``, as upstream's ``'D' + str(int) + ':' + str(int)`` lookup
    reads it); anything else (``D``, ``D:11:26``) is kept as written and resolves to no turn.
    A bare string counts as a one-entry list; entries that are not strings are ignored.
    """
    entries = [evidence] if isinstance(evidence, str) else evidence
    if not isinstance(entries, list):
        return []
    cleaned: list[str] = []
    for entry in entries:
        if not isinstance(entry, (str, int)) or isinstance(entry, bool):
            continue
        text = str(entry).replace("(", "").replace(")", "")
        for token in EVIDENCE_SEPARATORS.split(text):
            if not token:
                continue
            token = canonical_dia_id(token) or token
            if token not in cleaned:
                cleaned.append(token)
    return cleaned


def image_file_name(url: str) -> str:
    """The file name a URL ends in (``https://i.redd.it/abc.jpg?x=1`` -> ``abc.jpg``).

    The path is unquoted *before* it is split, so that an escaped separator
    (``..%2F..%2Fsecret.png``, ``%2Fabs%2Fpath.png``, ``..%5Cx.png``) cannot make the name a
    path: the name is the last part after any ``/`` or ``\\``, and ``.`` / ``..`` are no
    name (``""``). A local copy is only ever looked up inside ``--images``.
    """
    path = urllib.parse.unquote(urllib.parse.urlsplit(url.strip()).path)
    name = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    return "" if name in (".", "..") or "\x00" in name else name


@dataclass
class LocomoDataset:
    """A LoCoMo dataset file read into records, with what run files need to join it."""

    record: DatasetRecord
    samples: list[str]
    """Sample ids in file order."""
    questions: dict[str, QuestionRecord]
    """qid -> question."""
    qa_counts: dict[str, int]
    """Sample id -> length of its ``qa`` list as written (skipped items included)."""
    rounds: dict[str, dict[str, str]] = field(default_factory=dict)
    """Sample id -> canonical dia id (``D1:3``) -> round id."""
    sessions: dict[str, dict[int, str]] = field(default_factory=dict)
    """Sample id -> session number -> session id."""
    by_text: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    """``(sample id, whitespace-normalised question)`` -> qids, in list order."""
    malformed: list[tuple[str, str]] = field(default_factory=list)
    """``(qid, why)`` of every QA item the reader skipped (a category outside 1-5 …)."""

    def malformed_sentence(self) -> str | None:
        """What is wrong with the dataset's skipped QA items, in words, or None: a run file
        that cannot be joined says this rather than blaming the run file."""
        if not self.malformed:
            return None
        categories = [(qid, why) for qid, why in self.malformed if "'category'" in why]
        listed = "; ".join(f"{qid}: {why}" for qid, why in (categories or self.malformed)[:3])
        if categories:
            return (
                f"{len(categories)} QA item(s) of the dataset have a malformed category "
                f"(LoCoMo's categories are the numbers 1-5): {listed}"
            )
        return f"{len(self.malformed)} QA item(s) of the dataset are malformed: {listed}"

    def question_at(self, sample_id: str, position: int) -> QuestionRecord | None:
        """The question at 1-based ``position`` of a sample's ``qa`` list."""
        return self.questions.get(qid_for(sample_id, position))

    def resolve_turn(self, sample_id: str, dia_id: str) -> str | None:
        """The round id of a sample's turn ``dia_id`` (any zero padding), or None."""
        canonical = canonical_dia_id(dia_id)
        return self.rounds.get(sample_id, {}).get(canonical) if canonical else None

    def resolve_session(self, sample_id: str, session: str) -> str | None:
        """The session id of a summary-mode context id ``S<N>``, or None."""
        match = re.fullmatch(r"[Ss](\d+)", session.strip())
        return self.sessions.get(sample_id, {}).get(int(match[1])) if match else None


def looks_like_dataset(path: Path) -> bool:
    """Whether ``path`` looks like a LoCoMo dataset file, from its first MiB only: a JSON list
    of objects naming ``conversation`` and ``session_1`` and no ``<key>_prediction`` (which
    would make it a run file, a copy of the dataset with answers added)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError:
        return False
    head = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    return (
        head[:1] == b"["
        and head[1:].lstrip()[:1] == b"{"
        and b'"conversation"' in head
        and b'"session_1"' in head
        and re.search(rb'_prediction"\s*:', head) is None
    )


def sniff_dataset(path: Path) -> bool:
    """The spec's dataset sniffer: :func:`looks_like_dataset`."""
    return looks_like_dataset(path)


def read_dataset(path: Path, media_root: Path | None) -> DatasetRecord:
    """The spec's dataset reader (the memory engine's ``index``, ``retrieve``, ``search``):
    the dataset record of ``path``, shared images matched in ``media_root`` (``--image-root``)."""
    return read_locomo_dataset(path, images=media_root).record


def read_locomo_dataset(
    path: Path, *, images: Path | None = None, strict: bool = False
) -> LocomoDataset:
    """Read one LoCoMo dataset file (``locomo10.json``).

    Args:
        path: The file.
        images: A folder of local copies of the shared images (``--images``), matched to a
            turn by the file name its URL ends in; without it no image has a file.
        strict: Refuse the file when a QA item is malformed instead of skipping it.

    Raises:
        DatasetError: the file is not a LoCoMo dataset (not a list of samples, a sample
            without ``sample_id`` or ``conversation``, a conversation without turns, a
            repeated sample id), or (``strict``) has a malformed QA item.
    """
    data = read_json_file(path, error=DatasetError, what="LoCoMo dataset file")
    where = str(path)
    if not isinstance(data, list) or not data:
        raise DatasetError(
            "not a LoCoMo dataset: expected a JSON list of samples ({sample_id, conversation, qa})",
            where=where,
            fix="Pass LoCoMo's data/locomo10.json with --dataset PATH.",
        )
    notices: list[Notice] = []
    content_hash = hashlib.sha256(path.read_bytes()).hexdigest()
    stem = path.stem
    images_dir = images.expanduser().resolve() if images is not None else None
    builder = _Builder(where, images_dir, strict=strict)
    seen: set[str] = set()
    for number, sample in enumerate(data, start=1):
        sample_where = f"{where} [sample {number}]"
        if not isinstance(sample, dict):
            raise DatasetError(
                f"sample {number} is not a JSON object (a {type(sample).__name__})",
                where=sample_where,
                fix="Check the file; it does not look like LoCoMo's locomo10.json.",
            )
        sample_id = sample.get("sample_id")
        if not isinstance(sample_id, str) or not sample_id.strip():
            raise DatasetError(
                f"sample {number} has no 'sample_id'",
                where=sample_where,
                fix='Every LoCoMo sample names itself (e.g. "conv-26"); restore the file.',
            )
        sample_id = sample_id.strip()
        if sample_id in seen:
            raise DatasetError(
                f"sample id {sample_id!r} appears twice",
                where=sample_where,
                fix="Each conversation must appear once; restore the file.",
            )
        seen.add(sample_id)
        conversation = sample.get("conversation")
        if not isinstance(conversation, dict):
            raise DatasetError(
                f"sample {sample_id!r} has no 'conversation' object",
                where=sample_where,
                fix="Check the file; it does not look like LoCoMo's locomo10.json.",
            )
        builder.add_conversation(sample_id, conversation, sample_where)
        qas = sample.get("qa")
        if qas is None:
            qas = []
        if not isinstance(qas, list):
            raise DatasetError(
                f"sample {sample_id!r}: 'qa' is not a list (a {type(qas).__name__})",
                where=sample_where,
                fix="Check the file; it does not look like LoCoMo's locomo10.json.",
            )
        builder.add_questions(sample_id, qas)
    notices += builder.notices()
    dataset_id = f"{BENCHMARK}-{_slug(stem)}-{content_hash[:12]}"
    record = DatasetRecord(
        dataset_id=dataset_id,
        benchmark=BENCHMARK,
        task=stem,
        source_path=str(path.resolve()),
        content_hash=content_hash,
        media_root=str(images_dir) if images_dir is not None else None,
        sessions=builder.sessions,
        rounds=builder.rounds,
        questions=builder.questions,
        notices=notices,
    )
    return LocomoDataset(
        record=record,
        samples=list(builder.session_ids),
        questions={q.qid: q for q in builder.questions},
        qa_counts=builder.qa_counts,
        rounds=builder.round_ids,
        sessions=builder.session_ids,
        by_text=builder.by_text,
        malformed=list(builder.bad_items),
    )


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "dataset"


def normalised(text: str) -> str:
    """A question's text with whitespace collapsed (as the question key sees it)."""
    return " ".join(text.split())


class _Builder:
    """Collects the records of one file, sample by sample, and what went wrong on the way."""

    def __init__(self, where: str, images: Path | None, *, strict: bool) -> None:
        self.where = where
        self.images = images
        self.strict = strict
        self.sessions: list[SessionRecord] = []
        self.rounds: list[RoundRecord] = []
        self.questions: list[QuestionRecord] = []
        self.session_ids: dict[str, dict[int, str]] = {}
        self.round_ids: dict[str, dict[str, str]] = {}
        self.session_of_round: dict[str, int] = {}
        self.image_rounds: set[str] = set()
        self.qa_counts: dict[str, int] = {}
        self.by_text: dict[tuple[str, str], list[str]] = {}
        self.bad_turns: list[str] = []
        self.duplicate_turns: list[str] = []
        self.bad_items: list[tuple[str, str]] = []
        self.unresolved: list[str] = []
        self.bad_evidence: list[str] = []
        self.images_wanted = 0
        self.images_missing: list[str] = []

    # --- turns ----------------------------------------------------------------------------

    def add_conversation(self, sample_id: str, conversation: JSONObject, where: str) -> None:
        numbers = sorted(
            int(match[1])
            for key, value in conversation.items()
            if (match := SESSION_KEY.match(str(key))) and isinstance(value, list) and value
        )
        if not numbers:
            raise DatasetError(
                f"sample {sample_id!r}: the conversation has no session_<N> turn list",
                where=where,
                fix="Check the file; it does not look like LoCoMo's locomo10.json.",
            )
        sessions = self.session_ids.setdefault(sample_id, {})
        turns = self.round_ids.setdefault(sample_id, {})
        for number in numbers:
            sid = session_id(sample_id, number)
            date = conversation.get(f"session_{number}_date_time")
            self.sessions.append(
                SessionRecord(
                    sid, len(self.sessions) + 1, None if date in (None, "") else str(date)
                )
            )
            sessions[number] = sid
            order = 0
            session_turns = conversation[f"session_{number}"]
            assert isinstance(session_turns, list)  # numbers holds only sessions with a list
            for turn_number, turn in enumerate(session_turns, start=1):
                dia_id = turn.get("dia_id") if isinstance(turn, dict) else None
                if not isinstance(dia_id, str) or not dia_id.strip():
                    self.bad_turns.append(f"{sample_id} session_{number} turn {turn_number}")
                    continue
                dia_id = dia_id.strip()
                canonical = canonical_dia_id(dia_id) or dia_id
                if canonical in turns:
                    self.duplicate_turns.append(f"{sample_id}:{dia_id}")
                    continue
                assert isinstance(turn, dict)
                order += 1
                rid = round_id(sample_id, dia_id)
                turns[canonical] = rid
                self.session_of_round[rid] = number
                self.rounds.append(self._round(rid, sid, order, turn, sample_id, dia_id))

    def _round(
        self,
        rid: str,
        sid: str,
        order: int,
        turn: JSONObject,
        sample_id: str,
        dia_id: str,
    ) -> RoundRecord:
        speaker = str(turn.get("speaker") or "").strip()
        text = "" if turn.get("text") is None else str(turn["text"])
        img_url = turn.get("img_url")
        if isinstance(img_url, str):
            urls = [img_url] if img_url.strip() else []
        else:
            listed = img_url if isinstance(img_url, list) else []
            urls = [u for u in listed if isinstance(u, str) and u.strip()]
        caption = turn.get("blip_caption")
        caption_text = str(caption) if isinstance(caption, str) else ""
        refs = urls or ([""] if caption_text else [])
        captions = [caption_text] + [""] * (len(refs) - 1) if refs else []
        files = [self._image_file(url) if url else None for url in refs]
        if refs:
            self.image_rounds.add(rid)
        extra: JSONObject = {"sample_id": sample_id, "dia_id": dia_id, "speaker": speaker}
        for name in ("query", "re-download"):
            if turn.get(name) not in (None, ""):
                extra[name] = turn[name]
        return RoundRecord(
            round_id=rid,
            session_id=sid,
            position=len(self.rounds) + 1,
            round_order=order,
            user_text=f"{speaker}: {text}" if speaker else text,
            image_refs=refs,
            image_files=files,
            image_captions=captions,
            extra=extra,
        )

    def _image_file(self, url: str) -> str | None:
        if self.images is None:
            return None
        self.images_wanted += 1
        name = image_file_name(url)
        found = _local_image(self.images / name) if name else None
        if found is not None and not _inside(Path(found), self.images):
            found = None  # a link that leads out of --images is not a local copy
        if found is None:
            self.images_missing.append(name or url)
        return found

    # --- questions ------------------------------------------------------------------------

    def add_questions(self, sample_id: str, qas: list[JSONValue]) -> None:
        self.qa_counts[sample_id] = len(qas)
        numbers = sorted(self.session_ids[sample_id])
        last_session = numbers[-1]
        repeats: Counter[str] = Counter()
        for position, item in enumerate(qas, start=1):
            qid = qid_for(sample_id, position)
            problem = _item_problem(item)
            if problem:
                self.bad_items.append((qid, problem))
                continue
            assert isinstance(item, dict)
            category = item["category"]
            assert isinstance(category, int)  # _item_problem refused any other
            text = str(item["question"])
            answer = item.get("answer")
            adversarial = item.get("adversarial_answer")
            gold_value = (
                adversarial if category == ADVERSARIAL and adversarial is not None else answer
            )
            evidence_raw = item.get("evidence")
            if evidence_raw is not None and not isinstance(evidence_raw, (list, str)):
                self.bad_evidence.append(f"{qid} ({type(evidence_raw).__name__})")
            clue_ids = clean_evidence(evidence_raw)
            clue_rounds: list[str] = []
            for clue in clue_ids:
                resolved = self.round_ids[sample_id].get(clue)
                if resolved is None:
                    self.unresolved.append(f"{qid}:{clue}")
                elif resolved not in clue_rounds:
                    clue_rounds.append(resolved)
            evidence_sessions = [self.session_of_round[r] for r in clue_rounds]
            source_sessions: list[str] = []
            for number in evidence_sessions:
                sid = self.session_ids[sample_id][number]
                if sid not in source_sessions:
                    source_sessions.append(sid)
            age = (
                numbers.index(last_session) - numbers.index(max(evidence_sessions))
                if evidence_sessions
                else None
            )
            modality = (
                ("image" if any(r in self.image_rounds for r in clue_rounds) else "text")
                if clue_rounds
                else None
            )
            key_text = normalised(text)
            repeats[key_text] += 1
            if repeats[key_text] > 1:
                key_text = f"{key_text}{KEY_SEPARATOR}#{repeats[key_text]}"
            extra: JSONObject = {
                "benchmark": BENCHMARK,
                "sample_id": sample_id,
                "position": position,
                "category": category,
                "category_name": CATEGORY_NAMES[category],
                "evidence_age": age,
                "evidence_modality": modality,
                "evidence": evidence_raw,
            }
            for name in ("answer", "adversarial_answer"):
                if item.get(name) is not None:
                    extra[name] = item[name]
            unresolved_here: list[JSONValue] = [
                c for c in clue_ids if self.round_ids[sample_id].get(c) is None
            ]
            if unresolved_here:
                extra["unresolved_evidence"] = unresolved_here
            question = QuestionRecord(
                qid=qid,
                idx=len(self.questions) + 1,
                question_key=question_key(sample_id, MODE, key_text),
                task=sample_id,
                question=text,
                gold=None if gold_value is None else str(gold_value),
                mode=MODE,
                clue_ids=clue_ids,
                clue_rounds=clue_rounds,
                source_sessions=source_sessions,
                extra=extra,
            )
            self.questions.append(question)
            self.by_text.setdefault((sample_id, normalised(text)), []).append(qid)

    # --- what went wrong --------------------------------------------------------------------

    def notices(self) -> list[Notice]:
        where = self.where
        found: list[Notice] = []
        if self.bad_items:
            listed = "; ".join(f"{qid}: {why}" for qid, why in self.bad_items[:MAX_EXAMPLES])
            message = f"{len(self.bad_items)} malformed QA item(s) skipped: {listed}"
            if self.strict:
                raise DatasetError(
                    message + " (--strict)",
                    where=where,
                    fix="Fix the QA items, or drop --strict to read the good ones.",
                )
            found.append(Notice(message, where))
        if self.unresolved:
            found.append(
                Notice(
                    f"{len(self.unresolved)} evidence id(s) name no turn of their conversation "
                    "(after splitting joined ids and removing parentheses); the evidence "
                    "metrics ignore them",
                    where,
                    tuple(self.unresolved[:MAX_EXAMPLES]),
                )
            )
        if self.bad_evidence:
            found.append(
                Notice(
                    f"{len(self.bad_evidence)} QA item(s) have an 'evidence' that is not a list; "
                    "read as no evidence",
                    where,
                    tuple(self.bad_evidence[:MAX_EXAMPLES]),
                )
            )
        if self.bad_turns:
            found.append(
                Notice(
                    f"{len(self.bad_turns)} turn(s) without a 'dia_id' skipped",
                    where,
                    tuple(self.bad_turns[:MAX_EXAMPLES]),
                )
            )
        if self.duplicate_turns:
            found.append(
                Notice(
                    f"{len(self.duplicate_turns)} repeated dia_id(s); the first turn is kept",
                    where,
                    tuple(self.duplicate_turns[:MAX_EXAMPLES]),
                )
            )
        if self.images is not None and self.images_missing:
            found.append(
                Notice(
                    f"{len(self.images_missing)} of {self.images_wanted} shared image(s) have no "
                    f"local copy in {self.images} (matched by the URL's file name); the app shows "
                    "their captions and URLs",
                    where,
                    tuple(self.images_missing[:MAX_EXAMPLES]),
                )
            )
        return found


def _item_problem(item: JSONValue) -> str | None:
    """Why a QA item cannot be read, or None."""
    if not isinstance(item, dict):
        return f"not a JSON object (a {type(item).__name__})"
    question = item.get("question")
    if not isinstance(question, str) or not question.strip():
        return "no 'question' text"
    category = item.get("category")
    if (
        isinstance(category, bool)
        or not isinstance(category, int)
        or category not in CATEGORY_NAMES
    ):
        return f"'category' must be 1-5, got {category!r}"[:80]
    for name in ("answer", "adversarial_answer"):
        value = item.get(name)
        if value is not None and not isinstance(value, (str, int, float)):
            return f"'{name}' must be text, got {type(value).__name__}"
    return None


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path``, links followed, lies inside ``folder``."""
    try:
        path.resolve().relative_to(folder.resolve())
    except (OSError, ValueError):
        return False
    return True


def _local_image(path: Path) -> str | None:
    """``path`` as a string when it is a regular image file (by its first bytes), else None."""
    from memscope.plugin import media_kind

    return str(path) if media_kind(path) == "image" else None
