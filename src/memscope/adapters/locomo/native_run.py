"""LoCoMo's run writer (``Benchmark.run_writer``): the memory engine's retrievals as the run file
LoCoMo's own ``task_eval/evaluate_qa.py`` writes, retrieval-only.

``memscope retrieve locomo10.json --method srag_t --k 10 --out DIR`` ranks every turn of a
question's own conversation (the dataset reader names ``sample_id`` as the memory bank) and
writes ``DIR/<dataset stem>_qa_<key>.json``: a JSON list ``[{sample_id, qa: [...]}]`` whose QA
items are the dataset's, copied as written, with, per question retrieved,

- ``<key>_prediction_context``: the top-k dia ids in rank order (where upstream's answerers
  put the retrieved ids, ``gpt_utils.py``: ``prediction_key + '_context'``);
- ``<key>_recall``: upstream's ``eval_question_answering`` recall: the share of the item's
  ``evidence`` entries, as written, that are in the context, rounded to 3; 1 for an item
  without evidence (upstream's value);

and no ``<key>_prediction``: no model answered, so ``run.read_locomo_runs`` reads the key as
a retrieval-only run (ungraded rows). ``<key>`` is ``<model>_dialog_top_<k>`` with model
``memscope-<text model>`` (``memscope-<method>-<text model>`` for the retrievers with an
image channel), so upstream's parsing of keys reads model, RAG mode and k from it. Only
the conversations holding a retrieved question are written (``--limit`` stops inside one:
its other items carry no key). The file is written when the run completes, atomically;
``memscope_sources.json`` beside it names the dataset (and ``--image-root``), so ``memscope
ingest DIR`` finds them.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from pathlib import Path
from types import TracebackType
from typing import Self

from memscope.adapters.locomo.dataset import read_locomo_dataset
from memscope.plugin import (
    SOURCES_FILE,
    DatasetError,
    EngineError,
    EngineRetrieval,
    EngineRetriever,
    EngineRunPlan,
    JSONObject,
    JSONValue,
    not_regular,
    read_json_file,
    recorded_sources,
)

RAG_MODE = "dialog"
"""The engine retrieves dialog turns: upstream's ``--rag-mode dialog``."""
MODEL_PREFIX = "memscope"
CONTEXT_SUFFIX = "_prediction_context"
RECALL_SUFFIX = "_recall"
UNSAFE = re.compile(r"[^A-Za-z0-9.+-]+")


def run_key(retriever: EngineRetriever) -> str:
    """The run's ``<key>``: ``memscope-all-MiniLM-L6-v2_dialog_top_10`` for SRAG(T) with the
    packaged MiniLM at k = 10."""
    label = UNSAFE.sub("-", retriever.text_model_label).strip("-") or "text-model"
    method = "" if retriever.method == "srag_t" else f"{retriever.method}-"
    return f"{MODEL_PREFIX}-{method}{label}_{RAG_MODE}_top_{retriever.top_k}"


def upstream_recall(evidence: JSONValue, context: list[str]) -> float:
    """Upstream's recall of one QA item (``task_eval/evaluation.py``,
    ``eval_question_answering``, dialog mode): the share of the ``evidence`` entries, as
    written (no splitting or cleaning), that are among the context's dia ids, rounded to 3
    as ``evaluate_qa.py`` writes it; 1 for an item without evidence. An evidence that is not
    a list or a string counts as none (upstream would fail on it)."""
    if not isinstance(evidence, (list, str)) or len(evidence) == 0:
        return 1.0
    return round(sum(entry in context for entry in evidence) / len(evidence), 3)


def check_out(out_dir: Path, *, overwrite: bool) -> None:
    """Refuse an ``--out`` that is not a folder (``RunWriter.check``, before any retrieval);
    the run file itself is checked when it is opened (its name depends on the retriever)."""
    kind = not_regular(out_dir)
    if (out_dir.exists() and not out_dir.is_dir()) or (kind is not None and kind != "a folder"):
        raise EngineError(
            f"--out is {kind or 'a file'}, not a folder",
            where=str(out_dir),
            fix="Name a folder for the run (it is created).",
        )


