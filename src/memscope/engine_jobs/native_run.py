"""``memscope retrieve``: run a retriever over a dataset and write a native run.

The run has the MemEye layout, so everything that reads MemEye runs reads it, plus the
``retrieval.jsonl`` sidecar with each question's whole ranked pool and every channel's
score. ``method_runtime`` follows MemEye's semantic-RAG fields; unlike MemEye,
``top_candidates`` scores every one of the top-k seeds, not only the first five.

Without an answer model the run is retrieval-only: ``pred``, ``em``, ``judge`` and the
other answer fields are null. With one, each question is asked the way MemEye's runner
asks it (``engine/answer.py``); a failure stops the run with one message and leaves the
questions answered so far as a valid, shorter run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memscope import __version__
from memscope.adapters.memeye.dataset import ImageResolver
from memscope.engine.answer import AnswerClient, answer_question, round_history

# Re-exported: `memscope run` builds these settings and may not import the engine.
from memscope.engine.answer import AnswerSettings as AnswerSettings
from memscope.engine.prompts import system_prompt
from memscope.engine.retrieve import BACKENDS
from memscope.engine.retrieve import MethodSettings as MethodSettings
from memscope.engine.runs import NativeRunWriter, check_out_dir
from memscope.engine_jobs.engine import (
    EngineOptions,
    EngineSession,
    Reporter,
    RetrievalResult,
    retrieve_pools,
)
from memscope.engine_jobs.engine_data import EngineDataset, EngineQuestion, open_dataset
from memscope.errors import InputError
from memscope.store import Store

DEFAULT_K = 10
DEFAULT_POOL = 50


@dataclass
class NativeRunSummary:
    """What ``memscope retrieve`` wrote."""

    out_dir: Path
    method: str
    n_questions: int
    n_answered: int
    corpus_size: int
    text_model: str
    image_model: str | None


def _effective_name(settings: MethodSettings) -> str:
    # MemEye names its built-in methods plainly and others "<name>__<modality>".
    return settings.memeye_name if settings.method != "dualmem" else "dualmem__multimodal"


def _run_mode(questions: list[EngineQuestion]) -> str:
    return "mcq" if questions and all(q.mode == "mcq" for q in questions) else "open"


def _runtime(
    settings: MethodSettings,
    k: int,
    pool_size: int,
    seeds: list[str],
    selected: list[str],
    candidates: list[dict[str, Any]],
    clue_ids: list[str],
    result: RetrievalResult,
    history_turns: int,
) -> dict[str, Any]:
    runtime: dict[str, Any] = {
        "retrieval_backend": BACKENDS[settings.method],
        "retrieval_corpus": "round_text",
        "method_modality": settings.modality,
        "top_k": k,
        "neighbor_window": 0,
        "seed_round_ids": seeds,
        "selected_round_ids": selected,
        "top_candidates": candidates,
        "clue_hit_count": sum(1 for round_id in selected if round_id in clue_ids),
        "corpus_entry_count": result.corpus_size,
        "text_embedding_model": result.text_source.spec,
        "memscope_text_model_id": result.text_model,
        "caption_text_included": settings.text_kind == "round_text",
        "image_embeddings_built": settings.uses_images,
        "history_source": "retrieval",
        "captions_loaded": settings.modality == "text_only",
        "images_loaded": settings.modality == "multimodal",
        "history_turns_after_truncation": history_turns,
        "memscope_method": settings.method,
        "pool_size": pool_size,
    }
    runtime |= _image_fields(result)
    if settings.method == "srag_v":
        runtime |= {
            "text_dense_weight": settings.text_weight,
            "image_dense_weight": settings.image_weight,
        }
    elif settings.method == "dualmem":
        runtime |= {"visual_weight": settings.visual_weight}
    return runtime


def _image_fields(result: RetrievalResult) -> dict[str, Any]:
    """How to find the run's image model again (``memscope recompute`` / ``rerun --requery`` read it)."""
    if result.image_source is None:
        return {}
    name, pretrained = result.image_source.spec
    return {
        "multimodal_embedding_model": name,
        "multimodal_embedding_pretrained": pretrained,
        "memscope_image_model_id": result.image_model,
    }


def _candidates(pool: list[dict[str, Any]], k: int, best_images: list[Any]) -> list[dict[str, Any]]:
    candidates = []
    for entry, best in zip(pool[:k], best_images, strict=False):
        candidate = {
            "round_id": entry["round_id"],
            "score": entry["score"],
            "text_dense_score": entry["text_score"],
        }
        if entry["image_score"] is not None:
            candidate |= {"image_dense_score": entry["image_score"], "best_image_path": best or ""}
        candidates.append(candidate)
    return candidates


def _row(
    question: EngineQuestion,
    settings: MethodSettings,
    runtime: dict[str, Any],
    answer: dict[str, Any] | None,
) -> dict[str, Any]:
    row: dict[str, Any] = {
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
        "method_name": settings.memeye_name,
        "effective_method_name": _effective_name(settings),
        "method_modality": settings.modality,
        "history_turns": runtime["history_turns_after_truncation"],
        "source_sessions": question.source_sessions,
        "clue_rounds": question.clue_ids,
        "usage": {},
    }
    if question.mode == "mcq":
        row |= {"choice": None, "valid_choice": None}
    if answer:
        row |= answer
    row["method_runtime"] = runtime
    return row


