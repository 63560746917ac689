"""The reads behind a run's evidence tables (``store.evidence.assemble_evidence``): its
dataset's rounds and sessions, its questions and their stored retrievals, whole
(``queries.evidence_table``) or in chunks of questions (:func:`evidence_chunks`, the
run-level re-rank of a large run: one chunk's Arrow lists alive at a time).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memscope.store.sql import one, one_row

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

CHUNK_READ_SETTINGS = {"memory_limit": "32MB", "threads": "1"}
"""DuckDB's settings while :func:`evidence_chunks` reads (each chunk's joins are small).
Without the memory limit DuckDB keeps every block the chunks scanned cached, most of the
retrievals table (about 100 MB at 1,000,000 questions), though each chunk reads others;
one thread keeps one set of scan buffers (about 20 MB less there, for small reads)."""

_RUN_QUESTIONS = (
    "predictions p JOIN questions q ON q.dataset_id = $dataset AND q.qid = p.qid "
    "WHERE p.run_id = $run"
)
"""A run's questions."""
_AT_LEVEL = "($y IS NULL OR coalesce(q.y = $y, false))"
"""A question at level ``$y`` (any when NULL)."""
_IDX_RANGE = "AND ($low IS NULL OR {idx} >= $low) AND ($high IS NULL OR {idx} < $high)"
"""Questions with idx in ``[$low, $high)`` (a NULL bound: unbounded)."""
_RETRIEVED = "SELECT qid, rank, round_id, score, origin FROM retrievals"


