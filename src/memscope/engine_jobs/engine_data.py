"""The datasets the engine works on: read from a MemEye dialog file or from the store.

``open_dataset`` accepts what a user calls a dataset (a dialog JSON path, a dataset id, or
a run id) and returns its rounds and questions as the engine needs them. A dialog file is
stored too, under the dataset id its runs use when the store already has the same file.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscope.engine.corpus import CorpusRound
from memscope.errors import EngineError, NotFoundError
from memscope.store import Store, queries
from memscope.store import embeddings as cache

if TYPE_CHECKING:
    from memscope.records import DatasetRecord


@dataclass
class EngineQuestion:
    """A question as the engine needs it."""

    qid: str
    idx: int
    question: str
    gold: str | None
    mode: str
    options: Any = None
    x_labels: list[str] = field(default_factory=list)
    y_labels: list[str] = field(default_factory=list)
    clue_ids: list[str] = field(default_factory=list)
    source_sessions: list[str] = field(default_factory=list)
    question_images: list[str] = field(default_factory=list)


@dataclass
class EngineDataset:
    """A dataset's rounds and questions, from a dialog file or the store."""

    dataset_id: str
    task: str
    source_path: str | None
    media_root: str | None
    rounds: list[CorpusRound]
    questions: list[EngineQuestion]
    notices: list[str] = field(default_factory=list)

    def rounds_by_id(self) -> dict[str, CorpusRound]:
        """Rounds keyed by round id."""
        return {round_.round_id: round_ for round_ in self.rounds}


def _from_record(record: DatasetRecord) -> EngineDataset:
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
    )


def dataset_from_store(store: Store, dataset_id: str) -> EngineDataset:
    with store.read() as con:
        info = cache.dataset_info(con, dataset_id)
        round_rows = queries.rounds_table(con, dataset_id).to_pylist()
        question_rows = cache.dataset_questions(con, dataset_id).to_pylist()
    if info is None:
        raise NotFoundError(f"no dataset {dataset_id!r} in the store", where=str(store.path))
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
    )


def _file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def open_dataset(store: Store, ref: str | Path, *, image_root: Path | None = None) -> EngineDataset:
    """Open what the user calls a dataset: a MemEye dialog JSON, a dataset id, or a run id.

    A dialog file is read (images resolved under ``image_root``, else MemEye's default
    ``<data>/image``) and stored, so a later search or ingest shares it.

    Raises:
        NotFoundError: when ``ref`` is none of these, naming close matches.
        DatasetError: when the dialog file cannot be read.
    """
    from memscope.adapters.memeye.dataset import read_memeye_dataset

    path = Path(ref).expanduser()
    if path.is_file():
        default_root = path.resolve().parent.parent / "image"
        root = image_root or (default_root if default_root.is_dir() else None)
        with store.read() as con:
            known = cache.datasets_with_content(con, _file_sha256(path))
        if known:  # the runs that brought it named the task; keep their dataset id
            return dataset_from_store(store, known[0])
        record = read_memeye_dataset(path.resolve(), root)
        with store.write() as con:
            cache.store_dataset(con, record)
        return _from_record(record)
    if path.is_dir():
        raise EngineError(
            "a folder is not a dataset",
            where=str(path),
            fix="Pass the MemEye dialog JSON (data/dialog/<Task>.json), a dataset id or a run id.",
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
            + "Pass a MemEye dialog JSON path, a dataset id or a run id (see `memscope runs`).",
        )
    return dataset_from_store(store, dataset_id)
