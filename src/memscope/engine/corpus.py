"""What the retrievers embed: a round's corpus text, its captions and images, the questions.

The corpus text follows MemEye's ``build_round_retrieval_text`` exactly, so recomputed
scores match the ones a MemEye run logged: the user text and the assistant text, each
stripped, then for the text-only modality the round's non-empty captions joined by single
spaces; the non-empty parts are joined by single spaces. A round whose text is empty is
not in the corpus (MemEye skips it too). The query is the question text alone, stripped:
never the MCQ options block.

Every embedded item is identified by a content hash of what is embedded (prefixed by its
modality, so a text and an image file with the same bytes differ), which keys the
embedding cache.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Modality = Literal["text_only", "multimodal"]
ItemKind = Literal["round_text", "round_dialogue", "caption", "image", "question"]

ROUND_TEXT: ItemKind = "round_text"
"""User + assistant + captions: SRAG(T)'s corpus and DualMem's verbal channel."""
ROUND_DIALOGUE: ItemKind = "round_dialogue"
"""User + assistant only: the text channel of SRAG(V) (MemEye's multimodal corpus)."""
CAPTION: ItemKind = "caption"
IMAGE: ItemKind = "image"
QUESTION: ItemKind = "question"
TEXT_KINDS: tuple[ItemKind, ...] = (ROUND_TEXT, ROUND_DIALOGUE, CAPTION, QUESTION)
HASH_CHUNK = 1 << 20


@dataclass
class CorpusRound:
    """The parts of a dialogue round the engine reads."""

    round_id: str
    position: int
    user_text: str = ""
    assistant_text: str = ""
    image_captions: list[str] = field(default_factory=list)
    image_files: list[str | None] = field(default_factory=list)
    image_ids: list[str] = field(default_factory=list)
    session_id: str = ""
    bank: str = ""
    """The separate memory the round belongs to (``""``: the dataset is one memory)."""


@dataclass(frozen=True)
class CorpusItem:
    """One thing to embed, with where it comes from."""

    kind: ItemKind
    item_id: str
    """The round id, ``<round>#caption<i>`` / ``<round>#image<i>``, or the question's qid."""
    round_id: str | None
    ordinal: int
    """Order within its kind (dialogue order for rounds, idx for questions)."""
    content_hash: str
    text: str | None = None
    path: str | None = None


def clean_captions(captions: list[str]) -> list[str]:
    """The captions MemEye keeps: stripped, empty ones dropped."""
    return [text for text in (str(caption).strip() for caption in captions) if text]


def round_corpus_text(round_: CorpusRound, modality: Modality) -> str:
    """MemEye's retrieval text of a round for a modality (``build_round_retrieval_text``)."""
    parts = [round_.user_text.strip(), round_.assistant_text.strip()]
    if modality == "text_only":
        captions = " ".join(clean_captions(round_.image_captions))
        if captions:
            parts.append(captions)
    return " ".join(part for part in parts if part)


def question_query(question: str | None) -> str:
    """The retrieval query of a question: its text, stripped (never the options block)."""
    return (question or "").strip()


def text_hash(text: str) -> str:
    """Content hash of a text to embed."""
    return hashlib.sha256(b"text\0" + text.encode("utf-8")).hexdigest()


def file_hash(path: str | Path) -> str:
    """Content hash of an image file to embed."""
    digest = hashlib.sha256(b"image\0")
    with Path(path).open("rb") as handle:
        while chunk := handle.read(HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def round_items(
    rounds: list[CorpusRound], kinds: tuple[str, ...] | None = None
) -> tuple[list[CorpusItem], list[str]]:
    """Every round-level item of a dataset, and the image files that could not be read.

    Args:
        rounds: The dataset's rounds.
        kinds: Only these kinds (default: all); without ``image`` no file is read.

    Returns:
        Items of kinds round_text, round_dialogue, caption and image, in dialogue order;
        and ``"<round>: <file>"`` for each listed image that is missing or unreadable.
    """
    items: list[CorpusItem] = []
    unreadable: list[str] = []
    ordinals = {kind: 0 for kind in (ROUND_TEXT, ROUND_DIALOGUE, CAPTION, IMAGE)}

    wanted = set(kinds) if kinds is not None else {ROUND_TEXT, ROUND_DIALOGUE, CAPTION, IMAGE}

    def add(
        kind: ItemKind,
        item_id: str,
        round_id: str,
        digest: str,
        text: str | None = None,
        path: str | None = None,
    ) -> None:
        items.append(CorpusItem(kind, item_id, round_id, ordinals[kind], digest, text, path))
        ordinals[kind] += 1

    for round_ in sorted(rounds, key=lambda r: r.position):
        for kind, modality in ((ROUND_TEXT, "text_only"), (ROUND_DIALOGUE, "multimodal")):
            text = round_corpus_text(round_, modality)  # type: ignore[arg-type]
            if text and kind in wanted:
                add(kind, round_.round_id, round_.round_id, text_hash(text), text=text)
        for number, caption in enumerate(round_.image_captions):
            caption_text = str(caption).strip()
            if caption_text and CAPTION in wanted:
                add(
                    CAPTION,
                    f"{round_.round_id}#caption{number}",
                    round_.round_id,
                    text_hash(caption_text),
                    text=caption_text,
                )
        for number, image_file in enumerate(round_.image_files if IMAGE in wanted else []):
            if not image_file:
                unreadable.append(f"{round_.round_id}: image {number + 1} (missing)")
                continue
            try:
                digest = file_hash(image_file)
            except OSError as exc:
                unreadable.append(f"{round_.round_id}: {image_file} ({exc.strerror or exc})")
                continue
            add(IMAGE, f"{round_.round_id}#image{number}", round_.round_id, digest, path=image_file)
    return items, unreadable


def question_items(questions: list[tuple[str, int, str]]) -> list[CorpusItem]:
    """Items for questions given as ``(qid, idx, question text)``; empty queries are skipped."""
    items = []
    for qid, idx, question in sorted(questions, key=lambda q: q[1]):
        query = question_query(question)
        if query:
            items.append(CorpusItem(QUESTION, qid, None, idx, text_hash(query), text=query))
    return items