@dataclass(frozen=True)
class EvidenceSource:
    """What every evidence read of a run shares: its dataset's rounds and sessions."""

    run_id: str
    y: str | None
    """Only the questions at this Y level (None: all)."""
    dataset_id: str | None
    rounds: pa.Table
    sessions: pa.Table

    @classmethod
    def of(cls, con: duckdb.DuckDBPyConnection, run_id: str, y: str | None) -> EvidenceSource:
        """Read the dataset's rounds and sessions of ``run_id``."""
        found = one(con, "SELECT dataset_id FROM runs WHERE run_id = ?", [run_id])
        dataset_id = found[0] if found else None
        rounds = con.sql(
            "SELECT r.round_id, r.position, s.session_order, r.session_id FROM rounds r "
            "JOIN sessions s USING (dataset_id, session_id) WHERE r.dataset_id = ?",
            params=[dataset_id],
        ).to_arrow_table()
        sessions = con.sql(
            "SELECT session_id, session_order FROM sessions WHERE dataset_id = ?",
            params=[dataset_id],
        ).to_arrow_table()
        return cls(run_id, y, dataset_id, rounds, sessions)

    def largest(self) -> int:
        """The largest dialogue position or session order of the dataset (0: none)."""
        import pyarrow.compute as pc

        values = [
            pc.max(self.rounds.column("position")).as_py(),
            pc.max(self.sessions.column("session_order")).as_py(),
        ]
        return max([0, *(int(value) for value in values if value is not None)])

    def params(self) -> dict[str, Any]:
        """The run, dataset and level parameters of this module's SQL."""
        return {"run": self.run_id, "dataset": self.dataset_id, "y": self.y}

    def questions(
        self,
        con: duckdb.DuckDBPyConnection,
        low: int | None = None,
        high: int | None = None,
        *,
        with_idx: bool = False,
    ) -> pa.Table:
        """The run's questions (at level ``y``) with idx in ``[low, high)``, by idx
        (``with_idx``: with their idx as a last column)."""
        idx = ", q.idx" if with_idx else ""
        return con.sql(
            f"SELECT p.qid, q.y, q.extra, q.clue_rounds, q.source_sessions{idx} FROM {_RUN_QUESTIONS} "
            f"AND {_AT_LEVEL} {_IDX_RANGE.format(idx='q.idx')} ORDER BY q.idx",
            params=self.params() | {"low": low, "high": high},
        ).to_arrow_table()

    def retrieved(self, con: duckdb.DuckDBPyConnection) -> pa.Table:
        """The stored retrievals of the run's questions (at level ``y``)."""
        if self.y is None:
            return con.sql(f"{_RETRIEVED} WHERE run_id = ?", params=[self.run_id]).to_arrow_table()
        # Only those questions' candidates: a third of a large run's rows (the whole set
        # would be read into memory only to be dropped by the join).
        return con.sql(
            f"{_RETRIEVED} WHERE run_id = $run AND qid IN (SELECT qid FROM questions "
            "WHERE dataset_id = $dataset AND y = $y)",
            params={"run": self.run_id, "dataset": self.dataset_id, "y": self.y},
        ).to_arrow_table()

    def rowids(
        self, con: duckdb.DuckDBPyConnection, ranges: list[tuple[int | None, int | None]]
    ) -> list[tuple[int | None, int | None]]:
        """Per idx range (consecutive, in order), the first and last rowid of the stored
        retrievals of the run's questions of every level in it (None, None: none), from
        one scan of the retrievals' qids."""
        low, high = ranges[0][0], ranges[-1][1]
        # Which range a question is in, from the ranges' upper bounds (integers).
        cases = " ".join(
            f"WHEN q.idx < {int(bound)} THEN {number}"
            for number, (_, bound) in enumerate(ranges[:-1])
            if bound is not None
        )
        which = f"CASE {cases} ELSE {len(ranges) - 1} END" if cases else "0"
        found = con.execute(
            f"SELECT {which} AS part, min(r.rowid), max(r.rowid) FROM retrievals r "
            "JOIN questions q ON q.dataset_id = $dataset AND q.qid = r.qid "
            f"WHERE r.run_id = $run {_IDX_RANGE.format(idx='q.idx')} GROUP BY part",
            {"run": self.run_id, "dataset": self.dataset_id, "low": low, "high": high},
        ).fetchall()
        by_part = {int(part): (first, last) for part, first, last in found}
        return [by_part.get(number, (None, None)) for number in range(len(ranges))]

    def retrieved_between(
        self,
        con: duckdb.DuckDBPyConnection,
        low: int | None,
        high: int | None,
        rowids: tuple[int | None, int | None],
    ) -> pa.Table:
        """The stored retrievals of the run's questions of every level with idx in
        ``[low, high)``, looked for between ``rowids`` (:meth:`rowids`): DuckDB skips the
        row groups outside them, so a chunk reads the other columns of its own rows, not
        of the whole table."""
        return con.sql(
            f"{_RETRIEVED} WHERE rowid BETWEEN $first AND $last AND {_IN_RANGE}",
            params={
                "run": self.run_id,
                "dataset": self.dataset_id,
                "low": low,
                "high": high,
                "first": rowids[0],
                "last": rowids[1],
            },
        ).to_arrow_table()


_IN_RANGE = (
    "run_id = $run AND qid IN (SELECT qid FROM questions WHERE dataset_id = $dataset "
    f"{_IDX_RANGE.format(idx='idx')})"
)
"""The run's retrievals of its questions of every level with idx in ``[$low, $high)``."""
CHUNKS_PER_PLAN = 8
"""Chunks whose questions and candidates' rowid ranges one query each finds together: a
run's candidates are stored together, question by question, so a range of questions lies
in a few row groups; the scans of the predictions and retrievals tables those two queries
make then happen once per this many chunks."""


@dataclass(frozen=True)
class EvidenceChunk:
    """The evidence of some questions, with the longest pool around them."""

    table: pa.Table
    """``queries.evidence_table``'s rows of these questions, by idx."""
    longest: int
    """The most candidates any question of the run in this chunk's idx range retrieved,
    whatever its level (with the other chunks': the run's pool width)."""


@dataclass(frozen=True)
class EvidenceChunks:
    """``queries.evidence_table``'s rows in chunks of questions (:func:`evidence_chunks`)."""

    at_most: int
    """At most how many questions the chunks hold together (the dataset's at the level),
    so that a reader can size its arrays once."""
    largest: int
    """The largest dialogue position or session order an evidence list can hold (the
    dataset's), so a reader can keep them in the narrowest integer type."""
    chunks: Iterator[EvidenceChunk]
    """Read lazily, in idx order, on the connection they came from (at least one)."""


