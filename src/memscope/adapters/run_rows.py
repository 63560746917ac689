"""One row builder for a reader's predictions, retrievals and skip notices (issue 39).

Every reader used to copy the same blocks: a dict of column lists per table, a list of bad
rows, a ``--strict`` refusal and a "skipped" notice. :class:`RunRows` is those blocks once::

    rows = RunRows(dataset, strict=options.strict, source=str(answers))
    for line_no, row in read_rows(answers):
        if row["correct"] not in ("0", "1"):
            rows.skip(f"{answers.name}:{line_no}", "correct is not 0/1")
            continue
        rows.prediction(qid, pred=row["answer"], em=float(row["correct"]), line_no=line_no)
        for rank, turn in enumerate(row["retrieved"].split(), start=1):
            rows.retrieval(qid, rank, turn)
    predictions, retrievals = rows.tables()  # --strict and a skipped row: RunDirError
    notices = rows.notices

With a dataset, a prediction's ``question``, ``gold`` and ``mode`` default to its question's,
and a prediction for a qid the dataset lacks, or for one already given, is skipped (a
notice) instead of stored. :func:`run_record` builds the :class:`RunRecord` with defaults for
what a simple benchmark need not say, and :class:`DatasetRows` the :class:`DatasetRecord`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscope.adapters.arrow_rows import typed_table
from memscope.adapters.files import file_digest
from memscope.errors import RunDirError
from memscope.identity import qid_for, question_key
from memscope.json_types import JSONObject
from memscope.records import (
    DatasetRecord,
    DatasetSource,
    Notice,
    QuestionRecord,
    RetrievalKind,
    RoundRecord,
    RunRecord,
    SessionRecord,
)

if TYPE_CHECKING:
    import pyarrow as pa

PREDICTION_COLUMNS = ("qid", "line_no", "mode", "question", "gold", "pred", "em", "extra")
"""The prediction columns every table has; ``f1``, ``judge`` and ``judge_reasoning`` are
added only when some row gives them."""
OPTIONAL_COLUMNS = ("f1", "judge", "judge_reasoning")
RETRIEVAL_COLUMNS = ("qid", "rank", "round_id", "score", "origin")
EXAMPLES = 3
"""How many skipped rows a notice or refusal names."""


class RunRows:
    """Collects one run's rows; :meth:`tables` turns them into typed Arrow tables.

    Args:
        dataset: the run's dataset: predictions default their question, gold and mode to
            its questions', and a qid it lacks (or one given twice) is skipped.
        strict: ``ReadOptions.strict`` (``--strict``): :meth:`tables` refuses a run with any
            skipped row instead of storing the rest.
        source: where the rows come from (a file), named by the notices and errors.
        mode: the answer mode of a prediction whose question (or call) gives none.
    """

    def __init__(
        self,
        dataset: DatasetRecord | None = None,
        *,
        strict: bool = False,
        source: str = "",
        mode: str | None = None,
    ) -> None:
        self.strict = strict
        self.source = source
        self.mode = mode
        self._questions = {q.qid: q for q in dataset.questions} if dataset else None
        self._predictions: dict[str, list[object]] = {name: [] for name in PREDICTION_COLUMNS}
        self._optional: dict[str, dict[int, object]] = {name: {} for name in OPTIONAL_COLUMNS}
        self._retrievals: dict[str, list[object]] = {name: [] for name in RETRIEVAL_COLUMNS}
        self._seen: set[str] = set()
        self._skipped: dict[str, list[str]] = {}  # why -> where, in the order skipped
        self.notices: list[Notice] = []
        """The reader's own notices; :meth:`tables` adds one per reason rows were skipped."""

    def prediction(
        self,
        qid: str,
        *,
        pred: str | None,
        gold: str | None = None,
        em: float | None = None,
        judge: float | None = None,
        f1: float | None = None,
        judge_reasoning: str | None = None,
        question: str | None = None,
        mode: str | None = None,
        line_no: int | None = None,
        extra: JSONObject | None = None,
        where: str | None = None,
    ) -> bool:
        """Add the prediction for ``qid``; False (and the row skipped) where the dataset has
        no such qid or it was given before. ``where`` names the row in that notice (default:
        the source and ``line_no``); ``extra`` is stored as JSON (None or empty: none)."""
        where = where or (f"{self.source}:{line_no}" if line_no is not None else self.source)
        known = self._questions.get(qid) if self._questions is not None else None
        if self._questions is not None and known is None:
            self.skip(where, "a qid the dataset does not have")
            return False
        if qid in self._seen:
            self.skip(where, "a qid given twice")
            return False
        self._seen.add(qid)
        row = {
            "qid": qid,
            "line_no": line_no,
            "mode": mode or (known.mode if known else None) or self.mode,
            "question": question if question is not None else (known.question if known else None),
            "gold": gold if gold is not None else (known.gold if known else None),
            "pred": pred,
            "em": em,
            "extra": json.dumps(extra, sort_keys=True) if extra else None,
        }
        for name, value in row.items():
            self._predictions[name].append(value)
        index = len(self._seen) - 1
        for name, value in (("f1", f1), ("judge", judge), ("judge_reasoning", judge_reasoning)):
            if value is not None:
                self._optional[name][index] = value
        return True

    def retrieval(
        self, qid: str, rank: int, round_id: str, score: float | None = None, origin: str = "logged"
    ) -> None:
        """Add ``round_id`` at ``rank`` (1 = best) of ``qid``'s retrieved list."""
        for name, value in zip(
            RETRIEVAL_COLUMNS, (qid, rank, round_id, score, origin), strict=True
        ):
            self._retrievals[name].append(value)

    def skip(self, where: str, why: str) -> None:
        """Skip a bad row at ``where`` (``file:line``) because ``why``: a notice, or with
        ``strict`` the refusal :meth:`tables` raises."""
        self._skipped.setdefault(why, []).append(where)

    @property
    def skipped(self) -> int:
        """How many rows were skipped so far."""
        return sum(len(wheres) for wheres in self._skipped.values())

    def tables(self, *, require_rows: bool = True) -> tuple[pa.Table, pa.Table]:
        """The predictions and retrievals as typed Arrow tables.

        Raises:
            RunDirError: ``strict`` and a row was skipped (nothing is stored), or
                ``require_rows`` and no prediction was added.
        """
        if self._skipped and self.strict:
            whys = "; ".join(self._skipped)
            first = next(iter(self._skipped.values()))[0]
            raise RunDirError(
                f"{self.skipped} bad row(s) ({whys}); nothing was ingested (--strict)",
                where=first,
                fix="Fix the rows, or drop --strict to ingest the good ones.",
            )
        for why, wheres in self._skipped.items():
            notice = Notice(
                f"{len(wheres)} row(s) skipped: {why}", self.source, tuple(wheres[:EXAMPLES])
            )
            if notice not in self.notices:
                self.notices.append(notice)
        if require_rows and not self._seen:
            raise RunDirError(
                "no usable prediction row",
                where=self.source,
                fix="Check that the file was written for this dataset (or pass the right one "
                "with --dataset).",
            )
        columns = dict(self._predictions)
        count = len(self._seen)
        for name, given in self._optional.items():
            if given:
                columns[name] = [given.get(index) for index in range(count)]
        return typed_table(columns), typed_table(self._retrievals)


