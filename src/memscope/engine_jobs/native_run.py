"""``memscope retrieve``: run a retriever over a dataset and write a native run.

The run is written by the dataset's benchmark (its spec's ``run_writer``) in that
benchmark's own layout, so everything that reads the benchmark's runs reads it: MemEye's
layout plus a ``retrieval.jsonl`` sidecar with each question's whole ranked pool and every
channel's score (``adapters/memeye/native_run.py``), or the run file another benchmark's
own evaluation writes. The engine hands the writer plain records
(``records.EngineRunPlan``, one ``records.EngineRetrieval`` per question).

Without an answer model the run is retrieval-only. With one, each question is asked the
way MemEye's runner asks it (``engine/answer.py``); a failure stops the run with one
message and leaves the questions answered so far as a valid, shorter run. A benchmark
whose layout records no answers refuses an answer model.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memscope import __version__
from memscope.adapters.memeye.dataset import ImageResolver
from memscope.adapters.registry import benchmark
from memscope.engine.answer import AnswerClient, answer_question, round_history

# Re-exported: `memscope run` builds these settings and may not import the engine.
from memscope.engine.answer import AnswerSettings as AnswerSettings
from memscope.engine.prompts import system_prompt
from memscope.engine.retrieve import BACKENDS
from memscope.engine.retrieve import MethodSettings as MethodSettings
from memscope.engine_jobs.engine import (
    EngineOptions,
    EngineSession,
    Reporter,
    RetrievalResult,
    retrieve_pools,
)
from memscope.engine_jobs.engine_data import EngineDataset, EngineQuestion, open_dataset
from memscope.errors import EngineError, InputError
from memscope.records import (
    EngineAnswerer,
    EngineCandidate,
    EngineRetrieval,
    EngineRetriever,
    EngineRunPlan,
)
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
    written: Path | None = None
    """What the benchmark's writer wrote: the run directory, or the run file within it."""
    benchmark: str | None = None
    next_step: str | None = None
    """What to do with the output when it is not a run to ingest (the writer's word)."""


def _run_mode(questions: list[EngineQuestion]) -> str:
    return "mcq" if questions and all(q.mode == "mcq" for q in questions) else "open"


def _retriever(
    settings: MethodSettings, k: int, pool: int, result: RetrievalResult
) -> EngineRetriever:
    image = result.image_source
    return EngineRetriever(
        method=settings.method,
        backend=BACKENDS[settings.method],
        modality=settings.modality,
        corpus=settings.text_kind,
        uses_images=settings.uses_images,
        weights=settings.weights,
        top_k=k,
        pool_size=pool,
        corpus_size=result.corpus_size,
        text_model=result.text_source.spec,
        text_model_id=result.text_model,
        text_model_label=result.text_source.label,
        image_model=image.spec if image is not None else None,
        image_model_id=result.image_model,
    )


def _candidates(result: RetrievalResult, row: int) -> list[EngineCandidate]:
    best_images = result.pools.best_images[row].tolist()
    return [
        EngineCandidate(
            entry["rank"],
            entry["round_id"],
            entry["score"],
            entry["text_score"],
            entry["image_score"],
            best_images[index],
        )
        for index, entry in enumerate(result.pools.pool(row))
    ]


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
    ingest: bool = False,
) -> NativeRunSummary:
    """Retrieve for every question of a dataset and write a native run to ``out_dir``, in
    the layout of the dataset's benchmark.

    Raises:
        InputError: bad k / pool, or an answer model for a benchmark whose runs record no
            answers. EngineError: models missing, the benchmark writes no native runs, the
            output folder holds the run, or the answer endpoint failed (the rows written so
            far are kept). InputError: ``ingest`` asked of a writer whose output is no run.
        PluginError: the dataset's benchmark is not installed.
    """
    if k < 1:
        raise InputError(f"--k must be at least 1, got {k}")
    if pool < k:
        raise InputError(
            f"--pool ({pool}) must be at least --k ({k})",
            fix="The pool holds the top-k and the candidates below them.",
        )
    session = EngineSession(options, reporter)
    dataset = open_dataset(store, dataset_ref, image_root=image_root)
    spec = benchmark(dataset.benchmark)
    writer = spec.run_writer
    if writer is None:
        raise EngineError(
            f"memscope retrieve writes no {spec.title} runs: its package declares no run writer",
            where=str(dataset_ref),
            fix="Use `memscope search` to look into the dataset, or a benchmark that has one.",
        )
    if answer is not None and not writer.answers:
        raise InputError(
            f"{spec.title} runs written by memscope are retrieval-only: its run format has "
            "no place for memscope's answers",
            where="--answer-endpoint",
            fix="Drop --answer-endpoint and --answer-model.",
        )
    next_step: str | None = getattr(writer, "next_step", None)
    if ingest and next_step:
        raise InputError(
            f"memscope retrieve writes no {spec.title} run to ingest",
            where="--ingest",
            fix=f"Drop --ingest. {next_step}",
        )
    writer.check(out_dir, overwrite=overwrite)  # before hours of retrieval, not after
    questions = dataset.questions[:limit] if limit else dataset.questions
    # A writer that logs whole rankings (as upstream's retrievers do) gets every round
    whole = bool(getattr(writer, "whole_history", False))
    result = retrieve_pools(
        store, dataset, settings, session, None if whole else pool, [q.qid for q in questions]
    )
    rounds = dataset.rounds_by_id()
    mode = _run_mode(result.questions)
    client = AnswerClient(answer) if answer else None
    plan = EngineRunPlan(
        dataset_id=dataset.dataset_id,
        benchmark=spec.name,
        task=dataset.task,
        source_path=dataset.source_path,
        content_hash=dataset.content_hash,
        media_root=dataset.media_root,
        n_dataset_questions=len(dataset.questions),
        mode=mode,
        retriever=_retriever(settings, k, pool, result),
        answerer=(
            EngineAnswerer(answer.model, answer.endpoint, answer.max_tokens, answer.timeout_s)
            if answer
            else None
        ),
        memscope_version=__version__,
    )
    answered = 0
    reporter = session.reporter
    with writer.open(plan, out_dir, overwrite=overwrite) as sink:
        label = f"answering with {answer.model}" if answer else "writing the run"
        with reporter.progress(label, len(result.questions)) as advance:
            for row_index, question in enumerate(result.questions):
                candidates = _candidates(result, row_index)
                seeds = [candidate.round_id for candidate in candidates[:k]]
                selected = sorted(seeds, key=lambda round_id: rounds[round_id].position)
                history = round_history(
                    [rounds[round_id] for round_id in selected], settings.modality
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
                sink.add(
                    EngineRetrieval(
                        qid=question.qid,
                        idx=question.idx,
                        question=question.question,
                        gold=question.gold,
                        mode=question.mode,
                        x_labels=question.x_labels,
                        y_labels=question.y_labels,
                        clue_ids=question.clue_ids,
                        source_sessions=question.source_sessions,
                        pool=candidates,
                        history_round_ids=selected,
                        history_turns=len(history),
                        answer=reply,
                        history_sessions=(
                            list(question.history) if question.history is not None else None
                        ),
                    )
                )
                advance(1)
    return NativeRunSummary(
        out_dir,
        settings.method,
        len(result.questions),
        answered,
        result.corpus_size,
        result.text_source.label,
        result.image_source.label if result.image_source else None,
        sink.path,
        spec.name,
        next_step,
    )
