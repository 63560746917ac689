"""Reads a ToyBench run directory: ``answers.toybench.csv`` (+ ``run.toybench.json``).

Format (ToyBench's own):

- ``answers.toybench.csv``: one row per question, ``question_id,answer,correct,retrieved``;
  ``correct`` is ToyBench's grade (1 or 0), ``retrieved`` the turn ids the memory returned,
  space-separated, best first;
- ``run.toybench.json`` (optional): ``{"system", "model", "top_k", "dialogue"?}``; the
  dialogue path is relative to the run directory;
- ``summary.toybench.json`` (optional): ToyBench's scorer's counts, checked against the
  stored rows (``summary.py``).

**Recognising a run directory** (:func:`sniff`): it holds ``answers.toybench.csv``: one
``stat``, nothing read.

**The dataset** is ``--dataset`` when given, else the run's ``dialogue``, else
``dialogue.toybench.json`` in the run directory, else the one this package ships.

**Run id**: the folder name (one run per directory); ``path`` is the directory.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscope.plugin import (
    Notice,
    ReadOptions,
    RunDirError,
    RunRecord,
    file_digest,
    read_json_file,
    typed_table,
)

from memscope_toybench.axes import NAME
from memscope_toybench.dataset import BUNDLED, DIALOGUE_FILE, MODE, ToyDataset, read_dataset

if TYPE_CHECKING:
    import pyarrow as pa

ANSWERS_FILE = "answers.toybench.csv"
META_FILE = "run.toybench.json"
SUMMARY_FILE = "summary.toybench.json"
COLUMNS = ("question_id", "answer", "correct", "retrieved")
PHOTOS_OPTION = "toybench_photos"
"""``ReadOptions.extra`` key of ``--toybench-photos`` (declared in ``__init__.py``)."""


def sniff(path: Path) -> bool:
    """Whether the directory ``path`` is a ToyBench run (it holds ``answers.toybench.csv``)."""
    return (path / ANSWERS_FILE).is_file()


def read_all(run_dir: Path, options: ReadOptions) -> list[RunRecord]:
    """The one run of a ToyBench run directory.

    Raises:
        RunDirError: the answers file is missing, not a ToyBench CSV, or (``--strict``) has
            a bad row.
        DatasetError: the dialogue cannot be read.
    """
    run_dir = run_dir.resolve()
    answers = run_dir / ANSWERS_FILE
    meta_path = run_dir / META_FILE
    meta = read_json_file(meta_path, what=META_FILE) if meta_path.is_file() else {}
    if not isinstance(meta, dict):
        raise RunDirError(f"{META_FILE} is not a JSON object", where=str(meta_path))
    dialogue = _dialogue(run_dir, meta, options.dataset)
    photos = options.extra.get(PHOTOS_OPTION)
    dataset = read_dataset(dialogue, Path(photos) if photos else None)
    notices: list[Notice] = []
    predictions, retrievals = _tables(answers, dataset, notices, strict=options.strict)
    own = [answers, meta_path, run_dir / SUMMARY_FILE, run_dir / DIALOGUE_FILE]
    in_run = [path for path in own if path.is_file()]
    digest, _ = file_digest([*in_run, dialogue])
    # file_stats name files of the run directory only: memscope looks them up there to
    # tell, without reading the run, whether it changed since it was stored.
    _, file_stats = file_digest(in_run)
    top_k = meta.get("top_k")
    return [
        RunRecord(
            run_id=run_dir.name,
            path=str(run_dir),
            content_hash=digest,
            file_stats=file_stats,
            benchmark=NAME,
            task=dataset.record.task,
            model=_text(meta.get("model")),
            method=_text(meta.get("system")),
            base_method=_text(meta.get("system")),
            modality="text_only",
            mode=MODE,
            top_k=top_k if isinstance(top_k, int) and not isinstance(top_k, bool) else None,
            retrieval_kind="ranked",
            config={"dialogue_file": str(dialogue), **meta},
            metrics={},
            dataset=dataset.record,
            predictions=predictions,
            retrievals=retrievals,
            notices=notices,
        )
    ]


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _dialogue(run_dir: Path, meta: dict[str, Any], given: Path | None) -> Path:
    if given is not None:
        return given.expanduser().resolve()
    named = meta.get("dialogue")
    if isinstance(named, str) and named.strip():
        return (run_dir / named).resolve()
    beside = run_dir / DIALOGUE_FILE
    return beside if beside.is_file() else BUNDLED


def _tables(
    answers: Path, dataset: ToyDataset, notices: list[Notice], *, strict: bool
) -> tuple[pa.Table, pa.Table]:
    """The predictions and retrievals of the answers file, as typed Arrow tables."""
    prediction: dict[str, list[Any]] = {
        name: [] for name in ("qid", "line_no", "mode", "question", "gold", "pred", "em", "extra")
    }
    retrieval: dict[str, list[Any]] = {
        name: [] for name in ("qid", "rank", "round_id", "score", "origin")
    }
    questions = {question.qid: question for question in dataset.record.questions}
    bad: list[str] = []
    seen: set[str] = set()
    for line_no, row in _rows(answers):
        qid = dataset.qid_of.get(row.get("question_id") or "")
        correct = (row.get("correct") or "").strip()
        if qid is None or qid in seen or correct not in ("0", "1"):
            bad.append(f"{answers.name}:{line_no}")
            continue
        seen.add(qid)
        question = questions[qid]
        prediction["qid"].append(qid)
        prediction["line_no"].append(line_no)
        prediction["mode"].append(MODE)
        prediction["question"].append(question.question)
        prediction["gold"].append(question.gold)
        prediction["pred"].append(row.get("answer") or "")
        prediction["em"].append(float(correct))
        unknown = [t for t in (row.get("retrieved") or "").split() if t not in dataset.turns]
        prediction["extra"].append(json.dumps({"unknown_turns": unknown}) if unknown else None)
        for rank, turn in enumerate((row.get("retrieved") or "").split(), start=1):
            retrieval["qid"].append(qid)
            retrieval["rank"].append(rank)
            retrieval["round_id"].append(turn)
            retrieval["score"].append(None)
            retrieval["origin"].append("logged")
    if bad and strict:
        raise RunDirError(
            f"{len(bad)} bad row(s) (unknown or repeated question id, or correct not 0/1); "
            "nothing was ingested (--strict)",
            where=bad[0],
            fix="Fix the rows, or drop --strict to ingest the good ones.",
        )
    if bad:
        notices.append(
            Notice(
                f"{len(bad)} row(s) name no question of the dialogue, repeat one, or grade "
                "it other than 0/1; skipped",
                str(answers),
                tuple(bad[:3]),
            )
        )
    if not prediction["qid"]:
        raise RunDirError(
            "the answers file has no usable row",
            where=str(answers),
            fix="Check that it was written for this dialogue (or pass the right one with --dataset).",
        )
    return typed_table(prediction), typed_table(retrieval)


def _rows(answers: Path) -> list[tuple[int, dict[str, str]]]:
    """``(line number, row)`` of the answers file (the header is line 1)."""
    try:
        with answers.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            if tuple(reader.fieldnames or ()) != COLUMNS:
                raise RunDirError(
                    f"not a ToyBench answers file: the header is not {','.join(COLUMNS)}",
                    where=f"{answers}:1",
                )
            return [(reader.line_num, row) for row in reader]
    except UnicodeDecodeError:
        raise RunDirError("the answers file is not UTF-8", where=str(answers)) from None
    except csv.Error as error:
        raise RunDirError(
            f"the answers file is not valid CSV: {error}", where=str(answers)
        ) from None
    except OSError as error:
        raise RunDirError(
            f"cannot read the answers file: {error.strerror or error}", where=str(answers)
        ) from None
