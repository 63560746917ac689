"""Filling the gaps of a logged run: recompute its retriever's scores with its own models.

MemEye logs a ranking to ``top_k`` but scores for the first five candidates only, and no
candidate below ``top_k``. :func:`fill_gaps` reproduces the run's retriever (SRAG(T) or
SRAG(V), with the run's text model and weights), recomputes every round's similarity for
every question, checks the recomputation against the scores the run did log (refusing to
write when they disagree: that would not be the run's retriever), and merges the result
into ``retrievals`` as ``store/recomputed.py`` describes: missing scores filled, the pool
extended to at least 3 × top_k candidates, every recomputed value marked.

When the run's image model (SigLIP-2 for SRAG(V)) is not on this machine, only the text
scores are recomputed; the fused scores stay missing and the pool is not extended, since
ranking by part of a score would invent an order. The summary says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from memscope.engine import fusion
from memscope.engine.retrieve import ChannelScores, MethodSettings, score_bank
from memscope.engine_jobs.engine import (
    MIN_POOL_FACTOR,
    EngineOptions,
    EngineSession,
    Reporter,
    bank_and_queries,
    run_image_model,
    run_method_settings,
)
from memscope.engine_jobs.engine_data import EngineQuestion, open_dataset
from memscope.errors import EngineError, NotFoundError
from memscope.store import Store, queries, recomputed
from memscope.store import embeddings as cache
from memscope.store.connection import rollback_quietly

if TYPE_CHECKING:
    import pyarrow as pa

DEVIATION_TOLERANCE = 1e-3
"""Largest |recomputed - logged| accepted: float32 embeddings on other hardware differ by ~1e-6."""


@dataclass
class GapFillSummary:
    """What :func:`fill_gaps` did to one run."""

    run_id: str
    method: str
    text_model: str | None
    image_model: str | None
    pool_size: int
    n_questions: int
    n_filled: int
    """Logged candidates that received recomputed values."""
    n_extended: int
    """Candidates added below the logged ranks."""
    max_deviation: float | None
    """Largest difference from a logged value (None when nothing overlapped)."""
    n_compared: int
    seed_order_agreement: float | None
    """Share of questions whose recomputed top-k order equals the logged one."""
    notes: list[str] = field(default_factory=list)


def _session_for_run(
    details: dict[str, Any], options: EngineOptions | None, reporter: Reporter | None
) -> EngineSession:
    options = options or EngineOptions()
    text_model = options.text_model or details.get("text_model")
    image_model, pretrained = options.image_model, options.image_pretrained
    if not options.image_model_chosen:
        image_model, pretrained = run_image_model(details)
    return EngineSession(
        EngineOptions(text_model, image_model, pretrained, options.device, options.batch_size),
        reporter,
    )


def fill_gaps(
    store: Store,
    run_id: str,
    *,
    pool: int | None = None,
    options: EngineOptions | None = None,
    force: bool = False,
    tolerance: float = DEVIATION_TOLERANCE,
    reporter: Reporter | None = None,
) -> GapFillSummary:
    """Recompute a logged run's candidate scores and merge them into its retrievals.

    Running it again first restores the logged rows, so the result is the same.

    Args:
        pool: Candidates per question to keep (default and minimum: 3 × top_k).
        options: Engine options; the run's own text / image model is used unless named.
        force: Write even when the recomputation disagrees with the logged scores.
        tolerance: The disagreement allowed without ``force``.

    Raises:
        NotFoundError: no such run. EngineError: the run's retriever cannot be reproduced,
            its text model is not here, or the recomputation disagrees with the log.
    """
    with store.read() as con:
        run = queries.get_run(con, run_id)
        if run is None:
            raise NotFoundError(f"no run {run_id!r} in the store", where=str(store.path))
        config, metrics = queries.run_config(con, run_id)
        run_hash = _run_hash(con, run_id)
    if run.get("retrieval_kind") != "ranked":
        raise EngineError(
            f"run {run_id} logged no ranked retrieval, so there is nothing to fill",
            fix="Use `memscope retrieve` to make a native run of a retriever over its dataset.",
        )
    settings, details = run_method_settings(run, config, metrics)
    if settings is None:
        raise EngineError(f"cannot recompute run {run_id}: {details['reason']}")
    session = _session_for_run(details, options, reporter)
    notes: list[str] = []
    full_score = True
    if settings.uses_images:
        try:
            session.image_source()
        except EngineError as error:
            full_score = False
            notes.append(
                f"image scores were not recomputed ({error.what}); fused scores stay missing and the pool is "
                "not extended"
            )
            settings = MethodSettings("srag_v", settings.text_weight, 0.0)
    top_k = int(details.get("top_k") or 10)
    pool_size = max(MIN_POOL_FACTOR * top_k, pool or 0)
    dataset = open_dataset(store, run["dataset_id"])
    with store.read() as con:
        run_qids = cache.run_qids(con, run_id)
    by_qid = {q.qid: q for q in dataset.questions}
    questions = [by_qid[qid] for qid in run_qids if qid in by_qid]
    bank, text_queries, image_queries, has_query = bank_and_queries(
        store, dataset, settings, session, questions
    )
    channels = score_bank(bank, settings, text_queries, image_queries)
    order = fusion.rank_order(channels.fused if full_score else channels.text, bank.round_ids)
    image_model = session.image_source().model_id if settings.uses_images else None
    record = {
        "run_hash": run_hash,
        "method": settings.method,
        "text_model": session.text_source().model_id,
        "image_model": image_model,
        "pool_size": pool_size,
        "notes": notes,
    }
    with store.write() as con:
        con.begin()
        try:
            recomputed.undo_recomputation(con, run_id)
            logged = recomputed.logged_candidates(con, run_id).to_pylist()
            fresh, agreement, n_questions = _fresh_rows(
                logged,
                questions,
                has_query,
                bank.round_ids,
                channels,
                order,
                pool_size,
                top_k,
                full_score,
            )
            deviation, _ = recomputed.compare_with_logged(con, run_id, fresh)
            if deviation is not None and deviation > tolerance and not force:
                raise EngineError(
                    f"the recomputed scores differ from the ones run {run_id} logged by up to {deviation:.4g} "
                    f"(tolerance {tolerance:g}): this is not the run's retriever, so nothing was written",
                    where=f"text model {session.text_source().label}",
                    fix="Check that the dataset and --text-model are the run's, or pass --force to write them anyway.",
                )
            record["n_questions"] = n_questions
            counts = recomputed.merge_recomputation(
                con, run_id, fresh, extend=full_score, record=record
            )
            con.commit()
        except BaseException:
            rollback_quietly(con)
            raise
    return GapFillSummary(
        run_id,
        settings.method,
        session.text_source().label,
        image_model,
        pool_size,
        n_questions,
        counts.n_filled,
        counts.n_extended,
        counts.max_deviation,
        counts.n_compared,
        agreement,
        notes,
    )


def _run_hash(con: Any, run_id: str) -> str:
    """The content hash of a stored run."""
    return str((queries.get_run(con, run_id) or {}).get("content_hash") or "")


def _fresh_rows(
    logged: list[dict[str, Any]],
    questions: list[EngineQuestion],
    has_query: np.ndarray,
    round_ids: np.ndarray,
    channels: ChannelScores,
    order: np.ndarray,
    pool_size: int,
    top_k: int,
    full_score: bool,
) -> tuple[pa.Table, float | None, int]:
    """Recomputed rows for every logged candidate plus each question's top ``pool_size``."""
    import pyarrow as pa

    logged_by_qid: dict[str, list[str]] = {}
    for logged_row in logged:
        logged_by_qid.setdefault(logged_row["qid"], []).append(logged_row["round_id"])
    column_of = {round_id: index for index, round_id in enumerate(round_ids.tolist())}
    qids, rounds, ranks, scores, texts, images = [], [], [], [], [], []
    agreeing = compared = n_questions = 0
    for row, question in enumerate(questions):
        logged_ids = logged_by_qid.get(question.qid)
        if not logged_ids or not has_query[row]:
            continue  # a question the run retrieved nothing for stays that way
        n_questions += 1
        rank_of = np.empty(len(round_ids), dtype=np.int64)
        rank_of[order[row]] = np.arange(1, len(round_ids) + 1)
        top = order[row, :pool_size].tolist() if full_score else []
        chosen = list(dict.fromkeys([column_of[r] for r in logged_ids if r in column_of] + top))
        if full_score:
            compared += 1
            agreeing += [
                str(round_ids[c]) for c in order[row, : min(top_k, len(logged_ids))]
            ] == logged_ids[:top_k]
        for column in chosen:
            qids.append(question.qid)
            rounds.append(str(round_ids[column]))
            ranks.append(int(rank_of[column]))
            scores.append(float(channels.fused[row, column]) if full_score else np.nan)
            texts.append(float(channels.text[row, column]))
            images.append(float(channels.image[row, column]))

    def floats(values: list[float]) -> pa.Array:
        return pa.array(values, pa.float64(), from_pandas=True)

    table = pa.table(
        {
            "qid": pa.array(qids, pa.string()),
            "round_id": pa.array(rounds, pa.string()),
            "recomputed_rank": pa.array(ranks, pa.int32()),
            "score": floats(scores),
            "text_score": floats(texts),
            "image_score": floats(images),
        }
    )
    return table, (agreeing / compared if compared else None), n_questions