def run_record(
    run_dir: Path,
    *,
    benchmark: str,
    dataset: DatasetRecord | DatasetSource,
    rows: RunRows,
    files: Iterable[Path],
    inputs: Iterable[Path] = (),
    run_id: str | None = None,
    task: str | None = None,
    model: str | None = None,
    method: str | None = None,
    base_method: str | None = None,
    modality: str | None = None,
    mode: str | None = None,
    top_k: int | None = None,
    retrieval_kind: RetrievalKind | None = None,
    config: JSONObject | None = None,
    metrics: JSONObject | None = None,
) -> RunRecord:
    """A :class:`RunRecord` of ``rows`` with defaults for what a simple benchmark need not say.

    ``files`` are the run directory's own files that exist (their sizes and times tell
    memscope, without reading, whether the run changed); ``inputs`` are files read from
    elsewhere (a dataset), hashed with them. ``run_id`` defaults to the folder's name,
    ``task`` to the dataset's, ``base_method`` to ``method``, ``mode`` to the rows' and
    ``retrieval_kind`` to ``ranked`` where rows have retrievals. Skip notices are added.

    Raises:
        RunDirError: as :meth:`RunRows.tables`, or a file cannot be read.
    """
    own = [path for path in files if path.is_file()]
    digest, _ = file_digest([*own, *inputs])
    _, file_stats = file_digest(own)
    predictions, retrievals = rows.tables()
    return RunRecord(
        run_id=run_id or run_dir.name,
        path=str(run_dir),
        content_hash=digest,
        file_stats=file_stats,
        benchmark=benchmark,
        task=task or dataset.task,
        model=model,
        method=method,
        base_method=base_method or method,
        modality=modality,
        mode=mode or rows.mode,
        top_k=top_k,
        retrieval_kind=retrieval_kind or ("ranked" if retrievals.num_rows else None),
        config=config or {},
        metrics=metrics or {},
        dataset=dataset,
        predictions=predictions,
        retrievals=retrievals,
        notices=list(rows.notices),
    )


