"""MemEye's run writer (``Benchmark.run_writer``): native runs in the MemEye layout plus the
``retrieval.jsonl`` sidecar.

A native run directory holds what a MemEye run holds (``config.json``, ``metrics.json``,
``predictions.jsonl``, field for field) and ``retrieval.jsonl``: one line per question,
``{"idx", "qid", "pool": [{"rank", "round_id", "score", "text_score", "image_score"}]}``,
the whole ranked pool with every channel's score. memscope's MemEye adapter reads it back.
``method_runtime`` follows MemEye's semantic-RAG fields; unlike MemEye, ``top_candidates``
scores every one of the top-k seeds, not only the first five. A retrieval-only run has
``pred``, ``em``, ``judge`` and the other answer fields null.

Rows are appended and flushed one question at a time, and ``metrics.json`` is written
when the writer closes, also after an error: a run interrupted by a failing answer model
is a valid, shorter run (``metrics.json`` says ``"status": "partial"`` and why).
"""

from __future__ import annotations

import json
import math
import time
from itertools import product
from pathlib import Path
from types import TracebackType
from typing import IO, Self

from memscope.plugin import (
    EngineCandidate,
    EngineError,
    EngineRetrieval,
    EngineRetriever,
    EngineRunPlan,
    not_regular,
    path_kind,
)

JSONDocument = dict[str, object]
"""An object this writer builds and writes as JSON (``json.dumps`` checks what is in it)."""

PREDICTIONS = "predictions.jsonl"
SIDECAR = "retrieval.jsonl"
SUMMARY_METRICS = ("em", "contains_gt", "f1", "judge")
RUN_FILES = ("config.json", "metrics.json", PREDICTIONS, SIDECAR)
"""The files a native run consists of (what writing one may replace)."""
METHOD_NAMES = {
    "srag_t": "semantic_rag_text_only",
    "srag_v": "semantic_rag_multimodal",
    "dualmem": "dualmem",
}
"""The engine's methods in MemEye's vocabulary."""


def check_out_dir(out_dir: Path, *, overwrite: bool) -> None:
    """Refuse an ``--out`` where writing a run would replace what is not a run's file.

    The folder must be new, empty of the run's four file names, or hold a run
    (``predictions.jsonl``; replaced only with ``overwrite``). Each of those names must
    be a regular file if present: a symlink (to the store, say) or a FIFO is refused,
    and so is a ``config.json`` or ``metrics.json`` beside no run (a project's own files).
    """
    if out_dir.exists() and not out_dir.is_dir():
        raise EngineError(
            f"--out is {path_kind(out_dir)}, not a folder",
            where=str(out_dir),
            fix="Name a folder for the run (it is created).",
        )
    for name in RUN_FILES:
        path = out_dir / name
        if path.is_symlink() or not_regular(path) is not None:
            what = "a symbolic link" if path.is_symlink() else not_regular(path)
            raise EngineError(
                f"the output folder's {name} is {what}; a run is written as regular files only",
                where=str(path),
                fix="Choose another --out folder.",
            )
    present = [name for name in RUN_FILES if (out_dir / name).exists()]
    if PREDICTIONS in present:
        if not overwrite:
            raise EngineError(
                "the output folder already holds a run",
                where=str(out_dir),
                fix="Choose another --out folder, or pass --overwrite to replace it.",
            )
    elif present:
        raise EngineError(
            f"the output folder holds {' and '.join(present)} but no run (no {PREDICTIONS}); "
            "memscope does not write over them",
            where=str(out_dir),
            fix="Choose a new or empty --out folder.",
        )


