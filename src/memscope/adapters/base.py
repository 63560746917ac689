"""The adapter contract: one on-disk run format each, files in, records out."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from memscope.records import RunRecord


@dataclass(frozen=True)
class ReadOptions:
    """What the user told memscope about how to read runs.

    ``dataset`` overrides the dataset path a run recorded (``--dataset``); ``extra`` holds
    format-specific options (e.g. DMV-Bench's cue registry, ``"dmv_registry"``);
    ``strict`` (``--strict``) makes an adapter that reads rows itself refuse a run with any
    bad row instead of skipping it.
    """

    dataset: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    strict: bool = False


class RunAdapter(Protocol):
    """Reads one benchmark's run directories."""

    name: str
    """Short name of the format, e.g. ``"memeye"``."""

    def sniff(self, path: Path) -> bool:
        """Whether ``path`` is a run directory of this format."""
        ...

    def read(self, path: Path, options: ReadOptions) -> RunRecord:
        """Read the run at ``path``; raise a MemscopeError for anything unreadable."""
        ...


def read_options(dataset: Path | None = None, dmv_registry: Path | None = None) -> ReadOptions:
    """The ReadOptions for the ``--dataset`` and ``--dmv-registry`` options."""
    return ReadOptions(
        dataset=dataset, extra={"dmv_registry": dmv_registry} if dmv_registry else {}
    )
