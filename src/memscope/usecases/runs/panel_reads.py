"""A stored question as a benchmark's question panel reads it (``adapters.panels.PanelQuestion``).

The panel's ``build`` hook runs in the app's worker and reads through :class:`StoredQuestion`
only: the question with the run's answer, its rows in the benchmark's own detail tables and
the dataset rounds they name, each in a short read of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memscope.errors import NotFoundError, PluginError
from memscope.store import Store
from memscope.store import queries_benchmarks as benchmark_queries
from memscope.usecases.benchmarks import spec_of

__all__ = ["StoredQuestion"]


class StoredQuestion:
    """Question ``qid`` of stored run ``run_id`` of ``benchmark`` (see the module's docstring)."""

    def __init__(self, store: Store, benchmark: str, run_id: str, qid: str) -> None:
        self._store = store
        self._benchmark = benchmark
        self._run_id = run_id
        self._qid = qid
        self._record: dict[str, Any] | None = None

    @property
    def run_id(self) -> str:
        return self._run_id

    @property
    def qid(self) -> str:
        return self._qid

    def record(self) -> Mapping[str, Any]:
        """The question with the run's answer (read once).

        Raises:
            NotFoundError: the run has no such question.
        """
        if self._record is None:
            with self._store.read() as con:
                found = benchmark_queries.run_question(con, self._run_id, self._qid)
            if found is None:
                raise NotFoundError(
                    f"run {self._run_id!r} has no question {self._qid!r}",
                    where=str(self._store.path),
                )
            self._record = found
        return self._record

    def detail_rows(self, table: str) -> list[dict[str, Any]]:
        """The question's rows in ``table``, one of its benchmark's declared detail tables
        with a ``qid`` column (a PluginError for any other name: no panel reads another
        benchmark's tables, and only declared names reach the SQL)."""
        declared = {
            entry.name: {column for column, _ in entry.columns}
            for entry in spec_of(self._benchmark).detail_tables
        }
        if "qid" not in declared.get(table, ()):
            raise PluginError(
                f"{self._benchmark}'s question panel read {table!r}, "
                "which is none of its detail tables with a qid column"
            )
        with self._store.read() as con:
            return benchmark_queries.detail_rows(con, table, self._run_id, self._qid)

    def rounds(self, round_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The named rounds of the run's dataset, by id."""
        dataset_id = self.record()["dataset_id"]
        with self._store.read() as con:
            return benchmark_queries.rounds_by_id(con, dataset_id, list(round_ids))