class NativeRunWriter:
    """Writes one native run directory; use as a context manager.

    Args:
        out_dir: The run directory (created; refused when it already holds a run).
        config: ``config.json`` content, written at once.
        metrics: ``metrics.json`` content without the per-run counts and summary, which
            are added on close.
        overwrite: Replace the files of an existing run in ``out_dir``.
    """

    def __init__(
        self,
        out_dir: Path,
        config: JSONDocument,
        metrics: JSONDocument,
        *,
        overwrite: bool = False,
    ) -> None:
        self.out_dir = out_dir
        self.metrics = dict(metrics)
        self.rows: list[JSONDocument] = []
        check_out_dir(out_dir, overwrite=overwrite)
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
            _write_json(out_dir / "config.json", config)
            self._predictions: IO[str] = (out_dir / PREDICTIONS).open("w", encoding="utf-8")
            self._sidecar: IO[str] = (out_dir / SIDECAR).open("w", encoding="utf-8")
        except OSError as exc:
            raise EngineError(
                f"cannot write the run: {exc.strerror or exc}", where=str(out_dir)
            ) from None
        (out_dir / "metrics.json").unlink(missing_ok=True)
        self.closed = False

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if error is None:
            self.close()
        else:
            reason = (
                "interrupted"
                if isinstance(error, KeyboardInterrupt)
                else str(error).splitlines()[0]
            )
            self.close(status="partial", error=reason)

    def add(self, row: JSONDocument, pool: list[JSONDocument]) -> None:
        """Append one question's prediction row and its ranked pool (flushed at once)."""
        self._predictions.write(json.dumps(row, ensure_ascii=False) + "\n")
        self._sidecar.write(
            json.dumps(
                {"idx": row["idx"], "qid": f"q{row['idx']}", "pool": pool}, ensure_ascii=False
            )
            + "\n"
        )
        self._predictions.flush()
        self._sidecar.flush()
        self.rows.append(row)

    def close(self, *, status: str = "complete", error: str | None = None) -> None:
        """Close the files and write ``metrics.json`` (with ``status`` and ``error``)."""
        if self.closed:
            return
        self.closed = True
        self._predictions.close()
        self._sidecar.close()
        metrics = dict(self.metrics)
        metrics["num_qas_run"] = len({row["idx"] for row in self.rows})
        metrics["summary"] = summarize(self.rows)
        if self.rows and isinstance(self.rows[-1].get("method_runtime"), dict):
            metrics["method_runtime"] = self.rows[-1]["method_runtime"]
        written = metrics.get("memscope")
        memscope: JSONDocument = dict(written) if isinstance(written, dict) else {}
        memscope["status"] = status
        if error:
            memscope["error"] = error
        metrics["memscope"] = memscope
        _write_json(self.out_dir / "metrics.json", metrics)


def _write_json(path: Path, data: JSONDocument) -> None:
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    temporary.replace(path)


def _mean(values: list[object]) -> float | None:
    numbers = [
        float(value)
        for value in values
        if isinstance(value, (int, float)) and not (isinstance(value, float) and math.isnan(value))
    ]
    return sum(numbers) / len(numbers) if numbers else None


def _means(rows: list[JSONDocument]) -> dict[str, float]:
    result = {}
    for name in SUMMARY_METRICS:
        value = _mean([row.get(name) for row in rows])
        if value is not None:
            result[name] = value
    return result


def summarize(rows: list[JSONDocument]) -> JSONDocument:
    """MemEye's summary shape: means over all rows, per X, per Y and per (X, Y) cell.

    A metric whose values are all null (every metric of a retrieval-only run) is omitted,
    as MemEye omits it.
    """
    by_x: dict[str, list[JSONDocument]] = {}
    by_y: dict[str, list[JSONDocument]] = {}
    by_cell: dict[str, list[JSONDocument]] = {}
    for row in rows:
        found = row.get("point")
        point: list[object] = found if isinstance(found, list) else []
        xs = sorted(
            {str(label) for group in point[:1] if isinstance(group, list) for label in group}
        )
        ys = sorted(
            {str(label) for group in point[1:2] if isinstance(group, list) for label in group}
        )
        for x in xs:
            by_x.setdefault(x, []).append(row)
        for y in ys:
            by_y.setdefault(y, []).append(row)
        for x, y in product(xs, ys):
            by_cell.setdefault(f"{x}_{y}", []).append(row)
    return {
        "open_count": len(rows),
        "overall": _means(rows),
        "by_x": {key: _means(group) for key, group in sorted(by_x.items())},
        "by_y": {key: _means(group) for key, group in sorted(by_y.items())},
        "by_cell": {key: _means(group) for key, group in sorted(by_cell.items())},
    }