def undo_gap_fill(store: Store, run_id: str) -> bool:
    """Restore a run's logged retrievals; False when it had no recomputation."""
    with store.write() as con:
        con.begin()
        try:
            undone = recomputed.undo_recomputation(con, run_id)
            con.commit()
        except BaseException:
            rollback_quietly(con)
            raise
    return undone


def requery_possible(store: Store, run_id: str) -> bool:
    """Whether ``rerun --requery`` can reproduce the retriever of run ``run_id``."""
    with store.read() as con:
        run = queries.get_run(con, run_id)
        if run is None:
            return False
        config, metrics = queries.run_config(con, run_id)
    settings, _details = run_method_settings(run, config, metrics)
    return settings is not None


def recompute_hint(store: Store, run_id: str) -> str | None:
    """The sentence pointing to ``memscope recompute RUN``, or None where it cannot work here.

    It can where the run logged a ranked retrieval the engine reproduces and the run's
    models are on this machine (the text model, and for SRAG(V) its image model: without
    it only part of each score comes back and the pool is not extended, so re-ranking
    gains nothing). Without the engine installed, a run whose text model is the
    all-MiniLM-L6-v2 the engine extra ships (and that needs no image model) still gets
    the hint, with what to install.
    """
    from memscope.engine.models import MINILM_NAMES
    from memscope.engine_available import INSTALL_HINT, missing_engine_packages

    with store.read() as con:
        run = queries.get_run(con, run_id)
        if run is None or run.get("retrieval_kind") != "ranked":
            return None
        config, metrics = queries.run_config(con, run_id)
    settings, details = run_method_settings(run, config, metrics)
    if settings is None:
        return None
    session = _session_for_run(details, None, None)
    try:
        if settings.uses_images:
            session.image_source()
        if missing_engine_packages():
            if str(session.options.text_model or "").lower() not in MINILM_NAMES:
                return None
            return (
                f"`memscope recompute {run_id}` can recompute the missing similarities with the "
                f"memory engine ({INSTALL_HINT}) to re-rank the whole pool"
            )
        text = session.text_source()
    except (EngineError, ImportError):  # a model not here, or open_clip missing for its name
        return None
    models = text.label + (f" and {session.image_source().label}" if settings.uses_images else "")
    return (
        f"`memscope recompute {run_id}` can recompute the missing similarities with {models} "
        "to re-rank the whole pool"
    )
