"""The image encoder: an open_clip model for images and for the text queries that search them.

Loaded once per (model, device) per process, in eval mode, weights from this machine only
(``models.resolve_image_model`` has already checked they are here). The tokenizer is
loaded on first text query, so image-only work (indexing photos, "rounds that look like
this one") needs no tokenizer. Vectors are L2-normalised float32 rows.

Image files are decoded and preprocessed by a small thread pool (PIL and torch release
the GIL for the heavy parts) a batch or two ahead of the model, so reading the next batch
overlaps encoding this one; on CUDA the batch is staged in pinned memory and copied
without blocking.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from memscope.engine.device import ResolvedDevice
from memscope.engine.models import (
    IMAGE_FIX,
    ImageModelSource,
    ensure_offline,
    hf_tokenizer_available,
)
from memscope.engine.threads import configure_torch, thread_budget
from memscope.errors import EngineError

if TYPE_CHECKING:
    import torch

Tokenizer = Callable[[list[str]], "torch.Tensor"]
"""open_clip's text tokenizer: texts in, a batch of token ids out (open_clip ships no types)."""

DEFAULT_IMAGE_BATCH = 32
DEFAULT_QUERY_BATCH = 64
BATCHES_AHEAD = 2
"""Batches the decoding pool may prepare ahead of the model (bounds the memory it holds)."""

_loaded: dict[tuple[str, str], ImageEncoder] = {}
_load_lock = threading.Lock()


@dataclass
class ImageBatchResult:
    """Vectors for the images that could be read, and the ones that could not."""

    vectors: np.ndarray
    """``(len(paths), dim)`` float32; rows of unreadable images are zero."""
    failed: dict[int, str] = field(default_factory=dict)
    """Index of an unreadable image → why."""