# --- The run writer: the engine's retrievals as MemEye rows ------------------------------------


def method_name(method: str) -> str:
    """An engine method's name in MemEye's vocabulary (``srag_t`` -> ``semantic_rag_text_only``)."""
    return METHOD_NAMES[method]


def _effective_name(method: str) -> str:
    # MemEye names its built-in methods plainly and others "<name>__<modality>".
    return method_name(method) if method != "dualmem" else "dualmem__multimodal"


def _image_fields(retriever: EngineRetriever) -> JSONDocument:
    """How to find the run's image model again (``memscope recompute`` / ``rerun --requery`` read it)."""
    if retriever.image_model is None:
        return {}
    name, pretrained = retriever.image_model
    return {
        "multimodal_embedding_model": name,
        "multimodal_embedding_pretrained": pretrained,
        "memscope_image_model_id": retriever.image_model_id,
    }


def _candidates(pool: list[EngineCandidate], k: int) -> list[JSONDocument]:
    candidates = []
    for entry in pool[:k]:
        candidate: JSONDocument = {
            "round_id": entry.round_id,
            "score": entry.score,
            "text_dense_score": entry.text_score,
        }
        if entry.image_score is not None:
            candidate |= {
                "image_dense_score": entry.image_score,
                "best_image_path": entry.best_image or "",
            }
        candidates.append(candidate)
    return candidates


def _runtime(retriever: EngineRetriever, question: EngineRetrieval) -> JSONDocument:
    k = retriever.top_k
    selected = question.history_round_ids
    runtime: JSONDocument = {
        "retrieval_backend": retriever.backend,
        "retrieval_corpus": "round_text",
        "method_modality": retriever.modality,
        "top_k": k,
        "neighbor_window": 0,
        "seed_round_ids": [entry.round_id for entry in question.pool[:k]],
        "selected_round_ids": selected,
        "top_candidates": _candidates(question.pool, k),
        "clue_hit_count": sum(1 for round_id in selected if round_id in question.clue_ids),
        "corpus_entry_count": retriever.corpus_size,
        "text_embedding_model": retriever.text_model,
        "memscope_text_model_id": retriever.text_model_id,
        "caption_text_included": retriever.corpus == "round_text",
        "image_embeddings_built": retriever.uses_images,
        "history_source": "retrieval",
        "captions_loaded": retriever.modality == "text_only",
        "images_loaded": retriever.modality == "multimodal",
        "history_turns_after_truncation": question.history_turns,
        "memscope_method": retriever.method,
        "pool_size": retriever.pool_size,
    }
    return runtime | _image_fields(retriever) | retriever.weights


def _row(retriever: EngineRetriever, question: EngineRetrieval) -> JSONDocument:
    runtime = _runtime(retriever, question)
    row: JSONDocument = {
        "idx": question.idx,
        "point": [question.x_labels, question.y_labels],
        "mode": question.mode,
        "question": question.question,
        "gt": question.gold,
        "pred": None,
        "exact_match": None,
        "em": None,
        "contains_gt": None,
        "f1": None,
        "bleu": None,
        "bleu_1": None,
        "bleu_2": None,
        "bert": None,
        "judge": None,
        "judge_reasoning": None,
        "latency_ms": None,
        "method_name": method_name(retriever.method),
        "effective_method_name": _effective_name(retriever.method),
        "method_modality": retriever.modality,
        "history_turns": runtime["history_turns_after_truncation"],
        "source_sessions": question.source_sessions,
        "clue_rounds": question.clue_ids,
        "usage": {},
    }
    if question.mode == "mcq":
        row |= {"choice": None, "valid_choice": None}
    if question.answer:
        row |= question.answer
    row["method_runtime"] = runtime
    return row