class DatasetRows:
    """Collects one dataset's sessions, rounds and questions with the bookkeeping defaulted:
    positions and orders count up, question ``N`` is qid ``q<N>`` with its question key, a
    question's clue rounds and source sessions follow from the clue ids that name rounds.

    Args:
        benchmark: the benchmark's name, stored with the dataset.
        task: the dataset's task (its name within the benchmark).
        mode: every question's answer mode unless :meth:`question` says otherwise.
    """

    def __init__(self, benchmark: str, task: str, mode: str = "open") -> None:
        self.benchmark, self.task, self.mode = benchmark, task, mode
        self.sessions: list[SessionRecord] = []
        self.rounds: dict[str, RoundRecord] = {}
        self.questions: list[QuestionRecord] = []

    def session(self, session_id: str, date: str | None = None) -> SessionRecord:
        """Start a session: the rounds added next belong to it."""
        session = SessionRecord(session_id, len(self.sessions) + 1, date)
        self.sessions.append(session)
        return session

    def round(self, round_id: str, user_text: str = "", **fields: Any) -> RoundRecord:
        """Add round ``round_id`` to the last session (``fields``: :class:`RoundRecord`'s
        others, e.g. ``image_refs``).

        Raises:
            ValueError: no session was started, or ``round_id`` was given before.
        """
        if not self.sessions or round_id in self.rounds:
            raise ValueError(f"round {round_id!r}: no session started, or a repeated id")
        sid = self.sessions[-1].session_id
        order = sum(1 for r in self.rounds.values() if r.session_id == sid) + 1
        found = RoundRecord(round_id, sid, len(self.rounds) + 1, order, user_text, **fields)
        self.rounds[round_id] = found
        return found

    def question(
        self,
        question: str,
        gold: str | None,
        *,
        clue_ids: Sequence[str] = (),
        mode: str | None = None,
        **fields: Any,
    ) -> QuestionRecord:
        """Add the next question (``fields``: :class:`QuestionRecord`'s others, e.g. ``extra``)."""
        idx = len(self.questions) + 1
        mode = mode or self.mode
        clues = [str(clue) for clue in clue_ids]
        rounds = [clue for clue in clues if clue in self.rounds]
        in_clues = {self.rounds[clue].session_id for clue in rounds}
        found = QuestionRecord(
            qid=qid_for(idx),
            idx=idx,
            question_key=question_key(self.task, mode, question),
            task=self.task,
            question=question,
            gold=gold,
            mode=mode,
            clue_ids=clues,
            clue_rounds=rounds,
            source_sessions=[s.session_id for s in self.sessions if s.session_id in in_clues],
            **fields,
        )
        self.questions.append(found)
        return found

    def session_order(self, round_id: str) -> int:
        """The 1-based order of the session round ``round_id`` belongs to."""
        sid = self.rounds[round_id].session_id
        return next(s.session_order for s in self.sessions if s.session_id == sid)

    def record(
        self, path: Path, *, media_root: Path | None = None, notices: Sequence[Notice] = ()
    ) -> DatasetRecord:
        """The dataset read from ``path``: its id is the benchmark's name and the start of the
        file's SHA-256."""
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        return DatasetRecord(
            dataset_id=f"{self.benchmark}-{digest[:12]}",
            benchmark=self.benchmark,
            task=self.task,
            source_path=str(path.resolve()),
            content_hash=digest,
            media_root=str(media_root.resolve()) if media_root else None,
            sessions=list(self.sessions),
            rounds=list(self.rounds.values()),
            questions=list(self.questions),
            notices=list(notices),
        )
