"""The memory engine's shared core: open a dataset, embed it (cached), retrieve, search.

Both front ends call these. Models load only when something is not cached yet, on the
device resolved once per :class:`EngineSession`; long work reports progress through a
:class:`Reporter` (the CLI draws Rich bars, the app can pass its own). Public entry points:

- :func:`index_dataset`: embed every round text, caption, image and question of a dataset
  (``memscope index``); a second call embeds nothing new.
- :func:`retrieve_pools`: ranked candidate pools of a retriever over a dataset.
- :func:`requery_pool`: re-retrieve a run's questions with the engine (``memscope rerun
  --requery``), returning a fresh pool in the shape of the ``retrievals`` table.
- :func:`search_text` / :func:`similar_images`: find rounds by words or by look
  (defined in :mod:`memscope.engine_jobs.search`, importable from here).

Datasets are opened by :mod:`memscope.engine_jobs.engine_data`; native runs are written by
:mod:`memscope.engine_jobs.native_run`; gap filling of logged runs is
:mod:`memscope.engine_jobs.gap_fill`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from memscope.config import load_config
from memscope.engine import corpus
from memscope.engine.corpus import CorpusItem
from memscope.engine.device import ResolvedDevice, resolve_device
from memscope.engine.models import (
    ImageModelSource,
    TextModelSource,
    resolve_image_model,
    resolve_text_model,
)
from memscope.engine.retrieve import (
    Bank,
    MethodSettings,
    Pools,
    retrieve,
    retrieve_in_banks,
    retrieve_in_histories,
)
from memscope.engine.threads import set_thread_budget as set_thread_budget  # for the CLI
from memscope.engine_jobs.engine_data import EngineDataset, EngineQuestion, open_dataset
from memscope.errors import EngineError, NotFoundError
from memscope.store import Store, queries
from memscope.store import embeddings as cache

if TYPE_CHECKING:
    import pyarrow as pa

    from memscope.engine.image import ImageEncoder
    from memscope.engine.text import TextEncoder

WRITE_CHUNK = 1024
"""Items embedded between two writes to the store: an interrupted index keeps its work."""
TEXT_MODEL_KINDS = (corpus.ROUND_TEXT, corpus.ROUND_DIALOGUE, corpus.CAPTION, corpus.QUESTION)
IMAGE_MODEL_KINDS = (corpus.IMAGE, corpus.QUESTION)
MIN_POOL_FACTOR = 3
"""docs/metrics.md §5: when the engine recomputes a pool it holds at least 3K candidates."""


class Reporter(Protocol):
    """Where the engine reports what it does (the CLI prints to stderr with Rich)."""

    def note(self, text: str) -> None:
        """One line of information (the device chosen, a skipped step)."""

    def progress(self, label: str, total: int) -> Any:
        """A context manager yielding ``advance(n)`` for ``total`` items of work."""


class SilentReporter:
    """A reporter that says nothing (the default for library callers)."""

    def note(self, text: str) -> None:
        """Ignore the note."""

    @contextmanager
    def progress(self, label: str, total: int) -> Iterator[Callable[[int], None]]:
        """Yield a no-op ``advance``."""
        yield lambda count: None


@dataclass(frozen=True)
class EngineOptions:
    """The user's engine choices; None means the config file's ``[engine]`` value, then the default."""

    text_model: str | None = None
    image_model: str | None = None
    image_pretrained: str | None = None
    device: str | None = None
    batch_size: int | None = None

    def with_config(self) -> EngineOptions:
        """These options with unset values taken from the config file."""
        settings = load_config().engine
        return EngineOptions(
            text_model=self.text_model or settings.text_model,
            image_model=self.image_model or settings.image_model,
            image_pretrained=self.image_pretrained
            or (settings.image_pretrained if not self.image_model else None),
            device=self.device or settings.device,
            batch_size=self.batch_size,
        )

    @property
    def image_model_chosen(self) -> bool:
        """Whether the user named an image model (else the SigLIP-2 default applies)."""
        return bool(self.image_model or self.image_pretrained)


class EngineSession:
    """The models of one command or app action: device resolved once, encoders loaded on demand.

    Args:
        options: Engine options (config values are filled in here).
        reporter: Receives the device line and progress.
    """

    def __init__(
        self, options: EngineOptions | None = None, reporter: Reporter | None = None
    ) -> None:
        self.options = (options or EngineOptions()).with_config()
        self.reporter = reporter or SilentReporter()
        self._device: ResolvedDevice | None = None
        self._text_source: TextModelSource | None = None
        self._image_source: ImageModelSource | None = None

    @property
    def device(self) -> ResolvedDevice:
        """The torch device, resolved (and reported) on first use."""
        if self._device is None:
            self._device = resolve_device(self.options.device)
            self.reporter.note(f"device: {self._device.description}")
        return self._device

    def text_source(self) -> TextModelSource:
        """Where the text model is (no weights loaded)."""
        if self._text_source is None:
            self._text_source = resolve_text_model(self.options.text_model)
        return self._text_source

    def image_source(self) -> ImageModelSource:
        """Where the image model is (no weights loaded)."""
        if self._image_source is None:
            self._image_source = resolve_image_model(
                self.options.image_model, self.options.image_pretrained
            )
        return self._image_source

    def text_encoder(self) -> TextEncoder:
        """The loaded text encoder."""
        from memscope.engine.text import load_text_encoder

        return load_text_encoder(self.text_source(), self.device)

    def image_encoder(self) -> ImageEncoder:
        """The loaded image encoder."""
        from memscope.engine.image import load_image_encoder

        return load_image_encoder(self.image_source(), self.device)

    def batch(self, default: int) -> int:
        """The batch size to use (``--batch-size`` or the encoder's default)."""
        return self.options.batch_size or default


@dataclass
class KindSummary:
    """How one item kind was indexed with one model."""

    kind: str
    model: str
    items: int
    embedded: int
    cached: int


@dataclass
class IndexSummary:
    """What :func:`index_dataset` did."""

    dataset_id: str
    kinds: list[KindSummary] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def embedded(self) -> int:
        """Vectors computed by this call (0 when everything was cached)."""
        return sum(kind.embedded for kind in self.kinds)


def dataset_items(
    dataset: EngineDataset, kinds: tuple[str, ...]
) -> tuple[list[CorpusItem], list[str]]:
    """The dataset's items of ``kinds`` and the image files that could not be read."""
    items: list[CorpusItem] = []
    unreadable: list[str] = []
    if any(kind != corpus.QUESTION for kind in kinds):
        round_level, unreadable = corpus.round_items(dataset.rounds, kinds)
        items += round_level
    if corpus.QUESTION in kinds:
        items += corpus.question_items([(q.qid, q.idx, q.question) for q in dataset.questions])
    return items, (unreadable if corpus.IMAGE in kinds else [])


def _write_items(
    store: Store, dataset_id: str, kinds: tuple[str, ...], items: list[CorpusItem]
) -> None:
    """Record which content each item has, unless the store already says so (no write then)."""
    import pyarrow as pa

    with store.read() as con:
        stored = cache.stored_items(con, dataset_id, list(kinds))
    if stored == {(item.kind, item.item_id, item.content_hash, item.path) for item in items}:
        return

    table = pa.table(
        {
            "kind": pa.array([item.kind for item in items], pa.string()),
            "item_id": pa.array([item.item_id for item in items], pa.string()),
            "round_id": pa.array([item.round_id for item in items], pa.string()),
            "ordinal": pa.array([item.ordinal for item in items], pa.int32()),
            "content_hash": pa.array([item.content_hash for item in items], pa.string()),
            "source": pa.array([item.path for item in items], pa.string()),
        }
    )
    with store.write() as con:
        cache.replace_items(con, dataset_id, list(kinds), table)


def _embed_missing(
    store: Store,
    session: EngineSession,
    items: list[CorpusItem],
    *,
    image_model: bool,
    notes: list[str],
) -> tuple[int, int]:
    """Embed the items whose content is not cached for the model; return (embedded, cached)."""
    model_id = session.image_source().model_id if image_model else session.text_source().model_id
    unique: dict[str, CorpusItem] = {}
    for item in items:
        unique.setdefault(item.content_hash, item)
    with store.read() as con:
        missing = cache.missing_hashes(con, model_id, list(unique))
    todo = [unique[digest] for digest in unique if digest in missing]
    if not todo:
        return 0, len(unique)
    is_image = image_model and todo[0].kind == corpus.IMAGE
    encoder: Any = session.image_encoder() if image_model else session.text_encoder()
    label = f"{todo[0].kind}s · {encoder.source.label}"
    with session.reporter.progress(f"embedding {label}", len(todo)) as advance:
        for start in range(0, len(todo), WRITE_CHUNK):
            chunk = todo[start : start + WRITE_CHUNK]
            if is_image:
                result = encoder.encode_images(
                    [item.path for item in chunk], batch_size=session.batch(32), on_batch=advance
                )
                keep = [i for i in range(len(chunk)) if i not in result.failed]
                notes += [
                    f"{chunk[i].item_id}: unreadable image {chunk[i].path} ({why})"
                    for i, why in result.failed.items()
                ]
                vectors, hashes = result.vectors[keep], [chunk[i].content_hash for i in keep]
            elif image_model:
                vectors = encoder.encode_texts(
                    [item.text for item in chunk], batch_size=session.batch(64), on_batch=advance
                )
                hashes = [item.content_hash for item in chunk]
            else:
                vectors = encoder.encode(
                    [item.text for item in chunk], batch_size=session.batch(64), on_batch=advance
                )
                hashes = [item.content_hash for item in chunk]
            with store.write() as con:
                cache.insert_vectors(con, model_id, chunk[0].kind, hashes, vectors)
    return len(todo), len(unique) - len(todo)


def ensure_embedded(
    store: Store,
    dataset: EngineDataset,
    session: EngineSession,
    *,
    text_kinds: tuple[str, ...] = (),
    image_kinds: tuple[str, ...] = (),
) -> IndexSummary:
    """Make sure the dataset's items of the given kinds have vectors for the session's models."""
    summary = IndexSummary(dataset.dataset_id)
    kinds = tuple(dict.fromkeys((*text_kinds, *image_kinds)))
    items, unreadable = dataset_items(dataset, kinds)
    _write_items(store, dataset.dataset_id, kinds, items)
    if unreadable:
        summary.notes.append(
            f"{len(unreadable)} image(s) could not be read and are not embedded (e.g. {unreadable[0]})"
        )
    for use_image_model, chosen in ((False, text_kinds), (True, image_kinds)):
        for kind in chosen:
            kind_items = [item for item in items if item.kind == kind]
            if not kind_items:
                continue
            embedded, cached = _embed_missing(
                store, session, kind_items, image_model=use_image_model, notes=summary.notes
            )
            source = session.image_source() if use_image_model else session.text_source()
            summary.kinds.append(
                KindSummary(
                    kind, source.label, len({i.content_hash for i in kind_items}), embedded, cached
                )
            )
    return summary


def index_dataset(
    store: Store,
    ref: str | Path,
    options: EngineOptions | None = None,
    *,
    reporter: Reporter | None = None,
    images: bool = True,
    image_root: Path | None = None,
) -> IndexSummary:
    """Embed every round text, caption, image and question of a dataset (``memscope index``).

    Text items use the text model; images and the questions (as image-space queries) use
    the image model. When the user named no image model and the default SigLIP-2 is not
    on this machine, images are skipped with a note saying what to pass; a named image
    model that is missing is an error.
    """
    session = EngineSession(options, reporter)
    dataset = open_dataset(store, ref, image_root=image_root)
    image_kinds: tuple[str, ...] = ()
    skipped: str | None = None
    if images:
        try:
            session.image_source()
            image_kinds = IMAGE_MODEL_KINDS
        except EngineError as error:
            if session.options.image_model_chosen:
                raise
            skipped = f"images not embedded: {error.message}"
    summary = ensure_embedded(
        store, dataset, session, text_kinds=TEXT_MODEL_KINDS, image_kinds=image_kinds
    )
    summary.notes = dataset.notices + ([skipped] if skipped else []) + summary.notes
    return summary


@dataclass
class RetrievalResult:
    """Pools for a dataset's questions, aligned with ``questions``."""

    dataset: EngineDataset
    questions: list[EngineQuestion]
    pools: Pools
    text_source: TextModelSource
    image_source: ImageModelSource | None
    corpus_size: int

    @property
    def text_model(self) -> str:
        """The text model's cache id."""
        return self.text_source.model_id

    @property
    def image_model(self) -> str | None:
        """The image model's cache id (None without an image channel)."""
        return self.image_source.model_id if self.image_source else None


def load_bank(
    store: Store, dataset_id: str, settings: MethodSettings, session: EngineSession
) -> Bank:
    """The dataset's memory bank for a method, from cached vectors."""
    with store.read() as con:
        text = cache.item_vectors(
            con, dataset_id, settings.text_kind, session.text_source().model_id
        )
        images = (
            cache.item_vectors(con, dataset_id, corpus.IMAGE, session.image_source().model_id)
            if settings.uses_images
            else None
        )
    round_ids = np.array(text.item_ids, dtype=object)
    bank = Bank(round_ids, text.vectors)
    if images is not None:
        position = {round_id: index for index, round_id in enumerate(text.item_ids)}
        keep = [i for i, round_id in enumerate(images.round_ids) if round_id in position]
        bank.image_vectors = (
            images.vectors[keep]
            if keep
            else np.zeros(
                (0, images.vectors.shape[1] if images.vectors.ndim == 2 else 1), np.float32
            )
        )
        bank.image_rounds = np.array(
            [position[str(images.round_ids[i])] for i in keep], dtype=np.int64
        )
        bank.image_paths = [images.sources[i] or "" for i in keep]
    return bank


def question_vectors(
    store: Store, dataset_id: str, questions: list[EngineQuestion], model_id: str
) -> tuple[np.ndarray, np.ndarray]:
    with store.read() as con:
        found = cache.item_vectors(con, dataset_id, corpus.QUESTION, model_id)
    by_qid = dict(zip(found.item_ids, found.vectors, strict=True))
    dim = found.vectors.shape[1] if found.vectors.ndim == 2 and found.vectors.shape[1] else 1
    matrix = np.zeros((len(questions), dim), dtype=np.float32)
    has_query = np.zeros(len(questions), dtype=bool)
    for row, question in enumerate(questions):
        vector = by_qid.get(question.qid)
        if vector is not None:
            matrix[row], has_query[row] = vector, True
    return matrix, has_query


def bank_and_queries(
    store: Store,
    dataset: EngineDataset,
    settings: MethodSettings,
    session: EngineSession,
    questions: list[EngineQuestion],
) -> tuple[Bank, np.ndarray, np.ndarray | None, np.ndarray]:
    """Embed what is missing, then ``(bank, text queries, image queries or None, has_query)``
    for ``questions``: what both a retrieval and a gap fill score against."""
    ensure_embedded(
        store,
        dataset,
        session,
        text_kinds=(settings.text_kind, corpus.QUESTION),
        image_kinds=(corpus.IMAGE, corpus.QUESTION) if settings.uses_images else (),
    )
    bank = load_bank(store, dataset.dataset_id, settings, session)
    text_queries, has_query = question_vectors(
        store, dataset.dataset_id, questions, session.text_source().model_id
    )
    image_queries = None
    if settings.uses_images:
        image_queries, _ = question_vectors(
            store, dataset.dataset_id, questions, session.image_source().model_id
        )
    return bank, text_queries, image_queries, has_query


def retrieve_pools(
    store: Store,
    dataset: EngineDataset,
    settings: MethodSettings,
    session: EngineSession,
    pool_size: int | None,
    qids: list[str] | None = None,
) -> RetrievalResult:
    """Embed what is missing, then rank every round for each question (all, or ``qids``);
    in a dataset of separate memories, every round of the question's own memory; where
    each question has its own history (a haystack of sessions), every round of it.

    ``pool_size`` None keeps every round a question can see (the whole of its memory or
    history, ranked)."""
    wanted = set(qids) if qids is not None else None
    questions = [q for q in dataset.questions if wanted is None or q.qid in wanted]
    bank, text_queries, image_queries, has_query = bank_and_queries(
        store, dataset, settings, session, questions
    )
    if pool_size is None:
        pool_size = max(len(bank), 1)
    if dataset.historied:
        sessions = {round_.round_id: round_.session_id for round_ in dataset.rounds}
        pools = retrieve_in_histories(
            bank,
            np.array([sessions.get(str(r), "") for r in bank.round_ids], dtype=object),
            [q.history for q in questions],
            settings,
            text_queries,
            image_queries,
            pool_size,
            has_query,
        )
    elif dataset.banked:
        banks = {round_.round_id: round_.bank for round_ in dataset.rounds}
        pools = retrieve_in_banks(
            bank,
            np.array([banks.get(str(r), "") for r in bank.round_ids], dtype=object),
            np.array([q.bank for q in questions], dtype=object),
            settings,
            text_queries,
            image_queries,
            pool_size,
            has_query,
        )
    else:
        pools = retrieve(bank, settings, text_queries, image_queries, pool_size, has_query)
    return RetrievalResult(
        dataset,
        questions,
        pools,
        session.text_source(),
        session.image_source() if settings.uses_images else None,
        len(bank),
    )


def run_method_settings(
    run: dict[str, Any], config: dict[str, Any], metrics: dict[str, Any]
) -> tuple[MethodSettings | None, dict[str, Any]]:
    """The retriever a run used, as engine settings, and what the run says about its models.

    Returns:
        ``(settings or None when the engine cannot reproduce the method, details)``;
        details hold ``text_model``, ``image_model``, ``backend``, ``modality``, ``top_k``
        and, when settings is None, ``reason``.
    """
    runtime = (
        runtime_found if isinstance(runtime_found := metrics.get("method_runtime"), dict) else {}
    )
    runtime = runtime or ((config.get("run") or {}).get("method_runtime") or {})
    method_config: dict[str, Any] = found if isinstance(found := config.get("method"), dict) else {}

    def pick(name: str, default: Any = None) -> Any:
        value = runtime.get(name, method_config.get(name))
        return default if value in (None, "") else value

    name = str(run.get("base_method") or run.get("method") or method_config.get("name") or "")
    details: dict[str, Any] = {
        "text_model": pick("text_embedding_model", "all-MiniLM-L6-v2"),
        "image_model": pick("multimodal_embedding_model"),
        "image_pretrained": pick("multimodal_embedding_pretrained"),
        "top_k": run.get("top_k") or pick("top_k", 10),
    }
    native = pick("memscope_method")
    if native:
        settings = MethodSettings(
            str(native),
            float(pick("text_dense_weight", 0.5)),
            float(pick("image_dense_weight", 0.5)),
            float(pick("visual_weight", 0.75)),
        )
        return settings, details | {
            "backend": pick("retrieval_backend"),
            "modality": settings.modality,
        }
    if not name.startswith("semantic_rag"):
        return None, details | {
            "reason": f"{name or 'this method'} does not rank rounds by similarity"
        }
    # MemEye takes the modality from the method config, else from the method's name; the
    # runtime records the result.
    modality = str(method_config.get("modality") or runtime.get("method_modality") or "").lower()
    if modality not in ("text_only", "multimodal"):
        modality = "multimodal" if name == "semantic_rag_multimodal" else "text_only"
    backend = str(pick("retrieval_backend", "dense_text")).lower()
    details |= {"backend": backend, "modality": modality}
    if backend == "dense_text":
        settings = (
            MethodSettings("srag_t")
            if modality == "text_only"
            else MethodSettings("srag_v", 1.0, 0.0)
        )
        return settings, details
    if backend == "dense_multimodal" and modality == "multimodal":
        return MethodSettings(
            "srag_v", float(pick("text_dense_weight", 1.0)), float(pick("image_dense_weight", 0.0))
        ), details
    return None, details | {
        "reason": f"retrieval backend {backend!r} ({modality}) is not one the engine reproduces"
    }


def run_image_model(details: dict[str, Any]) -> tuple[str | None, str | None]:
    """The ``(image model, pretrained)`` a run used, as :func:`resolve_image_model` takes them.

    A native run records both; MemEye records a Hugging Face name, mapped to open_clip's
    port; anything else means the default.
    """
    name, pretrained = details.get("image_model"), details.get("image_pretrained")
    if name and pretrained:
        return str(name), str(pretrained)
    from memscope.engine.models import KNOWN_IMAGE_MODELS

    return KNOWN_IMAGE_MODELS.get(str(name), (None, None))


def requery_pool(
    store: Store,
    run_id: str,
    qids: list[str] | None = None,
    *,
    pool: int | None = None,
    method: str | None = None,
    options: EngineOptions | None = None,
    reporter: Reporter | None = None,
) -> pa.Table:
    """Re-retrieve a run's questions with the engine instead of re-ranking its logged pool.

    The run's own retriever is reproduced (SRAG(T) for ``semantic_rag_text_only``, SRAG(V)
    with the run's weights for ``semantic_rag_multimodal``, the method of a native run),
    with the run's text model unless ``options`` name another; ``method`` overrides it
    (required for runs that did not retrieve by similarity). Nothing is written.

    Args:
        pool: Candidates per question (default and minimum: 3 × the run's top_k).

    Returns:
        An Arrow table shaped like ``retrievals`` without ``run_id``: ``qid``, ``rank``
        (1 = best), ``round_id``, ``score``, ``text_score``, ``image_score`` and
        ``origin = 'requery'``, ordered by question idx then rank.

    Raises:
        EngineError: the method cannot be reproduced or its models are not here.
    """
    with store.read() as con:
        run = queries.get_run(con, run_id)
        if run is None:
            raise NotFoundError(f"no run {run_id!r} in the store", where=str(store.path))
        config, metrics = queries.run_config(con, run_id)
    settings, details = run_method_settings(run, config, metrics)
    if method is not None:
        settings = MethodSettings(method)
    if settings is None:
        raise EngineError(
            f"cannot re-query run {run_id}: {details['reason']}",
            fix="Name the retriever to use instead: method srag_t, srag_v or dualmem.",
        )
    options = options or EngineOptions()
    if options.text_model is None and method is None:
        options = EngineOptions(
            details["text_model"],
            options.image_model,
            options.image_pretrained,
            options.device,
            options.batch_size,
        )
    if settings.uses_images and not options.image_model_chosen and method is None:
        image_model, pretrained = run_image_model(details)
        options = EngineOptions(
            options.text_model, image_model, pretrained, options.device, options.batch_size
        )
    session = EngineSession(options, reporter)
    top_k = int(details["top_k"] or 10)
    size = max(MIN_POOL_FACTOR * top_k, pool or 0)
    with store.read() as con:
        run_qids = cache.run_qids(con, run_id)
    wanted = [qid for qid in run_qids if qids is None or qid in set(qids)]
    result = retrieve_pools(
        store, open_dataset(store, run["dataset_id"]), settings, session, size, wanted
    )
    return pools_table(result)


def pools_table(result: RetrievalResult, origin: str = "requery") -> pa.Table:
    """Pools as an Arrow table shaped like ``retrievals`` (without ``run_id``)."""
    import pyarrow as pa

    pools = result.pools
    qids, ranks, round_ids, scores, texts, images = [], [], [], [], [], []
    for row, question in enumerate(result.questions):
        size = int(pools.sizes[row])
        qids += [question.qid] * size
        ranks += list(range(1, size + 1))
        round_ids += [str(value) for value in pools.round_ids[row, :size]]
        scores += pools.scores[row, :size].tolist()
        texts += pools.text_scores[row, :size].tolist()
        images += pools.image_scores[row, :size].tolist()

    def column(values: list[float]) -> pa.Array:
        return pa.array(values, pa.float64(), from_pandas=True)  # NaN → null

    return pa.table(
        {
            "qid": pa.array(qids, pa.string()),
            "rank": pa.array(ranks, pa.int32()),
            "round_id": pa.array(round_ids, pa.string()),
            "score": column(scores),
            "text_score": column(texts),
            "image_score": column(images),
            "origin": pa.array([origin] * len(qids), pa.string()),
        }
    )


SEARCH_NAMES = ("SearchHit", "search_text", "similar_images", "round_previews")


def __getattr__(name: str) -> Any:
    # The search functions live in engine_jobs/search.py, which imports this module; importing
    # them lazily here keeps `from memscope.engine_jobs.engine import search_text` working
    # without an import cycle.
    if name in SEARCH_NAMES:
        from memscope.engine_jobs import search

        return getattr(search, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