def _question_images(dataset: EngineDataset, question: EngineQuestion) -> list[str]:
    if not question.question_images or not dataset.source_path:
        return []
    source = Path(dataset.source_path)
    resolver = ImageResolver(source, Path(dataset.media_root) if dataset.media_root else None)
    resolved = [resolver.resolve(ref)[0] for ref in question.question_images]
    return [path for path in resolved if path]


def write_native_run(
    store: Store,
    dataset_ref: str | Path,
    settings: MethodSettings,
    out_dir: Path,
    *,
    k: int = DEFAULT_K,
    pool: int = DEFAULT_POOL,
    options: EngineOptions | None = None,
    answer: AnswerSettings | None = None,
    reporter: Reporter | None = None,
    overwrite: bool = False,
    limit: int | None = None,
    image_root: Path | None = None,
) -> NativeRunSummary:
    """Retrieve for every question of a dataset and write a native run to ``out_dir``.

    Raises:
        InputError: bad k / pool. EngineError: models missing, the output folder holds a
            run, or the answer endpoint failed (the rows written so far are kept).
    """
    if k < 1:
        raise InputError(f"--k must be at least 1, got {k}")
    if pool < k:
        raise InputError(
            f"--pool ({pool}) must be at least --k ({k})",
            fix="The pool holds the top-k and the candidates below them.",
        )
    check_out_dir(out_dir, overwrite=overwrite)  # before hours of retrieval, not after
    session = EngineSession(options, reporter)
    dataset = open_dataset(store, dataset_ref, image_root=image_root)
    questions = dataset.questions[:limit] if limit else dataset.questions
    result = retrieve_pools(store, dataset, settings, session, pool, [q.qid for q in questions])
    rounds = dataset.rounds_by_id()
    mode = _run_mode(result.questions)
    client = AnswerClient(answer) if answer else None
    config, metrics = _run_files(dataset, settings, k, pool, mode, result, answer, out_dir)
    answered = 0
    reporter = session.reporter
    with NativeRunWriter(out_dir, config, metrics, overwrite=overwrite) as writer:
        label = f"answering with {answer.model}" if answer else "writing the run"
        with reporter.progress(label, len(result.questions)) as advance:
            for row_index, question in enumerate(result.questions):
                pool_entries = result.pools.pool(row_index)
                seeds = [entry["round_id"] for entry in pool_entries[:k]]
                selected = sorted(seeds, key=lambda round_id: rounds[round_id].position)
                history = round_history(
                    [rounds[round_id] for round_id in selected], settings.modality
                )
                runtime = _runtime(
                    settings,
                    k,
                    pool,
                    seeds,
                    selected,
                    _candidates(pool_entries, k, result.pools.best_images[row_index].tolist()),
                    question.clue_ids,
                    result,
                    len(history),
                )
                reply = None
                if client is not None:
                    images = (
                        _question_images(dataset, question)
                        if settings.modality == "multimodal"
                        else []
                    )
                    reply = answer_question(
                        client,
                        system_prompt(mode),
                        history,
                        question.question,
                        question.gold,
                        question.options,
                        images,
                    )
                    answered += 1
                writer.add(_row(question, settings, runtime, reply), pool_entries)
                advance(1)
    return NativeRunSummary(
        out_dir,
        settings.method,
        len(result.questions),
        answered,
        result.corpus_size,
        result.text_source.label,
        result.image_source.label if result.image_source else None,
    )


def _run_files(
    dataset: EngineDataset,
    settings: MethodSettings,
    k: int,
    pool: int,
    mode: str,
    result: RetrievalResult,
    answer: AnswerSettings | None,
    out_dir: Path,
) -> tuple[dict[str, Any], dict[str, Any]]:
    method = {
        "name": settings.memeye_name,
        "modality": settings.modality,
        "retrieval_backend": BACKENDS[settings.method],
        "top_k": k,
        "neighbor_window": 0,
        "text_embedding_model": result.text_source.spec,
        "memscope_method": settings.method,
        "pool_size": pool,
    } | _image_fields(result)
    if settings.method == "srag_v":
        method |= {
            "text_dense_weight": settings.text_weight,
            "image_dense_weight": settings.image_weight,
        }
    elif settings.method == "dualmem":
        method |= {"visual_weight": settings.visual_weight}
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
    dataset_paths = {"dialog_json": dataset.source_path, "image_root": dataset.media_root}
    config = {
        "task": {
            "name": dataset.task,
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
        "task_name": dataset.task,
        "model_name": model["name"],
        "model_path": answer.model if answer else None,
        "method_name": _effective_name(settings),
        "base_method_name": "dualmem" if settings.method == "dualmem" else settings.memeye_name,
        "method_modality": settings.modality,
        "mode": mode,
        "num_qas": len(dataset.questions),
        "dialog_json": dataset.source_path,
        "image_root": dataset.media_root or "",
        "run_dir": str(out_dir.resolve()),
        "git_commit": f"memscope-{__version__}",
        "memscope": {
            "version": __version__,
            "dataset_id": dataset.dataset_id,
            "retrieval_only": answer is None,
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        },
    }
    return config, metrics
