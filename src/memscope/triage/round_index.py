"""The dataset's dialogue rounds in memory, looked up by round id: text, media, session.

Built from ``queries.rounds_table`` (or the part of it one question needs); ``get`` turns one row into a
:class:`RoundDetail` with its images and audio (the path as written, the file it resolved
to, the caption a text-only memory saw).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa


def json_or_none(text: object) -> object:
    """A JSON column's text parsed (None when it does not parse); non-text passes through."""
    if text is None or not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return None


def float_or_none(value: object) -> float | None:
    """A stored number for display: None for None, NaN or anything not a number."""
    if not isinstance(value, (int, float, str)):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return None if math.isnan(number) else number


@dataclass(frozen=True)
class MediaItem:
    """One image or audio clip of a round: the path as written, the file it resolved to
    (None when missing) and the caption a text-only memory saw instead."""

    kind: str
    ref: str
    file: str | None
    caption: str
    media_id: str


@dataclass(frozen=True)
class RoundDetail:
    """One dialogue round in full."""

    round_id: str
    session_id: str
    session_order: int
    date: str | None
    position: int
    user_text: str
    assistant_text: str
    images: tuple[MediaItem, ...]
    audio: tuple[MediaItem, ...]
    background_audio: str | None
    transcripts: tuple[str, ...]


class RoundIndex:
    """The dataset's rounds (``queries.rounds_table``) with look-ups by round id.

    ``table`` may hold only some of the dataset's rounds (those one question's timeline
    shows); ``n`` is then the dataset's round count, which ages are measured against.
    """

    def __init__(self, table: pa.Table, n: int | None = None) -> None:
        self.table = table
        ids = table.column("round_id").to_pylist()
        self.row_of: dict[str, int] = {round_id: row for row, round_id in enumerate(ids)}
        self.round_ids = ids
        self.positions = np.asarray(
            table.column("position").to_numpy(zero_copy_only=False), dtype=np.int64
        )
        self.session_ids = table.column("session_id").to_pylist()
        self.dates = table.column("date").to_pylist()
        self.session_orders = table.column("session_order").to_pylist()
        self.id_at_position: dict[int, str] = dict(zip(self.positions.tolist(), ids, strict=True))
        self.n = len(ids) if n is None else n

    def position(self, round_id: str) -> int | None:
        """The global position 1..N of a round (None when unknown to the dataset)."""
        row = self.row_of.get(round_id)
        return int(self.positions[row]) if row is not None else None

    def get(self, round_id: str) -> RoundDetail | None:
        """The round in full, or None when the dataset has no such round."""
        row = self.row_of.get(round_id)
        if row is None:
            return None
        values = self.table.slice(row, 1).to_pylist()[0]
        extra = json_or_none(values.get("extra")) or {}
        transcripts = tuple(
            str(extra[name])
            for name in ("user_voice_message_caption", "transcript", "asr")
            if isinstance(extra, dict) and extra.get(name)
        )
        return RoundDetail(
            round_id=values["round_id"],
            session_id=values["session_id"],
            session_order=int(values["session_order"] or 0),
            date=values.get("date"),
            position=int(values["position"]),
            user_text=values.get("user_text") or "",
            assistant_text=values.get("assistant_text") or "",
            images=_media("image", values, "image"),
            audio=_media("audio", values, "audio"),
            background_audio=values.get("background_audio"),
            transcripts=transcripts,
        )


def _media(kind: str, values: dict[str, Any], prefix: str) -> tuple[MediaItem, ...]:
    refs = values.get(f"{prefix}_refs") or []
    files = values.get(f"{prefix}_files") or []
    captions = values.get(f"{prefix}_captions") or []
    ids = values.get(f"{prefix}_ids") or []
    items = []
    for i, ref in enumerate(refs):
        items.append(
            MediaItem(
                kind=kind,
                ref=str(ref),
                file=files[i] if i < len(files) else None,
                caption=str(captions[i]) if i < len(captions) and captions[i] is not None else "",
                media_id=str(ids[i]) if i < len(ids) and ids[i] is not None else "",
            )
        )
    return tuple(items)
