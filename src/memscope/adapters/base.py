"""What the user told memscope about how to read runs (the readers' options)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class ReadOptions:
    """What the user told memscope about how to read runs.

    ``dataset`` overrides the dataset path a run recorded (``--dataset``); ``extra`` holds
    the benchmarks' own options by key (``Benchmark.read_options``, e.g. DMV-Bench's cue
    registry); ``strict`` (``--strict``) makes an adapter that reads rows itself refuse a run with any
    bad row instead of skipping it; ``reread`` (``ingest --reread``) stores every run again.
    """

    dataset: Path | None = None
    extra: Mapping[str, object] = field(default_factory=dict)
    strict: bool = False
    reread: bool = False
    """``ingest --reread``: read and store every run again, changed or not."""
    remembered: Mapping[str, str] = field(default_factory=dict)
    """Results file name -> the data file (a run config's ``history_file``) the store read it
    with before, so a later read of a directory whose results name no data file finds it
    without ``--dataset`` (the store fills it in; a reader only asks)."""

    def path_option(self, key: str) -> Path | None:
        """The benchmark's option ``key`` as a path (None when it was not given)."""
        value = self.extra.get(key)
        return Path(value) if isinstance(value, (str, Path)) and value else None

    def remembered_history(self, results_name: str) -> str | None:
        """The history file the store used before for the results file ``results_name``
        (:attr:`remembered`; None when there is none)."""
        remembered = self.remembered.get(results_name)
        return remembered if isinstance(remembered, str) else None


def read_options(
    dataset: Path | None = None, extra: Mapping[str, object] | None = None
) -> ReadOptions:
    """The ReadOptions for ``--dataset`` and the benchmarks' own options (``extra``, by the
    option's key; unset options left out)."""
    given = {key: value for key, value in (extra or {}).items() if value is not None}
    return ReadOptions(dataset=dataset, extra=given)