class ImageEncoder:
    """A loaded open_clip model on one device. Use :func:`load_image_encoder`."""

    def __init__(self, source: ImageModelSource, device: ResolvedDevice) -> None:
        ensure_offline()
        configure_torch()
        try:
            import open_clip
            import torch

            if source.random_seed is not None:
                torch.manual_seed(source.random_seed)
            model, _, preprocess = open_clip.create_model_and_transforms(
                source.name, pretrained=source.pretrained, device="cpu"
            )
        except Exception as exc:  # open_clip raises RuntimeError, ValueError, OSError, ...
            raise EngineError(
                f"cannot load image model {source.label}: {type(exc).__name__}: {exc}",
                where=source.name,
                fix=IMAGE_FIX,
            ) from exc
        self.model = model.to(device.name).eval()
        self.preprocess = preprocess
        self.source = source
        self.device = device
        self._tokenizer: Tokenizer | None = None
        self._lock = threading.Lock()
        with torch.inference_mode():
            probe = self.model.encode_image(
                torch.zeros((1, *self._image_shape()), device=device.name)
            )
        self.dim = int(probe.shape[-1])

    @property
    def model_id(self) -> str:
        """The embedding-cache key of this model."""
        return self.source.model_id

    def _image_shape(self) -> tuple[int, int, int]:
        size = getattr(self.model.visual, "image_size", 224)
        height, width = (size, size) if isinstance(size, int) else tuple(size)
        return 3, int(height), int(width)

    def tokenizer(self) -> Tokenizer:
        """The text tokenizer, loaded on first use.

        Raises:
            EngineError: when the model needs a Hugging Face tokenizer that is not cached.
        """
        if self._tokenizer is not None:
            return self._tokenizer
        repo = self.source.tokenizer_repo
        if (
            repo
            and not self.source.name.startswith("local-dir:")
            and not hf_tokenizer_available(repo)
        ):
            raise EngineError(
                f"the tokenizer of image model {self.source.label} is not on this machine",
                where=repo,
                fix="Put the tokenizer in the Hugging Face cache, or use an image model that ships "
                "its tokenizer (local-dir:FOLDER). " + IMAGE_FIX,
            )
        try:
            import open_clip

            tokenizer: Tokenizer = open_clip.get_tokenizer(self.source.name)
        except Exception as exc:
            raise EngineError(
                f"cannot load the tokenizer of {self.source.label}: {exc}",
                where=self.source.name,
                fix=IMAGE_FIX,
            ) from exc
        self._tokenizer = tokenizer
        return tokenizer

    def encode_images(
        self,
        paths: Sequence[str],
        *,
        batch_size: int = DEFAULT_IMAGE_BATCH,
        on_batch: Callable[[int], None] | None = None,
    ) -> ImageBatchResult:
        """Embed image files; an unreadable file is reported, not fatal.

        Decoding runs in a pool of ``thread_budget().decoder_threads`` threads, up to
        :data:`BATCHES_AHEAD` batches ahead of the model.
        """
        import torch

        configure_torch()
        result = ImageBatchResult(np.zeros((len(paths), self.dim), dtype=np.float32))
        batches = [
            range(start, min(start + batch_size, len(paths)))
            for start in range(0, len(paths), batch_size)
        ]
        workers = thread_budget().decoder_threads(self.device.is_cuda)
        with (
            self._lock,
            ThreadPoolExecutor(workers, thread_name_prefix="memscope-decode") as pool,
            torch.inference_mode(),
        ):
            pending: deque[tuple[range, list[Future[torch.Tensor | str]]]] = deque()

            def read_ahead() -> None:
                while batches and len(pending) < BATCHES_AHEAD:
                    rows = batches.pop(0)
                    pending.append((rows, [pool.submit(self._load, paths[row]) for row in rows]))

            read_ahead()
            while pending:
                batch_rows, futures = pending.popleft()
                tensors, rows = [], []
                for row, future in zip(batch_rows, futures, strict=True):
                    loaded = future.result()
                    if isinstance(loaded, str):
                        result.failed[row] = loaded
                    else:
                        tensors.append(loaded)
                        rows.append(row)
                read_ahead()  # the pool decodes the next batches while this one encodes
                if tensors:
                    result.vectors[rows] = self.encode_tensors(self._stack(tensors))
                if on_batch:
                    on_batch(len(batch_rows))
        return result

    def _load(self, path: str) -> torch.Tensor | str:
        """One preprocessed image tensor, or why the file cannot be read (runs in the pool)."""
        from PIL import Image, UnidentifiedImageError

        try:
            with Image.open(path) as image:
                tensor: torch.Tensor = self.preprocess(image.convert("RGB"))
                return tensor
        except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError) as exc:
            return str(exc) or type(exc).__name__

    def _stack(self, tensors: list[torch.Tensor]) -> torch.Tensor:
        """One batch tensor; on CUDA in pinned memory, so the copy to the GPU is a fast DMA."""
        import torch

        if not self.device.is_cuda:
            return torch.stack(tensors)
        shape = (len(tensors), *tensors[0].shape)
        return torch.stack(tensors, out=torch.empty(shape, dtype=tensors[0].dtype, pin_memory=True))

    def encode_tensors(self, batch: torch.Tensor) -> np.ndarray:
        """Unit vectors of a ``(n, 3, H, W)`` batch already preprocessed (call under inference mode)."""
        import torch

        if self.device.is_cuda:
            batch = batch.to(self.device.name, non_blocking=batch.is_pinned())
        features = torch.nn.functional.normalize(self.model.encode_image(batch).float(), dim=-1)
        return features.cpu().numpy()

    def encode_texts(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = DEFAULT_QUERY_BATCH,
        on_batch: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """Embed text queries into the image space (SigLIP / CLIP text tower)."""
        import torch

        tokenizer = self.tokenizer()
        vectors = np.empty((len(texts), self.dim), dtype=np.float32)
        with self._lock, torch.inference_mode():
            for start in range(0, len(texts), batch_size):
                batch = list(texts[start : start + batch_size])
                tokens = tokenizer(batch).to(self.device.name)
                features = torch.nn.functional.normalize(
                    self.model.encode_text(tokens).float(), dim=-1
                )
                vectors[start : start + len(batch)] = features.cpu().numpy()
                if on_batch:
                    on_batch(len(batch))
        return vectors


def load_image_encoder(source: ImageModelSource, device: ResolvedDevice) -> ImageEncoder:
    """The encoder for ``source`` on ``device``, loaded on first use and then reused."""
    key = (source.model_id + (source.pretrained or ""), device.name)
    with _load_lock:
        encoder = _loaded.get(key)
        if encoder is None:
            encoder = _loaded[key] = ImageEncoder(source, device)
        return encoder
