"""A stored run's row as a typed, frozen record: :class:`RunInfo`.

The store hands a run's row out as a plain mapping (``store.queries.RUN_COLUMNS``); the use
cases turn it into a ``RunInfo`` once, so the code above reads ``run.top_k`` rather than
``run.get("top_k")``, and mypy knows what each field holds. :meth:`RunInfo.as_row` gives the
mapping back, keys in the store's column order, for JSON output and for a benchmark's hooks
(``adapters.spec.RunColumns``), which see the row as a mapping.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import datetime

DEFAULT_K = 10
"""The cut-off K of a run that logged no ``top_k``."""

RunValue = str | int | datetime | None
"""What one field of a run's row holds."""


@dataclass(frozen=True)
class RunInfo:
    """One ingested run as the store describes it (the ``runs`` table's columns)."""

    run_id: str
    benchmark: str
    dataset_id: str
    path: str
    content_hash: str | None = None
    task: str | None = None
    model: str | None = None
    method: str | None = None
    base_method: str | None = None
    modality: str | None = None
    mode: str | None = None
    top_k: int | None = None
    retrieval_kind: str | None = None
    n_questions: int | None = None
    ingested_at: datetime | None = None
    opened_at: datetime | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, object]) -> RunInfo:
        """The record of a row read from the store (extra keys, e.g. a listing's scores,
        are left out)."""
        return cls(
            run_id=str(row["run_id"]),
            benchmark=str(row["benchmark"]),
            dataset_id=str(row["dataset_id"]),
            path=str(row["path"]),
            content_hash=_text(row.get("content_hash")),
            task=_text(row.get("task")),
            model=_text(row.get("model")),
            method=_text(row.get("method")),
            base_method=_text(row.get("base_method")),
            modality=_text(row.get("modality")),
            mode=_text(row.get("mode")),
            top_k=_whole(row.get("top_k")),
            retrieval_kind=_text(row.get("retrieval_kind")),
            n_questions=_whole(row.get("n_questions")),
            ingested_at=_instant(row.get("ingested_at")),
            opened_at=_instant(row.get("opened_at")),
        )

    def as_row(self) -> dict[str, RunValue]:
        """The row as the store holds it: every column, in the store's order."""
        return {spec.name: getattr(self, spec.name) for spec in fields(self)}

    def value(self, name: str) -> RunValue:
        """One column by name (a ``table --group`` field); None for a name that is no column."""
        return self.as_row().get(name)

    def effective_k(self, k: int | None = None) -> int:
        """The cut-off K: ``k`` when given (``--k``), else the run's ``top_k``, else 10."""
        if k is not None:
            return k
        return int(self.top_k or DEFAULT_K)

    @property
    def has_retrievals(self) -> bool:
        """Whether the run logged ranked or unranked retrievals."""
        return self.retrieval_kind in ("ranked", "unranked")


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _whole(value: object) -> int | None:
    return value if isinstance(value, int) else None


def _instant(value: object) -> datetime | None:
    return value if isinstance(value, datetime) else None