def _pool(question: EngineRetrieval) -> list[JSONDocument]:
    return [
        {
            "rank": entry.rank,
            "round_id": entry.round_id,
            "score": entry.score,
            "text_score": entry.text_score,
            "image_score": entry.image_score,
        }
        for entry in question.pool
    ]


def run_files(plan: EngineRunPlan, out_dir: Path) -> tuple[JSONDocument, JSONDocument]:
    """``config.json`` and ``metrics.json`` (without the counts and summary added on close)."""
    retriever, answer = plan.retriever, plan.answerer
    name = method_name(retriever.method)
    method = {
        "name": name,
        "modality": retriever.modality,
        "retrieval_backend": retriever.backend,
        "top_k": retriever.top_k,
        "neighbor_window": 0,
        "text_embedding_model": retriever.text_model,
        "memscope_method": retriever.method,
        "pool_size": retriever.pool_size,
    }
    method = method | _image_fields(retriever) | retriever.weights
    model = (
        {
            "name": answer.model,
            "provider": "openai_api",
            "model": answer.model,
            "base_url": answer.endpoint,
            "max_new_tokens": answer.max_tokens,
            "timeout": answer.timeout_s,
        }
        if answer
        else {"name": "retrieval_only", "provider": None, "model": None}
    )
    mode = plan.mode
    dataset_paths = {"dialog_json": plan.source_path, "image_root": plan.media_root}
    config = {
        "task": {
            "name": plan.task,
            "dataset": dataset_paths,
            "eval": {"mode": mode, "max_questions": 0},
        },
        "dataset": dataset_paths,
        "eval": {"mode": mode, "max_questions": 0},
        "model": model,
        "method": method,
        "run": {"output_root": str(out_dir.parent)},
    }
    metrics = {
        "task_name": plan.task,
        "model_name": model["name"],
        "model_path": answer.model if answer else None,
        "method_name": _effective_name(retriever.method),
        "base_method_name": "dualmem" if retriever.method == "dualmem" else name,
        "method_modality": retriever.modality,
        "mode": mode,
        "num_qas": plan.n_dataset_questions,
        "dialog_json": plan.source_path,
        "image_root": plan.media_root or "",
        "run_dir": str(out_dir.resolve()),
        "git_commit": f"memscope-{plan.memscope_version}",
        "memscope": {
            "version": plan.memscope_version,
            "dataset_id": plan.dataset_id,
            "retrieval_only": answer is None,
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        },
    }
    return config, metrics


class MemeyeRunSink:
    """A native run in the MemEye layout being written (``RunSink``)."""

    def __init__(self, plan: EngineRunPlan, out_dir: Path, *, overwrite: bool) -> None:
        config, metrics = run_files(plan, out_dir)
        self.retriever = plan.retriever
        self.writer = NativeRunWriter(out_dir, config, metrics, overwrite=overwrite)

    @property
    def path(self) -> Path:
        """The run directory."""
        return self.writer.out_dir

    def add(self, question: EngineRetrieval) -> None:
        """Append the question's prediction row and its pool."""
        self.writer.add(_row(self.retriever, question), _pool(question))

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.writer.__exit__(kind, error, trace)


def open_run(plan: EngineRunPlan, out_dir: Path, *, overwrite: bool) -> MemeyeRunSink:
    """Start a native run in the MemEye layout in ``out_dir`` (the spec's run writer).

    Raises:
        EngineError: ``out_dir`` already holds a run (and not ``overwrite``), or cannot be
            written.
    """
    return MemeyeRunSink(plan, out_dir, overwrite=overwrite)


check_out = check_out_dir
"""The writer's check before retrieval (``RunWriter.check``)."""
