"""What the user told memscope about how to read runs (the readers' options)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ReadOptions:
    """What the user told memscope about how to read runs.

    ``dataset`` overrides the dataset path a run recorded (``--dataset``); ``extra`` holds
    the benchmarks' own options by key (``Benchmark.read_options``, e.g. DMV-Bench's cue
    registry); ``strict`` (``--strict``) makes an adapter that reads rows itself refuse a run with any
    bad row instead of skipping it.
    """

    dataset: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    strict: bool = False


def read_options(dataset: Path | None = None, extra: dict[str, Any] | None = None) -> ReadOptions:
    """The ReadOptions for ``--dataset`` and the benchmarks' own options (``extra``, by the
    option's key; unset options left out)."""
    given = {key: value for key, value in (extra or {}).items() if value is not None}
    return ReadOptions(dataset=dataset, extra=given)
