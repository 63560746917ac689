"""The datasets the engine works on: read from a benchmark's dataset file or from the store.

``open_dataset`` accepts what a user calls a dataset (a dataset file, a dataset id, or a run
id) and returns its rounds and questions as the engine needs them. A file is read by the
benchmark whose spec's ``dataset_reader`` recognises it, and stored too, under the dataset
id its runs use when the store already has the same file. Where the spec names a
``memory_bank`` attribute, every round and question carries its bank, so a retrieval
ranks each question among its own memory's rounds only; where the spec's ``history`` is
``extra:<key>``, every question carries the session ids of its own history (a haystack
that may share sessions with other questions'), and is ranked among their rounds only.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memscope.adapters.registry import benchmarks, registry
from memscope.engine.corpus import CorpusRound
from memscope.errors import DatasetError, EngineError, NotFoundError
from memscope.json_types import JSONValue
from memscope.records import DatasetSource
from memscope.store import Store, queries
from memscope.store import embeddings as cache

if TYPE_CHECKING:
    from memscope.adapters.spec import Benchmark
    from memscope.records import DatasetRecord


@dataclass
class EngineQuestion:
    """A question as the engine needs it."""

    qid: str
    idx: int
    question: str
    gold: str | None
    mode: str
    options: JSONValue = None
    x_labels: list[str] = field(default_factory=list)
    y_labels: list[str] = field(default_factory=list)
    clue_ids: list[str] = field(default_factory=list)
    source_sessions: list[str] = field(default_factory=list)
    question_images: list[str] = field(default_factory=list)
    bank: str = ""
    """The separate memory the question retrieves from (``""``: the whole dataset)."""
    history: tuple[str, ...] | None = None
    """The session ids of the question's own history where its benchmark declares one
    (``Benchmark.history = "extra:<key>"``: a haystack of sessions it alone saw, which may
    share sessions with other questions'); None: its memory is its bank."""


@dataclass
class EngineDataset:
    """A dataset's rounds and questions, from a dataset file or the store."""

    dataset_id: str
    task: str
    source_path: str | None
    media_root: str | None
    rounds: list[CorpusRound]
    questions: list[EngineQuestion]
    notices: list[str] = field(default_factory=list)
    benchmark: str | None = None
    """The benchmark the dataset belongs to (its spec writes the native runs)."""
    content_hash: str | None = None
    """The SHA-256 of the file it was read from."""

    @property
    def banked(self) -> bool:
        """Whether its questions retrieve from separate memories."""
        return any(question.bank for question in self.questions)

    @property
    def historied(self) -> bool:
        """Whether its questions retrieve each from the sessions of its own history."""
        return any(question.history is not None for question in self.questions)

    def rounds_by_id(self) -> dict[str, CorpusRound]:
        """Rounds keyed by round id."""
        return {round_.round_id: round_ for round_ in self.rounds}


def _installed(name: str | None) -> Benchmark | None:
    """The spec of benchmark ``name`` when it is installed (else None: no bank to read)."""
    return registry().benchmarks.get(name) if name else None


def _bank_attribute(spec: Benchmark | None) -> str | None:
    return spec.dataset_reader.memory_bank if spec and spec.dataset_reader else None


def _history_attribute(spec: Benchmark | None) -> str | None:
    """The question attribute listing each question's history sessions (``extra:<key>``)."""
    declared = spec.history if spec else None
    return declared.removeprefix("extra:") if declared and declared.startswith("extra:") else None


def _history(extra: object, attribute: str | None) -> tuple[str, ...] | None:
    """The session ids ``extra[attribute]`` lists (``extra`` a dict or its JSON text)."""
    if attribute is None or extra is None:
        return None
    if isinstance(extra, str):
        try:
            extra = json.loads(extra)
        except ValueError:
            return None
    value = extra.get(attribute) if isinstance(extra, dict) else None
    return tuple(str(sid) for sid in value) if isinstance(value, list) else None


def _bank(extra: object, attribute: str | None) -> str:
    """The bank named by ``extra[attribute]`` (``extra`` a dict or its JSON text)."""
    if attribute is None or extra is None:
        return ""
    if isinstance(extra, str):
        try:
            extra = json.loads(extra)
        except ValueError:
            return ""
    value = extra.get(attribute) if isinstance(extra, dict) else None
    return "" if value is None else str(value)


def _from_record(record: DatasetRecord) -> EngineDataset:
    spec = _installed(record.benchmark)
    attribute = _bank_attribute(spec)
    history = _history_attribute(spec)
    rounds = [
        CorpusRound(
            r.round_id,
            r.position,
            r.user_text,
            r.assistant_text,
            list(r.image_captions),
            list(r.image_files),
            list(r.image_ids),
            r.session_id,
            _bank(r.extra, attribute),
        )
        for r in record.rounds
    ]
    questions = [
        EngineQuestion(
            q.qid,
            q.idx,
            q.question,
            q.gold,
            q.mode,
            q.options,
            list(q.x_labels),
            list(q.y_labels),
            list(q.clue_ids),
            list(q.source_sessions),
            list(q.question_images),
            _bank(q.extra, attribute),
            _history(q.extra, history),
        )
        for q in record.questions
    ]
    return EngineDataset(
        record.dataset_id,
        record.task,
        record.source_path,
        record.media_root,
        rounds,
        questions,
        [str(notice) for notice in record.notices],
        record.benchmark,
        record.content_hash,
    )


def dataset_from_store(store: Store, dataset_id: str) -> EngineDataset:
    with store.read() as con:
        info = cache.dataset_info(con, dataset_id)
        round_rows = queries.rounds_table(con, dataset_id).to_pylist()
        question_rows = cache.dataset_questions(con, dataset_id).to_pylist()
    if info is None:
        raise NotFoundError(f"no dataset {dataset_id!r} in the store", where=str(store.path))
    spec = _installed(info["benchmark"])
    attribute = _bank_attribute(spec)
    history = _history_attribute(spec)
    rounds = [
        CorpusRound(
            r["round_id"],
            r["position"],
            r["user_text"] or "",
            r["assistant_text"] or "",
            list(r["image_captions"] or []),
            list(r["image_files"] or []),
            list(r["image_ids"] or []),
            r["session_id"],
            _bank(r["extra"], attribute),
        )
        for r in round_rows
    ]
    questions = [
        EngineQuestion(
            q["qid"],
            q["idx"],
            q["question"] or "",
            q["gold"],
            q["mode"] or "open",
            json.loads(q["options"]) if q["options"] else None,
            list(q["x_labels"] or []),
            list(q["y_labels"] or []),
            list(q["clue_ids"] or []),
            list(q["source_sessions"] or []),
            list(q["question_images"] or []),
            _bank(q["extra"], attribute),
            _history(q["extra"], history),
        )
        for q in question_rows
    ]
    return EngineDataset(
        dataset_id,
        info["task"] or dataset_id,
        info["source_path"],
        info["media_root"],
        rounds,
        questions,
        benchmark=info["benchmark"],
        content_hash=info["content_hash"],
    )


def _file_sha256(path: Path) -> str:
    """The file's SHA-256, read in chunks (a dataset may be several GB)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def dataset_formats() -> str:
    """The dataset files the installed benchmarks read, in words (``MemEye: a dialog JSON …``)."""
    return "; ".join(
        f"{spec.title}: {spec.dataset_reader.accepts}"
        for spec in benchmarks()
        if spec.dataset_reader is not None
    )


def dataset_spec(path: Path) -> Benchmark:
    """The benchmark whose dataset reader recognises the file ``path``.

    Raises:
        DatasetError: no installed benchmark reads it (the message lists what is accepted).
    """
    for spec in benchmarks():
        if spec.dataset_reader is not None and spec.dataset_reader.sniff(path):
            return spec
    accepted = dataset_formats()
    raise DatasetError(
        "not a dataset file memscope's engine reads",
        where=str(path),
        fix=f"Pass one of these: {accepted}." if accepted else "Install a benchmark that reads it",
    )


def open_dataset(store: Store, ref: str | Path, *, image_root: Path | None = None) -> EngineDataset:
    """Open what the user calls a dataset: a benchmark's dataset file, a dataset id, or a run id.

    A file is read by the benchmark whose dataset reader recognises it (images resolved
    under ``image_root``, else where the benchmark looks by default) and stored, so a later
    search or ingest shares it.

    Raises:
        NotFoundError: when ``ref`` is none of these, naming close matches.
        DatasetError: when no benchmark reads the file, or it cannot be read.
    """
    path = Path(ref).expanduser()
    if path.is_file():
        with store.read() as con:
            known = cache.datasets_with_content(con, _file_sha256(path))
        if known:  # the runs that brought it named the task; keep their dataset id
            return dataset_from_store(store, known[0])
        reader = dataset_spec(path).dataset_reader
        assert reader is not None  # dataset_spec only returns a benchmark with one
        dataset = reader.read(path, image_root)
        with store.write() as con:
            notices = cache.store_dataset(con, dataset)
        if isinstance(dataset, DatasetSource):  # loaded by the store's SQL loader: read it back
            opened = dataset_from_store(store, dataset.dataset_id)
            opened.notices = [str(notice) for notice in notices]
            return opened
        return _from_record(dataset)
    if path.is_dir():
        raise EngineError(
            "a folder is not a dataset",
            where=str(path),
            fix=f"Pass a dataset file ({dataset_formats()}), a dataset id or a run id.",
        )
    name = str(ref)
    with store.read() as con:
        known = cache.dataset_ids(con)
        dataset_id = name if name in known else cache.run_dataset_id(con, name)
        runs = queries.run_ids(con)
    if dataset_id is None:
        close = difflib.get_close_matches(name, known + runs, n=3, cutoff=0.4)
        raise NotFoundError(
            f"no dialog file, dataset or run called {name!r}",
            where=str(store.path),
            fix=(f"Did you mean {', '.join(close)}? " if close else "")
            + "Pass a dataset file path, a dataset id or a run id (see `memscope runs`).",
        )
    return dataset_from_store(store, dataset_id)
