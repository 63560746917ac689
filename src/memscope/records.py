"""Plain records every layer shares: what an adapter reads and the store keeps.

Adapters produce these from files; the store persists them; nothing here knows DuckDB,
Textual or torch. Per-question predictions of a run are large, so a run carries them as a
:class:`BulkSource` (a file the store bulk-loads) or as an Arrow table, never as a list of
Python objects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from memscope.json_types import JSONObject, JSONValue
from memscope.record_formats import DatasetFormat, LinesFormat

if TYPE_CHECKING:
    import pyarrow as pa

RetrievalKind = Literal["ranked", "unranked", "context", "none"]
"""How a run recorded what its memory retrieved.

- ``ranked``: an ordered list per question (MemEye ``seed_round_ids``, rank 1 first).
- ``unranked``: a set without order (gen_agents ``retrieved_round_ids``).
- ``context``: no retrieval; a fixed context (full history, or the clue rounds for oracles).
- ``none``: nothing was logged (question-only and most agentic methods).
"""


@dataclass(frozen=True)
class Notice:
    """A non-fatal problem found while reading input, shown as a warning."""

    what: str
    where: str
    examples: tuple[str, ...] = ()

    def __str__(self) -> str:
        text = f"{self.where}: {self.what}"
        if self.examples:
            text += " (e.g. " + ", ".join(self.examples) + ")"
        return text


@dataclass
class SessionRecord:
    """One dialogue session, in the order the benchmark replays it."""

    session_id: str
    session_order: int
    date: str | None = None


@dataclass
class RoundRecord:
    """One dialogue round (turn) with its media.

    ``position`` is the global dialogue position 1..N (session order, then round order)
    used for "latest", "stale" and recency age. Media lists are aligned index by index:
    ``image_refs[i]`` is the path as written in the dataset, ``image_files[i]`` the file it
    resolved to (``None`` when it is missing), ``image_captions[i]`` its caption.
    """

    round_id: str
    session_id: str
    position: int
    round_order: int
    user_text: str = ""
    assistant_text: str = ""
    image_refs: list[str] = field(default_factory=list)
    image_files: list[str | None] = field(default_factory=list)
    image_captions: list[str] = field(default_factory=list)
    image_ids: list[str] = field(default_factory=list)
    audio_refs: list[str] = field(default_factory=list)
    audio_files: list[str | None] = field(default_factory=list)
    audio_captions: list[str] = field(default_factory=list)
    audio_ids: list[str] = field(default_factory=list)
    background_audio: str | None = None
    extra: JSONObject = field(default_factory=dict)


@dataclass
class QuestionRecord:
    """One benchmark question with its place on the axes and its gold evidence.

    ``x`` / ``y`` are the coordinate (the highest label on each axis, MemEye's
    highest-bottleneck rule); ``x_labels`` / ``y_labels`` keep every label.
    ``clue_ids`` are the gold ids as written; ``clue_rounds`` those that resolve to a round.
    """

    qid: str
    idx: int
    question_key: str
    task: str
    question: str
    gold: str | None
    mode: str
    x: str | None = None
    y: str | None = None
    x_labels: list[str] = field(default_factory=list)
    y_labels: list[str] = field(default_factory=list)
    options: JSONValue = None
    clue_ids: list[str] = field(default_factory=list)
    clue_rounds: list[str] = field(default_factory=list)
    source_sessions: list[str] = field(default_factory=list)
    question_images: list[str] = field(default_factory=list)
    extra: JSONObject = field(default_factory=dict)


@dataclass
class DatasetRecord:
    """A benchmark dataset: sessions, rounds and questions, identified by content."""

    dataset_id: str
    benchmark: str
    task: str
    source_path: str
    content_hash: str
    media_root: str | None
    sessions: list[SessionRecord]
    rounds: list[RoundRecord]
    questions: list[QuestionRecord]
    notices: list[Notice] = field(default_factory=list)


RoundsBuilder = Callable[[JSONValue], tuple[list[SessionRecord], list[RoundRecord], list[Notice]]]
"""Turns a dataset's raw session list into session and round records (with media resolved)."""


@dataclass
class DatasetSource:
    """A dataset file the store bulk-loads itself (its question list can be huge).

    The store stages the file with DuckDB, hands the raw session list to
    ``build_rounds`` (adapter code: small, needs the file system for media) and derives
    the questions in SQL. ``loader`` is the file's declared format
    (:class:`~memscope.record_formats.DatasetFormat`); a name is refused.
    """

    loader: str | DatasetFormat
    dataset_id: str
    benchmark: str
    task: str
    source_path: str
    content_hash: str
    media_root: str | None
    build_rounds: RoundsBuilder
    notices: list[Notice] = field(default_factory=list)


@dataclass(frozen=True)
class BulkSource:
    """A per-question file the store bulk-loads itself (too large for Python rows).

    ``loader`` is the file's declared format (:class:`~memscope.record_formats.LinesFormat`:
    the benchmark says what the file holds, the store reads it with DuckDB); a name
    is refused, as the store has no loader of its own left to name.
    """

    loader: str | LinesFormat
    path: Path
    options: dict[str, str | None] = field(default_factory=dict)


