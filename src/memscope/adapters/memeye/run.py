"""Reads a MemEye run directory: ``config.json``, ``metrics.json``, ``predictions.jsonl``.

Layout and fields: docs/formats.md §1. The dataset a run points
to usually lives on another machine, so its location is searched for (and ``--dataset``
overrides it); the per-question rows are handed to the store as a bulk source because real
runs have tens of thousands of them.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import overload

from memscope.adapters.memeye.dataset import memeye_dataset_source
from memscope.adapters.memeye.predictions_format import PREDICTIONS_FORMAT
from memscope.plugin import (
    BulkSource,
    DatasetError,
    JSONObject,
    JSONValue,
    Notice,
    ReadOptions,
    RetrievalKind,
    RunDirError,
    RunRecord,
    file_digest,
    files_named,
    in_working_dir,
    read_json_file,
    refuse_special,
)

PREDICTIONS = "predictions.jsonl"
SIDE_FILES = ("config.json", "metrics.json")
RETRIEVAL_SIDECAR = "retrieval.jsonl"
SECRET_KEY = re.compile(r"(api[_-]?key|secret|password|token)$", re.IGNORECASE)
MASK = "***"
CONTEXT_SOURCES = {"full_context", "clue_only", "target_session_context"}


def is_memeye_run(path: Path) -> bool:
    """Whether ``path`` looks like a MemEye run directory."""
    return (path / PREDICTIONS).is_file() and (path / "metrics.json").is_file()


@overload
def mask_secrets(value: JSONObject) -> JSONObject: ...
@overload
def mask_secrets(value: JSONValue) -> JSONValue: ...
def mask_secrets(value: JSONValue) -> JSONValue:
    """Return a copy of a config with every API key, token, secret or password masked."""
    if isinstance(value, dict):
        return {
            key: (
                MASK if _is_secret_key(str(key)) and item not in (None, "") else mask_secrets(item)
            )
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [mask_secrets(item) for item in value]
    return value


@functools.lru_cache(maxsize=4096)
def _is_secret_key(key: str) -> bool:
    """Whether a config key names a secret (the same keys recur in every run of a sweep)."""
    return SECRET_KEY.search(key) is not None


def read_memeye_run(run_dir: Path, dataset: Path | None = None) -> RunRecord:
    """Read one MemEye run directory.

    Args:
        run_dir: The directory holding ``predictions.jsonl``.
        dataset: ``--dataset``: a dialog JSON, or a folder of them, overriding the path
            the run recorded.

    Raises:
        RunDirError: the directory is not a run dir or its JSON files are unreadable.
        DatasetError: the dataset cannot be found or read.
    """
    run_dir = run_dir.resolve()
    if not run_dir.is_dir():
        raise RunDirError(
            "not a directory",
            where=str(run_dir),
            fix="Pass a run directory (it holds predictions.jsonl).",
        )
    predictions = run_dir / PREDICTIONS
    if not predictions.is_file():
        raise RunDirError(
            "not a MemEye run directory: it has no predictions.jsonl",
            where=str(run_dir),
            fix="Point at a run directory, or use `memscope ingest ROOT` to find every run below a folder.",
        )
    metrics = read_json_file(run_dir / "metrics.json", what="metrics.json")
    if not isinstance(metrics, dict):
        raise RunDirError("metrics.json is not a JSON object", where=str(run_dir / "metrics.json"))
    notices: list[Notice] = []
    config_path = run_dir / "config.json"
    if config_path.exists():  # a FIFO or folder there is read, and refused saying what it is
        config = read_json_file(config_path, what="config.json")
        if not isinstance(config, dict):
            raise RunDirError("config.json is not a JSON object", where=str(config_path))
    else:
        config = {}
        notices.append(
            Notice("config.json is missing; model and method come from metrics.json", str(run_dir))
        )
    config = mask_secrets(config)
    metrics = mask_secrets(metrics)

    task = str(metrics.get("task_name") or _dig_text(config, "task", "name") or run_dir.parent.name)
    dialog_path = locate_dialog_json(run_dir, metrics, config, dataset)
    image_root = _locate_image_root(run_dir, metrics, config, dialog_path)
    dataset_source = memeye_dataset_source(dialog_path, image_root, task_hint=task)

    logged = metrics.get("method_runtime")
    runtime = logged if isinstance(logged, dict) else {}
    if not runtime:
        configured = _dig(config, "run", "method_runtime")
        runtime = configured if isinstance(configured, dict) else {}
    method = _str_or_none(metrics.get("method_name")) or _dig_text(config, "method", "name")
    base_method = _str_or_none(metrics.get("base_method_name")) or _dig_text(
        config, "method", "name"
    )
    modality = (
        _str_or_none(metrics.get("method_modality"))
        or _str_or_none(runtime.get("method_modality"))
        or _dig_text(config, "method", "modality")
        or _modality_from_name(method)
    )
    top_k = runtime.get("top_k", _dig(config, "method", "top_k"))
    retrieval_kind = _retrieval_kind(runtime, base_method or method or "")
    files = [run_dir / name for name in SIDE_FILES if (run_dir / name).is_file()] + [predictions]
    sidecar = run_dir / RETRIEVAL_SIDECAR
    if sidecar.is_file():
        files.append(sidecar)
    content_hash, stats = file_digest(files)
    return RunRecord(
        run_id=run_dir.name,
        path=str(run_dir),
        content_hash=content_hash,
        file_stats=stats,
        benchmark="memeye",
        task=task,
        model=_str_or_none(metrics.get("model_name")) or _dig_text(config, "model", "name"),
        method=method,
        base_method=base_method,
        modality=modality,
        mode=_str_or_none(metrics.get("mode")),
        top_k=int(top_k) if isinstance(top_k, int) and top_k > 0 else None,
        retrieval_kind=retrieval_kind,
        config=config,
        metrics={key: value for key, value in metrics.items() if key != "results"},
        dataset=dataset_source,
        predictions=BulkSource(
            PREDICTIONS_FORMAT,
            predictions,
            {
                "retrieval_kind": retrieval_kind,
                "sidecar": str(sidecar) if sidecar.is_file() else None,
            },
        ),
        notices=notices,
    )


def locate_dialog_json(
    run_dir: Path, metrics: JSONObject, config: JSONObject, override: Path | None
) -> Path:
    """Find the dialog JSON a run was made from.

    Tries ``--dataset`` first, then the recorded path (absolute, or relative to the run
    dir and to the working directory), then ``data/dialog/<name>`` and ``dialog/<name>``
    in the folders above the run, as in the MemEye repository layout.

    Raises:
        DatasetError: naming every path tried and the ``--dataset`` flag.
    """
    recorded = (
        _str_or_none(metrics.get("dialog_json"))
        or _dig_text(config, "dataset", "dialog_json")
        or _dig_text(config, "task", "dataset", "dialog_json")
    )
    name = Path(recorded).name if recorded else None
    tried: list[Path] = []
    seen: set[Path] = set()  # a set: the candidates of six ancestors repeat each other
    candidates: list[Path] = []
    if override is not None:
        override = override.expanduser()
        refuse_special(override, "--dataset")
        if override.is_dir():
            if name:
                candidates += [override / name, *files_named(override, name)]
            else:
                candidates += sorted(override.glob("*.json"))[:1]
        else:
            candidates.append(override)
    if recorded and name:
        recorded_path = Path(recorded).expanduser()
        if recorded_path.is_absolute():
            candidates.append(recorded_path)
        else:
            candidates += [run_dir / recorded_path, *in_working_dir(recorded_path)]
        for ancestor in [run_dir, *run_dir.parents][:6]:
            candidates += [ancestor / "data" / "dialog" / name, ancestor / "dialog" / name]
    for candidate in candidates:
        if candidate in seen:
            continue
        seen.add(candidate)
        tried.append(candidate)
        if candidate.is_file():
            return candidate.resolve()
    if not recorded and override is None:
        raise DatasetError(
            "metrics.json names no dataset ('dialog_json')",
            where=str(run_dir / "metrics.json"),
            fix="Pass the dialog JSON with --dataset PATH.",
        )
    listed = "\n    ".join(str(path) for path in tried)
    raise DatasetError(
        f"cannot find the dataset of this run; tried:\n    {listed}",
        where=str(run_dir),
        fix="Pass the dialog JSON (or a folder holding it) with --dataset PATH.",
    )


def _locate_image_root(
    run_dir: Path, metrics: JSONObject, config: JSONObject, dialog_path: Path
) -> Path | None:
    recorded = (
        _str_or_none(metrics.get("image_root"))
        or _dig_text(config, "dataset", "image_root")
        or _dig_text(config, "task", "dataset", "image_root")
    )
    candidates: list[Path] = []
    if recorded:
        path = Path(recorded).expanduser()
        candidates += [path] if path.is_absolute() else [run_dir / path, *in_working_dir(path)]
    candidates.append(dialog_path.parent.parent / "image")
    for candidate in candidates:
        if candidate.is_dir():
            return candidate.resolve()
    return None


def _retrieval_kind(runtime: JSONObject, method: str) -> RetrievalKind:
    if "seed_round_ids" in runtime:
        return "ranked"
    if "retrieved_round_ids" in runtime or method.startswith("gen_agents"):
        return "unranked"
    if runtime.get("history_source") in CONTEXT_SOURCES or method.startswith(
        ("full_context", "clue_only_context", "target_session_context")
    ):
        return "context"
    if method.startswith("semantic_rag"):
        return "ranked"
    return "none"


def _modality_from_name(method: str | None) -> str | None:
    if not method:
        return None
    for modality in ("text_only", "multimodal", "no_visual"):
        if method.endswith(modality):
            return modality
    return None


def _dig(mapping: JSONValue, *keys: str) -> JSONValue:
    for key in keys:
        if not isinstance(mapping, dict):
            return None
        mapping = mapping.get(key)
    return mapping if mapping not in ("", None) else None


def _str_or_none(value: JSONValue) -> str | None:
    return str(value) if value not in (None, "") else None


def _dig_text(mapping: JSONValue, *keys: str) -> str | None:
    """A nested value of a config as text (None when absent or empty)."""
    return _str_or_none(_dig(mapping, *keys))


def read_all(run_dir: Path, options: ReadOptions) -> list[RunRecord]:
    """The one run of a MemEye run directory (the ``RunReader`` the spec names)."""
    return [read_memeye_run(run_dir, options.dataset)]
