"""The text encoder: a sentence-transformers model, loaded once per process, offline.

Vectors come back as L2-normalised float32 rows, computed in eval mode under
``torch.inference_mode`` in batches; a callback hears how many items each batch embedded
(the progress bars' items per second). The whole input goes to one ``encode`` call, so
sentence-transformers sorts it by length before cutting batches (each batch pads only to
texts of about its own length) and restores the order; progress comes from a forward
hook on the model, which fires once per batch without splitting the work.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from memscope.engine.device import ResolvedDevice
from memscope.engine.models import TEXT_FIX, TextModelSource, ensure_offline
from memscope.engine.threads import configure_torch
from memscope.errors import EngineError

DEFAULT_TEXT_BATCH = 64

_loaded: dict[tuple[str, str], TextEncoder] = {}
_load_lock = threading.Lock()


class TextEncoder:
    """A loaded sentence-transformers model on one device.

    Use :func:`load_text_encoder`, which loads each (model, device) once per process.
    """

    def __init__(self, source: TextModelSource, device: ResolvedDevice) -> None:
        ensure_offline()
        configure_torch()
        try:
            from sentence_transformers import SentenceTransformer

            _quiet_transformers()
            model = SentenceTransformer(str(source.path), device=device.name, local_files_only=True)
        except Exception as exc:  # a broken folder fails in many library-specific ways
            raise EngineError(
                f"cannot load text model {source.label}: {type(exc).__name__}: {exc}",
                where=str(source.path),
                fix=TEXT_FIX,
            ) from exc
        model.eval()
        self.model = model
        self.source = source
        self.device = device
        # sentence-transformers renamed the method; ask whichever this version has.
        dimension_of = getattr(model, "get_embedding_dimension", None) or getattr(
            model, "get_sentence_embedding_dimension", None
        )
        dimension = dimension_of() if dimension_of else None
        self.dim = int(dimension or model.encode(["x"], convert_to_numpy=True).shape[1])
        self._encode_lock = threading.Lock()

    @property
    def model_id(self) -> str:
        """The embedding-cache key of this model."""
        return self.source.model_id

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = DEFAULT_TEXT_BATCH,
        on_batch: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """Embed texts in one library call (length-sorted batches of ``batch_size``).

        Returns:
            ``(len(texts), dim)`` float32, each row of unit length, in the order of ``texts``.
        """
        import torch

        configure_torch()
        texts = list(texts)
        reported = 0

        def report_batch(_module: object, _inputs: object, output: object) -> None:
            nonlocal reported
            embedded = _batch_rows(output)
            if embedded and on_batch:
                reported += embedded
                on_batch(embedded)

        with self._encode_lock, torch.inference_mode():
            hook = self.model.register_forward_hook(report_batch) if on_batch else None
            try:
                vectors = self.model.encode(
                    texts,
                    batch_size=batch_size,
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                )
            except RuntimeError as exc:  # out of memory, device errors
                raise EngineError(
                    f"embedding failed on {self.device.name}: {exc}",
                    where=self.source.label,
                    fix="Try a smaller --batch-size or --device cpu.",
                ) from exc
            finally:
                if hook is not None:
                    hook.remove()
        if on_batch and reported < len(texts):  # a library version that bypasses the hook
            on_batch(len(texts) - reported)
        vectors = np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.dim)
        return vectors


def _batch_rows(output: object) -> int:
    """How many texts a forward pass embedded (its output maps names to batch-first tensors)."""
    embedding = output.get("sentence_embedding") if isinstance(output, Mapping) else None
    return int(embedding.shape[0]) if embedding is not None else 0


def _quiet_transformers() -> None:
    """Silence transformers' own weight-loading bars: memscope draws its own progress."""
    try:
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
        transformers_logging.set_verbosity_error()
    except (ImportError, AttributeError):  # another transformers layout: its bars stay
        pass


def load_text_encoder(source: TextModelSource, device: ResolvedDevice) -> TextEncoder:
    """The encoder for ``source`` on ``device``, loaded on first use and then reused."""
    key = (source.model_id + str(source.path), device.name)
    with _load_lock:
        encoder = _loaded.get(key)
        if encoder is None:
            encoder = _loaded[key] = TextEncoder(source, device)
        return encoder


def text_encoder_loaded(source: TextModelSource) -> bool:
    """Whether ``source`` is loaded in this process already (on any device); imports nothing."""
    wanted = source.model_id + str(source.path)
    # No _load_lock: it is held for a whole load, and the answer is only a hint for a
    # progress line (list() takes the keys in one step, safe beside a concurrent insert).
    return any(key[0] == wanted for key in list(_loaded))