class LocomoRunSink:
    """A retrieval-only LoCoMo run file being written (``RunSink``)."""

    def __init__(self, plan: EngineRunPlan, out_dir: Path, *, overwrite: bool) -> None:
        if not plan.source_path:
            raise EngineError(
                "cannot write the LoCoMo run: the store does not know the dataset's file",
                fix="Pass the dataset file (locomo10.json) instead of a dataset or run id.",
            )
        source = Path(plan.source_path)
        if not source.is_file():
            raise EngineError(
                "cannot write the LoCoMo run: its dataset file is gone",
                where=str(source),
                fix="Pass the dataset file (locomo10.json) itself.",
            )
        raw = source.read_bytes()
        if plan.content_hash and hashlib.sha256(raw).hexdigest() != plan.content_hash:
            raise EngineError(
                "cannot write the LoCoMo run: the dataset file changed since the store read it",
                where=str(source),
                fix="Pass the dataset file itself, so that it is read again.",
            )
        samples = read_json_file(source, error=DatasetError, what="LoCoMo dataset")
        dataset = read_locomo_dataset(source)
        # The dataset reader refused a file that is not a list of sample objects.
        self.samples = (
            [s for s in samples if isinstance(s, dict)] if isinstance(samples, list) else []
        )
        self.where = {
            q.qid: (str(q.extra["sample_id"]), _position(q.extra["position"]))
            for q in dataset.record.questions
        }
        self.dia_ids = {
            (r.extra["sample_id"], r.round_id): str(r.extra["dia_id"])
            for r in dataset.record.rounds
        }
        self.key = run_key(plan.retriever)
        self.top_k = plan.retriever.top_k
        self.out_dir = out_dir
        self.file = out_dir / f"{source.stem}_qa_{self.key}.json"
        check_out(out_dir, overwrite=overwrite)
        if self.file.is_symlink() or not_regular(self.file) is not None:
            what = "a symbolic link" if self.file.is_symlink() else not_regular(self.file)
            raise EngineError(
                f"the run file is {what}; a run is written as a regular file only",
                where=str(self.file),
                fix="Choose another --out folder.",
            )
        if self.file.exists() and not overwrite:
            raise EngineError(
                "the output folder already holds this run",
                where=str(self.file),
                fix="Choose another --out folder, or pass --overwrite to replace it.",
            )
        self.sources = {"dataset": str(source.resolve())}
        if plan.media_root:
            self.sources["images"] = plan.media_root
        recorded = recorded_sources(out_dir, ("images",)) if out_dir.is_dir() else {}
        named = recorded.get("dataset")
        if named is not None and named.resolve() != source.resolve():
            raise EngineError(
                f"the folder's {SOURCES_FILE} names another dataset ({named})",
                where=str(out_dir),
                fix="Write the run to another --out folder.",
            )
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise EngineError(
                f"cannot write the run: {exc.strerror or exc}", where=str(out_dir)
            ) from None
        self.contexts: dict[tuple[str, int], list[str]] = {}

    @property
    def path(self) -> Path:
        """The run file."""
        return self.file

    def add(self, question: EngineRetrieval) -> None:
        """Keep the question's top-k as dia ids, in rank order.

        Raises:
            EngineError: a retrieved round is no turn of the question's own conversation
                (a dia id names a turn only within it).
        """
        sample_id, position = self.where[question.qid]
        context = []
        for entry in question.pool[: self.top_k]:
            dia_id = self.dia_ids.get((sample_id, entry.round_id))
            if dia_id is None:
                raise EngineError(
                    f"{question.qid} retrieved {entry.round_id}, which is no turn of its "
                    "own conversation",
                    fix="Each LoCoMo conversation is its own memory; this is a bug in the "
                    "engine's retrieval, please report it.",
                )
            context.append(dia_id)
        self.contexts[(sample_id, position)] = context

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if error is None:  # an interrupted run leaves nothing behind (no half a file)
            self._write()

    def _write(self) -> None:
        written = {sample_id for sample_id, _position in self.contexts}
        output: list[JSONValue] = []
        for sample in self.samples:
            sample_id = str(sample.get("sample_id") or "").strip()
            if sample_id not in written:
                continue
            raw_qas = sample.get("qa")
            qas = copy.deepcopy(raw_qas) if isinstance(raw_qas, list) else []
            for position, item in enumerate(qas, start=1):
                context = self.contexts.get((sample_id, position))
                if context is None or not isinstance(item, dict):
                    continue
                item[self.key + CONTEXT_SUFFIX] = list[JSONValue](context)
                item[self.key + RECALL_SUFFIX] = upstream_recall(item.get("evidence"), context)
            output.append({"sample_id": sample["sample_id"], "qa": qas})
        sources_file = self.out_dir / SOURCES_FILE
        sources: JSONObject = {}
        if sources_file.is_file():
            # recorded_sources checked it is an object when the sink was opened.
            recorded = read_json_file(sources_file, what=SOURCES_FILE)
            sources = dict(recorded) if isinstance(recorded, dict) else {}
        try:
            _write_json(self.file, output, indent=2)
            _write_json(sources_file, {**sources, **self.sources}, indent=2)
        except OSError as exc:
            raise EngineError(
                f"cannot write the run: {exc.strerror or exc}", where=str(self.out_dir)
            ) from None


def _position(value: JSONValue) -> int:
    """A question's position in its sample's ``qa`` list, as the dataset reader stored it."""
    if not isinstance(value, int):
        raise TypeError(f"a LoCoMo question's position is {value!r}, not a number")
    return value


def _write_json(path: Path, data: JSONValue, *, indent: int) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data, indent=indent) + "\n", encoding="utf-8")
    temporary.replace(path)


def open_run(plan: EngineRunPlan, out_dir: Path, *, overwrite: bool) -> LocomoRunSink:
    """Start a retrieval-only LoCoMo run in ``out_dir`` (the spec's run writer).

    Raises:
        EngineError: the run file is already there (and not ``overwrite``), the dataset file
            is gone or changed, or ``out_dir`` cannot be written.
    """
    return LocomoRunSink(plan, out_dir, overwrite=overwrite)