@dataclass
class RunRecord:
    """One run directory: its identity, configuration and per-question results."""

    run_id: str
    path: str
    content_hash: str
    file_stats: dict[str, list[int]]
    benchmark: str
    task: str
    model: str | None
    method: str | None
    base_method: str | None
    modality: str | None
    mode: str | None
    top_k: int | None
    retrieval_kind: RetrievalKind | None
    config: JSONObject
    metrics: JSONObject
    dataset: DatasetRecord | DatasetSource
    predictions: BulkSource | pa.Table
    retrievals: pa.Table | None = None
    notices: list[Notice] = field(default_factory=list)
    detail_tables: dict[str, pa.Table] = field(default_factory=dict)
    """Benchmark-specific per-run tables (e.g. DMV-Bench recall steps), keyed by store
    table name and written in the run's transaction; see ``store/run_details.py``."""
    reread: bool = False
    """Stored again even where the stored run has the same content hash (``ingest
    --reread``: set by memscope from ``ReadOptions.reread``, never by a reader)."""


# --- The memory engine's native runs (``memscope retrieve``) ----------------------------------
# What the engine hands a benchmark's run writer (``Benchmark.run_writer``): plain data, so a
# writer lives beside its benchmark's readers and needs neither the engine nor the store.


@dataclass(frozen=True)
class EngineCandidate:
    """One round of a question's ranked pool, as the memory engine scored it."""

    rank: int
    """1 = best."""
    round_id: str
    score: float | None
    """The retriever's fused score (what the ranking sorts by)."""
    text_score: float | None
    image_score: float | None
    """None for a retriever without an image channel."""
    best_image: str | None = None
    """The image file of the round that scored best on the image channel (None without one)."""


@dataclass(frozen=True)
class EngineRetriever:
    """The retriever and models a native run was made with."""

    method: str
    """The engine's method: ``srag_t``, ``srag_v`` or ``dualmem``."""
    backend: str
    """How it scores (``dense_text``, ``dense_multimodal``, ``dualmem_hybrid_norm``)."""
    modality: str
    """How an answer model sees the retrieved rounds: ``text_only`` or ``multimodal``."""
    corpus: str
    """Which round text the text channel embeds (``round_text``: with captions;
    ``round_dialogue``: without)."""
    uses_images: bool
    weights: dict[str, float]
    """The method's weights by their MemEye names (``text_dense_weight`` …); ``{}`` for SRAG(T)."""
    top_k: int
    pool_size: int
    corpus_size: int
    """Rounds in the memory bank (all banks together)."""
    text_model: str
    """What finds the text model again (``all-MiniLM-L6-v2``)."""
    text_model_id: str
    """The engine's cache id of the text model (a fingerprint of its weights)."""
    text_model_label: str
    """What to call the text model in names and messages."""
    image_model: tuple[str, str | None] | None = None
    """``(open_clip name, pretrained)`` of the image model; None without an image channel."""
    image_model_id: str | None = None


@dataclass(frozen=True)
class EngineAnswerer:
    """The answer model a native run asked (None in a retrieval-only run)."""

    model: str
    endpoint: str
    max_tokens: int
    timeout_s: float


@dataclass
class EngineRetrieval:
    """One question of a native run: what the engine retrieved for it (and answered)."""

    qid: str
    idx: int
    question: str
    gold: str | None
    mode: str
    x_labels: list[str]
    y_labels: list[str]
    clue_ids: list[str]
    source_sessions: list[str]
    pool: list[EngineCandidate]
    """The whole ranked pool, rank 1 first (the top ``top_k`` are what was retrieved)."""
    history_round_ids: list[str]
    """The top ``top_k`` in dialogue order: what an answer model was shown."""
    history_turns: int
    """Messages of that history after the answer protocol built it."""
    answer: Mapping[str, object] | None = None
    """The answer's fields as ``engine/answer.py`` returns them (``pred``, ``em`` …), or None."""
    history_sessions: list[str] | None = None
    """The stored session ids of the question's own history, in its order, where its
    benchmark declares one (``Benchmark.history = "extra:<key>"``); None otherwise."""


@dataclass(frozen=True)
class EngineRunPlan:
    """What a native run is over and how it was made: everything but its questions."""

    dataset_id: str
    benchmark: str
    task: str
    source_path: str | None
    """The dataset file the questions come from (None when the store no longer knows it)."""
    content_hash: str | None
    """That file's SHA-256 as the dataset was read (a writer that copies from the file checks it)."""
    media_root: str | None
    n_dataset_questions: int
    mode: str
    """The run's answer mode (``mcq`` when every question is one, else ``open``)."""
    retriever: EngineRetriever
    answerer: EngineAnswerer | None = None
    memscope_version: str = ""