def evidence_chunks(
    con: duckdb.DuckDBPyConnection, run_id: str, *, y: str | None, questions: int
) -> EvidenceChunks:
    """``queries.evidence_table`` of ``run_id`` (its questions at level ``y``) read by
    ranges of idx holding ``questions`` questions of the dataset (of every level) each: a
    run-level computation over a large run then holds one chunk's Arrow lists at a time,
    never the whole run's. The chunks hold every question at level ``y`` once; their
    ranges cover every question of the run, so the maximum of their ``longest`` is the
    run's pool width (the most candidates any of its questions retrieved).
    """
    import numpy as np

    source = EvidenceSource.of(con, run_id, y)
    # The dataset's questions, not the run's: no join of a million qids to plan the reads.
    found = con.sql(
        "SELECT idx FROM questions WHERE dataset_id = ?", params=[source.dataset_id]
    ).fetchnumpy()["idx"]
    idx = np.sort(np.asarray(found, dtype=np.int64))
    at_most = one_row(
        con,
        f"SELECT count(*) FROM questions q WHERE dataset_id = $dataset AND {_AT_LEVEL}",
        {"dataset": source.dataset_id, "y": y},
    )[0]
    # Half-open idx ranges from every ``questions``-th question's idx on (a question
    # sharing an idx with the one before a cut still lands in one chunk); the first
    # starts unbounded and the last ends so, whatever the store holds.
    starts = [int(start) for start in np.unique(idx[:: max(1, questions)])]
    bounds = list(zip([None, *starts[1:]], [*starts[1:], None], strict=True))
    del found, idx

    def chunks() -> Iterator[EvidenceChunk]:
        from memscope.store.evidence import assemble_evidence

        ranges = bounds or [(None, None)]
        empty = True
        with _settings(con, CHUNK_READ_SETTINGS):
            for first in range(0, len(ranges), CHUNKS_PER_PLAN):
                group = ranges[first : first + CHUNKS_PER_PLAN]
                low, high = group[0][0], group[-1][1]
                at_level = source.questions(con, low, high, with_idx=True)
                idx = at_level.column("idx").to_numpy()
                for (chunk_low, chunk_high), rowids in zip(
                    group, source.rowids(con, group), strict=True
                ):
                    start = 0 if chunk_low is None else int(np.searchsorted(idx, chunk_low))
                    stop = len(idx) if chunk_high is None else int(np.searchsorted(idx, chunk_high))
                    if start == stop and rowids[0] is None:
                        continue  # nothing of the run here (a run of part of its dataset)
                    retrieved = source.retrieved_between(con, chunk_low, chunk_high, rowids)
                    table = assemble_evidence(
                        at_level.slice(start, stop - start),
                        source.rounds,
                        source.sessions,
                        retrieved,
                    )
                    empty = False
                    yield EvidenceChunk(table, _longest(retrieved))
            if empty:  # the reader still gets the (empty) table's columns
                yield EvidenceChunk(
                    assemble_evidence(
                        source.questions(con),
                        source.rounds,
                        source.sessions,
                        con.sql(f"{_RETRIEVED} WHERE false").to_arrow_table(),
                    ),
                    0,
                )

    return EvidenceChunks(int(at_most), source.largest(), chunks())


def _longest(retrieved: pa.Table) -> int:
    """The most rows any one qid has in ``retrieved`` (0 when empty)."""
    import pyarrow.compute as pc

    if not retrieved.num_rows:
        return 0
    counts = pc.value_counts(retrieved.column("qid")).field("counts")
    return int(pc.max(counts).as_py())


@contextmanager
def _settings(con: duckdb.DuckDBPyConnection, settings: dict[str, str]) -> Iterator[None]:
    """DuckDB's ``settings`` set meanwhile, then put back as they were."""
    before = {name: one_row(con, "SELECT current_setting(?)", [name])[0] for name in settings}
    for name, value in settings.items():
        con.execute(f"SET {name} = '{value}'")
    try:
        yield
    finally:
        for name, value in before.items():
            con.execute(f"SET {name} = '{value}'")
